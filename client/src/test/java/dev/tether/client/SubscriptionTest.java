package dev.tether.client;

import static dev.tether.client.FakeServer.frame;
import static dev.tether.client.FakeServer.json;
import static dev.tether.client.FakeServer.sse;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The subscription's side of the SSE protocol against a scripted server: catch-up, resume after a
 * disconnect from the last seq delivered, no duplicates, no gaps, and how it ends. The real
 * session-service, killed and restarted, is in {@code TetherClientIT}.
 */
class SubscriptionTest {

    private final FakeServer server = new FakeServer();
    private final TetherClient client = TetherClient.create(server.options());
    private final Recorder recorder = new Recorder();

    @AfterEach
    void close() {
        client.close();
        server.close();
    }

    @Test
    void resumesAfterADisconnect_fromTheLastSeqDelivered_withoutDuplicates() throws Exception {
        server.then(sse(frame("s", 1), frame("s", 2), frame("s", 3)))           // then the stream ends
                .then(sse(frame("s", 3), frame("s", 4), frame("s", 5)))         // 3 again: a server that repeats itself
                .otherwise(exchange -> {
                    exchange.sendResponseHeaders(200, 0);
                    Thread.sleep(30_000);                                        // open and quiet
                });
        try (Subscription s = client.subscribe("s", 1, recorder)) {
            recorder.awaitSeqs(5);
            assertThat(recorder.seqs()).containsExactly(1L, 2L, 3L, 4L, 5L);
            assertThat(s.lastSeq()).isEqualTo(5);
        }
        var streams = server.requests();
        assertThat(streams.get(0).query()).isEqualTo("fromSeq=1");
        assertThat(streams.get(0).header("Last-Event-ID")).isNull();
        assertThat(streams.get(1).query()).isEqualTo("fromSeq=4");
        assertThat(streams.get(1).header("Last-Event-ID")).isEqualTo("3");
        assertThat(streams.get(0).header("Accept")).isEqualTo("text/event-stream");
        assertThat(streams.get(0).header("Authorization")).isEqualTo("Bearer dev-acme-agent");
        assertThat(recorder.disconnects).isNotEmpty();
        assertThat(recorder.connectedFrom).startsWith(1L, 4L);
    }

    @Test
    void anEventBeyondTheNextSeq_isNotDelivered_theStreamIsReopenedAfterTheLastOne() throws Exception {
        server.then(sse(frame("s", 1), frame("s", 3)))
                .then(sse(frame("s", 2), frame("s", 3)))
                .otherwise(exchange -> {
                    exchange.sendResponseHeaders(200, 0);
                    Thread.sleep(30_000);
                });
        try (Subscription s = client.subscribe("s", 1, recorder)) {
            recorder.awaitSeqs(3);
            assertThat(s.lastSeq()).isEqualTo(3);
        }
        assertThat(recorder.seqs()).containsExactly(1L, 2L, 3L);
        assertThat(server.requests().get(1).header("Last-Event-ID")).isEqualTo("1");
        assertThat(recorder.disconnects.get(0)).hasMessageContaining("skipped from seq 1 to 3");
    }

    @Test
    void startsAtFromSeq() throws Exception {
        server.then(sse(frame("s", 7), frame("s", 8))).otherwise(exchange -> {
            exchange.sendResponseHeaders(200, 0);
            Thread.sleep(30_000);
        });
        try (Subscription s = client.subscribe("s", 7, recorder)) {
            assertThat(s.lastSeq()).isEqualTo(6);
            recorder.awaitSeqs(2);
        }
        assertThat(recorder.seqs()).containsExactly(7L, 8L);
        assertThat(server.requests().get(0).query()).isEqualTo("fromSeq=7");
    }

