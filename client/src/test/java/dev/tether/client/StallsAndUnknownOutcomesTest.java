package dev.tether.client;

import static dev.tether.client.FakeServer.frame;
import static dev.tether.client.FakeServer.json;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Answers that stall after their headers, and calls never repeated whose answer is a 502/503/504: no hang, no false refusal. */
class StallsAndUnknownOutcomesTest {

    private final FakeServer server = new FakeServer();
    private final TetherClient client = TetherClient.create(server.options());

    @AfterEach
    void close() {
        client.close();
        server.close();
    }

    /**
     * A decision the approval-service answers 503 ("no verdict in time": it was sent to the sequencer) or a gateway
     * answers 502/504 may have taken effect: it is never repeated, so the caller must be told the outcome is unknown.
     */
    @Test
    void aDecisionWithoutAVerdict_isAnUnknownOutcome() {
        for (int status : new int[] {502, 503, 504}) {
            server.then(json(status, "{\"error\":\"unavailable\",\"message\":\"no verdict in time\"}"));
            assertThatThrownBy(() -> client.decide("demo-1~7", ApprovalDecision.grantOnce("ok")))
                    .as("decision answered %d", status)
                    .isInstanceOfSatisfying(TetherException.class, e -> assertThat(e.outcomeUnknown()).isTrue());
        }
        assertThat(server.requests()).hasSize(3);
    }

    @Test
    void anErasureWithoutAVerdict_isAnUnknownOutcome() {
        for (int status : new int[] {502, 503, 504}) {
            server.then(json(status, "{\"error\":\"unavailable\",\"message\":\"no verdict in time\"}"));
            assertThatThrownBy(() -> client.erase("demo-1"))
                    .as("erasure answered %d", status)
                    .isInstanceOfSatisfying(TetherException.class, e -> assertThat(e.outcomeUnknown()).isTrue());
        }
        assertThat(server.requests()).hasSize(3);
    }

    /** A refusal stays a refusal: 500 and a 4xx are verdicts, not unknown outcomes. */
    @Test
    void aDecisionRefused_staysKnown() {
        server.then(json(500, "{\"error\":\"internal\",\"message\":\"bug\"}"));
        assertThatThrownBy(() -> client.decide("demo-1~7", ApprovalDecision.grantOnce("ok")))
                .isInstanceOfSatisfying(TetherException.class, e -> assertThat(e.outcomeUnknown()).isFalse());
        server.then(json(409, "{\"error\":\"already_decided\",\"message\":\"granted\"}"));
        assertThat(client.decide("demo-1~7", ApprovalDecision.grantOnce("ok"))).isInstanceOf(AlreadyDecided.class);
    }

    /**
     * A listener whose onConnected throws ends the subscription (FAILED), as any throwing listener does; the stream it
     * had opened must be released too, not left open (a connection held, the service streaming into it) for good.
     */
    @Test
    void aListenerThatThrowsOnConnect_releasesTheStream() throws Exception {
        var released = new CountDownLatch(1);
        server.then(exchange -> {
            exchange.getResponseHeaders().add("Content-Type", "text/event-stream");
            exchange.sendResponseHeaders(200, 0);
            OutputStream out = exchange.getResponseBody();
            byte[] keepAlive = (":" + "k".repeat(1024) + "\n\n").getBytes(StandardCharsets.UTF_8);
            try {
                out.write(frame("s", 1).getBytes(StandardCharsets.UTF_8));
                for (int i = 0; i < 3000; i++) { // ~30 s of writes, until the client lets go of the connection
                    out.write(keepAlive);
                    out.flush();
                    Thread.sleep(10);
                }
            } catch (IOException gone) {
                released.countDown();
            }
        });
        Subscription s = client.subscribe("s", 1, new SessionEventListener() {
            @Override
            public void onEvent(SessionEvent event) {
            }

            @Override
            public void onConnected(long fromSeq) {
                throw new IllegalStateException("listener bug");
            }
        });
        SubscriptionEnd end = s.awaitEnd(Duration.ofSeconds(10)).orElseThrow();
        assertThat(end.reason()).isEqualTo(SubscriptionEnd.Reason.FAILED);
        assertThat(released.await(10, TimeUnit.SECONDS)).as("the stream was released").isTrue();
    }

    /**
     * The request timeout must bound a whole call: a service (or a proxy) that sends the answer's headers and then
     * stalls in its body must not hang the caller for ever.
     */
    @Test
    void anAnswerWhoseBodyStalls_timesOut() throws Exception {
        TetherClient quick = TetherClient.create(server.options().withTimeout(Duration.ofSeconds(1)).withRetry(RetryPolicy.none()));
        server.otherwise(exchange -> {
            exchange.getResponseHeaders().add("Content-Type", "application/json");
            exchange.sendResponseHeaders(200, 1000);
            exchange.getResponseBody().write("{\"sessionId\":".getBytes(StandardCharsets.UTF_8));
            exchange.getResponseBody().flush();
            Thread.sleep(60_000);
        });
        var call = CompletableFuture.supplyAsync(() -> {
            try {
                return quick.session("s");
            } catch (RuntimeException e) {
                return null;
            }
        });
        try {
            call.get(8, TimeUnit.SECONDS);
        } catch (java.util.concurrent.TimeoutException e) {
            throw new AssertionError("a call whose answer's body stalled was still waiting after 8 s (request timeout 1 s)");
        } finally {
            call.cancel(true);
            quick.close();
        }
    }

    /**
     * A subscription that meets an error answer whose body stalls (a proxy's 503 page cut off) must give up on it within
     * the timeout and reconnect, not wait on that body for ever.
     */
    @Test
    void aSubscriptionWhoseErrorBodyStalls_reconnects() throws Exception {
        TetherClient quick = TetherClient.create(server.options().withTimeout(Duration.ofSeconds(1)));
        server.then(exchange -> {
            exchange.getResponseHeaders().add("Content-Type", "application/json");
            exchange.sendResponseHeaders(503, 1000);
            exchange.getResponseBody().write("{\"error\":".getBytes(StandardCharsets.UTF_8));
            exchange.getResponseBody().flush();
            Thread.sleep(60_000);
        }).then(FakeServer.sse(frame("s", 1)));
        var first = new CompletableFuture<SessionEvent>();
        try (Subscription s = quick.subscribe("s", 1, first::complete)) {
            assertThat(first.get(8, TimeUnit.SECONDS).seq()).isEqualTo(1);
        } catch (java.util.concurrent.TimeoutException e) {
            throw new AssertionError("the subscription still waited on a stalled error body after 8 s (timeout 1 s)");
        } finally {
            quick.close();
        }
    }
}
