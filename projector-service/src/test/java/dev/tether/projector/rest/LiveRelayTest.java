package dev.tether.projector.rest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.tether.kit.service.rest.ApiException;
import dev.tether.kit.service.rest.SseReader.Frame;
import io.smallrye.mutiny.subscription.Cancellable;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The relay of the live subscription against a stand-in session-service (the JDK's HTTP server on loopback): it asks
 * first whether the caller sees the session, sends the caller's credentials and the seq to start from, passes the
 * events on as they come, and closes the session-service's stream when its own subscriber goes away; the
 * session-service's refusal of the caller (401, 403) is the caller's, its failure a 503 to try again after.
 */
class LiveRelayTest {

    /** When the stand-in's session s-1 started, as a query parameter. */
    private static final String STARTED_ENCODED = "2026-12-06T12%3A00%3A00.123Z";

    private final ExecutorService handlers = Executors.newCachedThreadPool();
    private HttpServer server;
    private final List<String> seen = new CopyOnWriteArrayList<>();
    private final CountDownLatch streamClosed = new CountDownLatch(1);

    @BeforeEach
    void start() throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/v1/sessions/", this::answer);
        server.setExecutor(handlers);
        server.start();
    }

    @AfterEach
    void stop() {
        server.stop(0);
        handlers.shutdownNow();
    }

    private void answer(HttpExchange exchange) throws IOException {
        String auth = exchange.getRequestHeaders().getFirst("Authorization");
        String target = exchange.getRequestURI().toString();
        String lastEventId = exchange.getRequestHeaders().getFirst("Last-Event-ID");
        seen.add(target + " " + auth + " " + exchange.getRequestHeaders().getFirst("Accept") + (lastEventId == null ? "" : " " + lastEventId));
        boolean anotherStart = target.contains("sessionStartedAt=") && !target.contains("sessionStartedAt=" + STARTED_ENCODED);
        int refusal = "Bearer expired".equals(auth) ? 401 : "Bearer dev-acme-executor".equals(auth) ? 403 // as the session-service refuses
                : target.startsWith("/v1/sessions/s-failing") ? 500 : 0;
        if (refusal != 0) {
            exchange.sendResponseHeaders(refusal, -1);
            exchange.close();
            return;
        }
        if (!"Bearer dev-acme-agent".equals(auth) || !target.startsWith("/v1/sessions/s-1") || anotherStart) {
            exchange.sendResponseHeaders(404, -1);
            exchange.close();
            return;
        }
        if (!target.contains("/events")) {
            exchange.sendResponseHeaders(200, -1);
            exchange.close();
            return;
        }
        exchange.getResponseHeaders().add("Content-Type", "text/event-stream");
        exchange.sendResponseHeaders(200, 0);
        OutputStream out = exchange.getResponseBody();
        try {
            write(out, "id: 5\nevent: user_message\ndata: {\"seq\":5}\n\n");
            write(out, "id: 6\nevent: tool_result\ndata: {\"seq\":6,\"content\":\"é\"}\n\n");
            for (int i = 0; i < 600; i++) { // a quiet stream: comments until the other side has gone
                Thread.sleep(50);
                write(out, ":\n");
            }
        } catch (IOException e) {
            streamClosed.countDown();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            exchange.close();
        }
    }

    private static void write(OutputStream out, String text) throws IOException {
        out.write(text.getBytes(StandardCharsets.UTF_8));
        out.flush();
    }

    private String url() {
        return "http://127.0.0.1:" + server.getAddress().getPort() + "/";
    }

    @Test
    void relaysTheEventsFromTheSeqAsked_withTheCallersCredentials_andClosesTheStreamWhenItsSubscriberLeaves() throws Exception {
        var relay = new LiveRelay(url());
        var frames = new CopyOnWriteArrayList<Frame>();
        var two = new CountDownLatch(2);

        Cancellable subscription = relay.open("s-1", 5, null, "Bearer dev-acme-agent").subscribe().with(f -> {
            frames.add(f);
            two.countDown();
        });

        assertThat(two.await(10, TimeUnit.SECONDS)).as("two events relayed").isTrue();
        assertThat(frames).containsExactly(new Frame("5", "user_message", "{\"seq\":5}"),
                new Frame("6", "tool_result", "{\"seq\":6,\"content\":\"é\"}"));
        assertThat(seen).containsExactly("/v1/sessions/s-1 Bearer dev-acme-agent null",
                "/v1/sessions/s-1/events?fromSeq=5 Bearer dev-acme-agent text/event-stream");

        subscription.cancel();
        assertThat(streamClosed.await(15, TimeUnit.SECONDS)).as("the session-service's stream was closed").isTrue();
    }

    @Test
    void aReconnect_asksForTheSessionItFollowed_andSendsTheLastEventsId() throws Exception {
        var relay = new LiveRelay(url());
        var one = new CountDownLatch(1);

        Cancellable subscription = relay.open("s-1", 5, Instant.parse("2026-12-06T12:00:00.123Z"), "Bearer dev-acme-agent")
                .subscribe().with(f -> one.countDown());

        assertThat(one.await(10, TimeUnit.SECONDS)).as("an event relayed").isTrue();
        assertThat(seen).containsExactly("/v1/sessions/s-1?sessionStartedAt=" + STARTED_ENCODED + " Bearer dev-acme-agent null",
                "/v1/sessions/s-1/events?fromSeq=5 Bearer dev-acme-agent text/event-stream 4@2026-12-06T12:00:00.123Z");
        subscription.cancel();
    }

    @Test
    void aReconnectToASessionErasedSince_isNotFound_andNoStreamIsOpened() {
        var relay = new LiveRelay(url());

        assertThatThrownBy(() -> relay.open("s-1", 5, Instant.parse("2026-12-01T08:00:00Z"), "Bearer dev-acme-agent"))
                .isInstanceOfSatisfying(ApiException.class, e -> assertThat(e.status()).isEqualTo(404));
        assertThat(seen).singleElement().asString().startsWith("/v1/sessions/s-1?sessionStartedAt=2026-12-01T08%3A00%3A00Z ");
    }

    @Test
    void aSessionTheCallerDoesNotSee_isNotFound_andNoStreamIsOpened() {
        var relay = new LiveRelay(url());

        assertThatThrownBy(() -> relay.open("s-1", 1, null, "Bearer dev-globex-agent")).isInstanceOfSatisfying(ApiException.class,
                e -> assertThat(e.status()).isEqualTo(404));
        assertThat(seen).singleElement().asString().startsWith("/v1/sessions/s-1 ");
    }

    @Test
    void aTokenTheSessionServiceDoesNotAccept_isUnauthorized_notUnavailable_andNoStreamIsOpened() {
        var relay = new LiveRelay(url());

        assertThatThrownBy(() -> relay.open("s-1", 1, null, "Bearer expired")).isInstanceOfSatisfying(ApiException.class, e -> {
            assertThat(e.status()).isEqualTo(401);
            assertThat(e.body()).containsEntry("error", "unauthorized");
            assertThat(e.headers()).containsEntry("WWW-Authenticate", "Bearer").doesNotContainKey("Retry-After");
        });
        assertThat(seen).singleElement().asString().startsWith("/v1/sessions/s-1 ");
    }

    @Test
    void aRoleTheSessionServiceDoesNotLetRead_isForbidden_notUnavailable_andNoStreamIsOpened() {
        var relay = new LiveRelay(url());

        assertThatThrownBy(() -> relay.open("s-1", 1, null, "Bearer dev-acme-executor")).isInstanceOfSatisfying(ApiException.class, e -> {
            assertThat(e.status()).isEqualTo(403);
            assertThat(e.body()).containsEntry("error", "forbidden");
            assertThat(e.headers()).doesNotContainKey("Retry-After");
        });
        assertThat(seen).singleElement().asString().startsWith("/v1/sessions/s-1 ");
    }

    @Test
    void aSessionServiceThatFails_isUnavailable_withRetryAfter() {
        var relay = new LiveRelay(url());

        assertThatThrownBy(() -> relay.open("s-failing", 1, null, "Bearer dev-acme-agent")).isInstanceOfSatisfying(ApiException.class, e -> {
            assertThat(e.status()).isEqualTo(503);
            assertThat(e.headers()).containsKey("Retry-After");
        });
    }

    @Test
    void aSessionServiceThatDoesNotAnswer_isUnavailable() throws IOException {
        int port;
        try (var socket = new java.net.ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = socket.getLocalPort();
        }
        var relay = new LiveRelay("http://127.0.0.1:" + port);

        assertThatThrownBy(() -> relay.open("s-1", 1, null, "Bearer dev-acme-agent")).isInstanceOfSatisfying(ApiException.class,
                e -> assertThat(e.status()).isEqualTo(503));
    }
}