    @Test
    void anOpenStream_outlivesTheRequestTimeout() throws Exception {
        try (TetherClient quick = TetherClient.create(server.options().withTimeout(Duration.ofMillis(300)))) {
            server.then(exchange -> {
                exchange.sendResponseHeaders(200, 0);
                exchange.getResponseBody().flush();
                Thread.sleep(1_200);                                            // four timeouts of silence
                exchange.getResponseBody().write(frame("s", 1).getBytes());
                exchange.getResponseBody().flush();
                Thread.sleep(30_000);
            });
            try (Subscription s = quick.subscribe("s", 1, recorder)) {
                recorder.awaitSeqs(1);
                assertThat(s.isOpen()).isTrue();
            }
            assertThat(recorder.disconnects).isEmpty();
            assertThat(server.requests()).hasSize(1);
        }
    }

    @Test
    void anUnavailableService_isAskedAgainAfterItsRetryAfter_notSooner() throws Exception {
        var times = new java.util.concurrent.CopyOnWriteArrayList<Long>();
        server.then(exchange -> {
                    times.add(System.nanoTime());
                    json(503, "{\"error\":\"unavailable\",\"message\":\"restoring\"}", java.util.Map.of("Retry-After", "2")).answer(exchange);
                })
                .then(exchange -> {
                    times.add(System.nanoTime());
                    sse(frame("s", 1)).answer(exchange);
                }).otherwise(exchange -> {
                    exchange.sendResponseHeaders(200, 0);
                    Thread.sleep(30_000);
                });
        try (Subscription s = client.subscribe("s", 1, recorder)) {
            recorder.awaitSeqs(1);
        }
        assertThat(Duration.ofNanos(times.get(1) - times.get(0))).isGreaterThanOrEqualTo(Duration.ofMillis(1900));
    }

    @Test
    void unavailableService_isRetried_untilItAnswers() throws Exception {
        server.then(json(503, "{\"error\":\"unavailable\",\"message\":\"restoring\"}", java.util.Map.of("Retry-After", "0")))
                .then(sse(frame("s", 1))).otherwise(exchange -> {
                    exchange.sendResponseHeaders(200, 0);
                    Thread.sleep(30_000);
                });
        try (Subscription s = client.subscribe("s", 1, recorder)) {
            recorder.awaitSeqs(1);
            assertThat(s.isOpen()).isTrue();
        }
        assertThat(recorder.disconnects.get(0)).hasMessageContaining("503 unavailable");
        assertThat(recorder.seqs()).containsExactly(1L);
    }

    @Test
    void aReconnect_sendsBackTheLastEventsId_whichNamesItsSessionsStart_andEndsWhenThatSessionWasErased() throws Exception {
        String at = "2026-12-06T12:00:00.123Z";
        server.then(sse(frame("s", 1, "1@" + at), frame("s", 2, "2@" + at)))  // then the stream ends: the session was erased
                .then(json(404, "{\"error\":\"not_found\",\"message\":\"session not found: the one that started at … was erased\"}"));
        Subscription s = client.subscribe("s", 1, recorder);
        Optional<SubscriptionEnd> end = s.awaitEnd(Duration.ofSeconds(10));

        assertThat(end).hasValueSatisfying(e -> {
            assertThat(e.reason()).isEqualTo(SubscriptionEnd.Reason.NOT_FOUND);
            assertThat(e.lastSeq()).isEqualTo(2);
        });
        assertThat(recorder.seqs()).containsExactly(1L, 2L);
        assertThat(server.requests().get(1).header("Last-Event-ID")).isEqualTo("2@" + at);
        assertThat(server.requests().get(1).query()).isEqualTo("fromSeq=3");
    }

    @Test
    void aSubscriptionThatNamesTheSessionsStart_asksForThatSessionAtEveryConnection_andEndsWhenAnotherHasTheId() throws Exception {
        Instant at = Instant.parse("2026-12-06T12:00:00.123Z");
        server.then(sse(frame("s", 1, "1@" + at)))                              // then the stream ends
                .then(json(404, "{\"error\":\"not_found\",\"message\":\"session not found: the one that started at … was erased\"}"));
        Subscription s = client.subscribe("s", 1, at, recorder);
        Optional<SubscriptionEnd> end = s.awaitEnd(Duration.ofSeconds(10));

        assertThat(end).hasValueSatisfying(e -> assertThat(e.reason()).isEqualTo(SubscriptionEnd.Reason.NOT_FOUND));
        assertThat(server.requests().get(0).query()).isEqualTo("fromSeq=1&sessionStartedAt=2026-12-06T12%3A00%3A00.123Z");
        assertThat(server.requests().get(1).query()).isEqualTo("fromSeq=2&sessionStartedAt=2026-12-06T12%3A00%3A00.123Z");
        assertThat(server.requests().get(1).header("Last-Event-ID")).isEqualTo("1@" + at);
    }

    @Test
    void anIdThatIsNotTheLastEventsOwn_isNotSentBack_theBareSeqIs() throws Exception {
        server.then(sse(frame("s", 1, "1@2026-12-06T12:00:00Z"), frame("s", 2, "7@2026-12-06T12:00:00Z")))
                .then(sse(frame("s", 3)))
                .otherwise(exchange -> {
                    exchange.sendResponseHeaders(200, 0);
                    Thread.sleep(30_000);
                });
        try (Subscription s = client.subscribe("s", 1, recorder)) {
            recorder.awaitSeqs(3);
        }
        assertThat(server.requests().get(1).header("Last-Event-ID")).isEqualTo("2");
    }

    @Test
    void unknownSession_endsWithNotFound() throws Exception {
        server.then(json(404, "{\"error\":\"not_found\",\"message\":\"session not found\"}"));
        Subscription s = client.subscribe("nope", 1, recorder);
        Optional<SubscriptionEnd> end = s.awaitEnd(Duration.ofSeconds(10));
        assertThat(end).hasValueSatisfying(e -> assertThat(e.reason()).isEqualTo(SubscriptionEnd.Reason.NOT_FOUND));
        assertThat(recorder.end).isEqualTo(end.get());
        assertThat(s.isOpen()).isFalse();
    }

    @Test
    void refusedCredentials_endWithFailed() throws Exception {
        server.then(json(401, "{\"error\":\"unauthorized\",\"message\":\"a valid bearer token is required\"}"));
        Subscription s = client.subscribe("s", 1, recorder);
        SubscriptionEnd end = s.awaitEnd(Duration.ofSeconds(10)).orElseThrow();
        assertThat(end.reason()).isEqualTo(SubscriptionEnd.Reason.FAILED);
        assertThat(end.failure()).containsInstanceOf(TetherException.class);
        assertThat(((TetherException) end.failure().get()).error().map(ApiError::code)).contains("unauthorized");
    }

    @Test
    void aListenerThatThrows_endsTheSubscription() throws Exception {
        server.then(sse(frame("s", 1), frame("s", 2)));
        Subscription s = client.subscribe("s", 1, event -> {
            throw new IllegalStateException("listener bug");
        });
        SubscriptionEnd end = s.awaitEnd(Duration.ofSeconds(10)).orElseThrow();
        assertThat(end.reason()).isEqualTo(SubscriptionEnd.Reason.FAILED);
        assertThat(end.failure()).get().extracting(Throwable::getMessage).isEqualTo("listener bug");
        assertThat(end.lastSeq()).isZero();
    }

    @Test
    void closingFromTheListener_stopsDelivery() throws Exception {
        server.then(sse(frame("s", 1), frame("s", 2), frame("s", 3)));
        var seen = new CopyOnWriteArrayList<Long>();
        var holder = new Subscription[1];
        var started = new CountDownLatch(1);
        holder[0] = client.subscribe("s", 1, event -> {
            try {
                started.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            seen.add(event.seq());
            holder[0].close();
        });
        started.countDown();
        SubscriptionEnd end = holder[0].awaitEnd(Duration.ofSeconds(10)).orElseThrow();
        assertThat(end.reason()).isEqualTo(SubscriptionEnd.Reason.CLOSED);
        assertThat(seen).containsExactly(1L);
    }

    @Test
    void closingTheClient_endsItsSubscriptions_andRefusesNewCalls() throws Exception {
        server.otherwise(exchange -> {
            exchange.sendResponseHeaders(200, 0);
            Thread.sleep(30_000);
        });
        Subscription s = client.subscribe("s", 1, recorder);
        recorder.connected.await(10, TimeUnit.SECONDS);
        client.close();
        assertThat(s.awaitEnd(Duration.ofSeconds(10))).hasValueSatisfying(e -> assertThat(e.reason()).isEqualTo(SubscriptionEnd.Reason.CLOSED));
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> client.subscribe("s", 1, recorder)).isInstanceOf(IllegalStateException.class);
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> client.session("s")).isInstanceOf(IllegalStateException.class);
    }

    /**
     * Closing wakes the subscription's thread with an interrupt only where the subscription waits: never while the
     * listener runs (an interrupt would close a listener's NIO channel, or fail its blocking call), its last callback
     * {@code onEnd} included.
     */
    @Test
    void closingFromAnotherThread_neverInterruptsTheListener() throws Exception {
        var frames = new String[2000];
        for (int i = 0; i < frames.length; i++) {
            frames[i] = frame("s", i + 1);
        }
        server.otherwise(sse(frames));
        var interrupted = new CopyOnWriteArrayList<String>();
        for (int round = 0; round < 30; round++) {
            var delivering = new CountDownLatch(1);
            Subscription s = client.subscribe("s", 1, new SessionEventListener() {
                @Override
                public void onEvent(SessionEvent event) {
                    delivering.countDown();
                    block("onEvent " + event.seq());
                }

                @Override
                public void onEnd(SubscriptionEnd end) {
                    block("onEnd");
                }

                /** A listener's blocking call (a queue's put, a write to a channel): what an interrupt breaks. */
                private void block(String where) {
                    try {
                        Thread.sleep(1);
                    } catch (InterruptedException e) {
                        interrupted.add(where);
                        Thread.currentThread().interrupt();
                    }
                }
            });
            assertThat(delivering.await(10, TimeUnit.SECONDS)).isTrue();
            s.close();
            assertThat(s.awaitEnd(Duration.ofSeconds(10))).isPresent();
        }
        assertThat(interrupted).isEmpty();
    }

    @Test
    void awaitEvent_returnsTheFirstMatch_orNothingInTime() throws Exception {
        server.then(sse(frame("s", 1), frame("s", 2), frame("s", 3))).otherwise(exchange -> {
            exchange.sendResponseHeaders(200, 0);
            Thread.sleep(30_000);
        });
        Optional<SessionEvent> found = client.awaitEvent("s", 1, e -> e.seq() >= 2, Duration.ofSeconds(10));
        assertThat(found).hasValueSatisfying(e -> assertThat(e.seq()).isEqualTo(2));
        assertThat(client.awaitEvent("s", 1, e -> e.seq() > 100, Duration.ofMillis(500))).isEmpty();
    }

    /** Records what a listener is told. */
    static final class Recorder implements SessionEventListener {
        final List<SessionEvent> events = new CopyOnWriteArrayList<>();
        final List<Exception> disconnects = new CopyOnWriteArrayList<>();
        final List<Long> connectedFrom = new CopyOnWriteArrayList<>();
        final CountDownLatch connected = new CountDownLatch(1);
        volatile SubscriptionEnd end;

        @Override
        public void onEvent(SessionEvent event) {
            events.add(event);
        }

        @Override
        public void onDisconnected(long lastSeq, Exception cause) {
            disconnects.add(cause);
        }

        @Override
        public void onConnected(long fromSeq) {
            connectedFrom.add(fromSeq);
            connected.countDown();
        }

        @Override
        public void onEnd(SubscriptionEnd e) {
            end = e;
        }

        List<Long> seqs() {
            return events.stream().map(SessionEvent::seq).toList();
        }

        void awaitSeqs(int count) throws InterruptedException {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (events.size() < count && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            assertThat(events).as("events received").hasSizeGreaterThanOrEqualTo(count);
        }
    }
}
