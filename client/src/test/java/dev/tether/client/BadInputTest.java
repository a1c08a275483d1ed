package dev.tether.client;

import static dev.tether.client.FakeServer.frame;
import static dev.tether.client.FakeServer.json;
import static dev.tether.client.FakeServer.sse;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * What a demanding caller may hand the SDK that it cannot send as it is: values JSON has no text for, counts and seqs out
 * of range, waits that are negative or longer than a {@link Duration} has nanoseconds, ids that would address another
 * resource, nulls. Each is refused before anything is sent, naming what was wrong, or handled as documented.
 */
class BadInputTest {

    private static final String APPROVED = """
            {"id":"s~7","kind":"APPROVAL","status":"GRANTED","sessionId":"s","callId":"c","tool":"edit_file","arguments":{},
             "shown":"diff","seq":7,"requestSeq":6,"requestedAt":"2026-11-29T11:20:00Z","requestedBy":"acme-agent","model":"m",
             "decision":{"decision":"GRANT_ONCE","approver":"a","reason":"ok","seq":8,"decidedAt":"2026-11-29T11:21:00Z"}}
            """;

    private final FakeServer server = new FakeServer();
    private final TetherClient client = TetherClient.create(server.options());

    @AfterEach
    void close() {
        client.close();
        server.close();
    }

    // --- values JSON has no text for ---------------------------------------------------------------

    @Test
    void anEventField_thatIsNotAFiniteNumber_isRefusedNamingIt() {
        assertThatThrownBy(() -> NewEvent.of("metric_recorded", Map.of("score", Double.NaN)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("score");
        assertThatThrownBy(() -> NewEvent.of("metric_recorded", Map.of("scores", List.of(1.0, Double.POSITIVE_INFINITY))))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("scores[1]");
        assertThatThrownBy(() -> NewEvent.userMessage("hi").with("ratio", Float.NEGATIVE_INFINITY))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("ratio");
        assertThatThrownBy(() -> NewEvent.userMessage("hi").with("nested", Map.of("x", Map.of("y", Double.NaN))))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("nested.x.y");
        assertThat(NewEvent.of("metric_recorded", Map.of("score", 0.5)).fields().get("score").asDouble()).isEqualTo(0.5);
    }

    @Test
    void anEventField_thatJacksonWouldWriteAsSomethingElse_isRefusedNamingIt() {
        // without a module Jackson writes these as their getters, a number or a base64 string: not what the caller meant
        for (Object odd : new Object[] {Optional.of("x"), new java.util.Date(0), Thread.currentThread(), new StringBuilder("x")}) {
            assertThatThrownBy(() -> NewEvent.of("noted", Map.of("value", odd))).as(odd.getClass().getName())
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("value");
        }
        var cyclic = new HashMap<String, Object>();
        cyclic.put("self", cyclic);
        assertThatThrownBy(() -> NewEvent.of("noted", Map.of("value", cyclic)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("value.self").hasMessageContaining("cycl");
        var list = new ArrayList<Object>();
        list.add(list);
        assertThatThrownBy(() -> NewEvent.userMessage("hi").with("value", list))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("value[0]");
        // what JSON has: strings, numbers, booleans, null inside, lists, arrays, maps with string keys, trees
        NewEvent ok = NewEvent.of("noted", Map.of("value", Map.of("a", List.of(1, 2L, "x", true), "b", new int[] {1, 2},
                "c", Arrays.asList("x", null), "d", new java.math.BigDecimal("1.5"), "e", ToolStatus.OK)));
        assertThat(ok.fields().get("value").get("c").get(1).isNull()).isTrue();
        assertThat(ok.fields().get("value").get("e").asText()).isEqualTo("OK");
    }

    @Test
    void anEventWrittenAsJson_thatIsNotJson_isTheCallersMistake_notAServiceFailure() {
        assertThatThrownBy(() -> NewEvent.fromJson("{\"type\":\"user_message\",")).isInstanceOf(IllegalArgumentException.class)
                .isNotInstanceOf(TetherException.class).hasMessageContaining("eventObject is not JSON");
        assertThatThrownBy(() -> NewEvent.fromJson(null)).isInstanceOf(NullPointerException.class).hasMessage("eventObject");
    }

    // --- counts and seqs ---------------------------------------------------------------------------

    @Test
    void tokenCounts_beyondWhatATurnMayReport_areRefusedNamingThem_andTotalsNeverWrap() {
        assertThatThrownBy(() -> NewEvent.assistantMessage("x", List.of(), new TokenUsage(Long.MAX_VALUE, 1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("usage.inputTokens");
        assertThatThrownBy(() -> NewEvent.assistantMessage("x", List.of(), new TokenUsage(1, 1_000_000_000_001L)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("usage.outputTokens");
        assertThatThrownBy(() -> new TokenUsage(-1, 0)).isInstanceOf(IllegalArgumentException.class);
        // a checkpoint's totals may be large: they saturate, never turn negative
        assertThat(new TokenUsage(Long.MAX_VALUE, 1).total()).isEqualTo(Long.MAX_VALUE);
    }

    @Test
    void stepsAndSeqs_belowOne_areRefusedWhenTheEventIsBuilt() {
        assertThatThrownBy(() -> NewEvent.stepCompleted(0, "n", true))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("step");
        assertThatThrownBy(() -> NewEvent.contextCompacted(0, "s", List.of(1L)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("throughSeq");
        assertThatThrownBy(() -> NewEvent.contextCompacted(5, "s", List.of(1L, 0L)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("summarySourceSeqs[1]");
        assertThatThrownBy(() -> NewEvent.contextCompacted(5, "s", Arrays.asList(1L, null)))
                .isInstanceOf(NullPointerException.class).hasMessageContaining("summarySourceSeqs[1]");
        assertThatThrownBy(() -> NewEvent.toolCallStarted("c", "k", -1, 1))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("epoch");
        assertThatThrownBy(() -> NewEvent.toolCallStarted("c", "k", 1, 0))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("attempt");
    }

    // --- nulls -------------------------------------------------------------------------------------

    @Test
    void nullLists_andNullsInLists_areRefusedNamingThem() {
        NewSession session = NewSession.of("o", "m", ToolMode.WRITE);
        assertThatThrownBy(() -> session.withConstraints(null)).isInstanceOf(NullPointerException.class).hasMessageContaining("constraints");
        assertThatThrownBy(() -> session.withConstraints(Arrays.asList("a", null)))
                .isInstanceOf(NullPointerException.class).hasMessageContaining("constraints[1]");
        assertThatThrownBy(() -> session.withHarnessTools(null)).isInstanceOf(NullPointerException.class).hasMessageContaining("harnessTools");
        assertThatThrownBy(() -> session.withHarnessTools(Arrays.asList(HarnessTool.readOnly("t"), null)))
                .isInstanceOf(NullPointerException.class).hasMessageContaining("harnessTools[1]");
        assertThatThrownBy(() -> NewEvent.assistantMessage("x", null, new TokenUsage(1, 1)))
                .isInstanceOf(NullPointerException.class).hasMessageContaining("toolCalls");
        NewEvent said = NewEvent.userMessage("hi");
        assertThatThrownBy(() -> AppendBatch.forStep("turn-1", Arrays.asList(said, null)))
                .isInstanceOf(NullPointerException.class).hasMessage("events[1]");
        assertThatThrownBy(() -> AppendBatch.forStep("turn-1", said, null)).isInstanceOf(NullPointerException.class).hasMessage("events[1]");
        assertThatThrownBy(() -> AppendBatch.forStep("turn-1", (NewEvent[]) null)).isInstanceOf(NullPointerException.class).hasMessage("events");
        SessionWriter writer = client.writer(new Claimed("s", "w", 1, Optional.empty(), 1, Optional.empty()));
        assertThatThrownBy(() -> writer.append("turn-1", said, null)).isInstanceOf(NullPointerException.class).hasMessage("events[1]");
        assertThat(server.requests()).isEmpty();
        assertThatThrownBy(() -> NewEvent.assistantMessage("x", Arrays.asList((ToolCall) null), new TokenUsage(1, 1)))
                .isInstanceOf(NullPointerException.class).hasMessageContaining("toolCalls[0]");
        assertThatThrownBy(() -> NewEvent.assistantMessage("x", List.of(), null))
                .isInstanceOf(NullPointerException.class).hasMessageContaining("usage");
        assertThatThrownBy(() -> NewEvent.planUpdated(Arrays.asList(PlanItem.done("a"), null)))
                .isInstanceOf(NullPointerException.class).hasMessageContaining("items[1]");
        assertThatThrownBy(() -> NewEvent.contextCompacted(5, "s", null))
                .isInstanceOf(NullPointerException.class).hasMessageContaining("summarySourceSeqs");
    }

    @Test
    void nullArguments_areRefusedNamingTheParameter_beforeAnythingIsSent() {
        Claimed claimed = new Claimed("s", "w", 1, Optional.empty(), 1, Optional.empty());
        Map<String, Runnable> calls = new java.util.LinkedHashMap<>();
        calls.put("session", () -> client.createSession(null));
        calls.put("claim", () -> client.claim("s", null));
        calls.put("batch", () -> client.append("s", null));
        calls.put("subagent", () -> client.startSubagent("p", null));
        calls.put("sessionId", () -> client.fork(null, 1, "f"));
        calls.put("at", () -> client.checkpoint("s", (ReadAt) null));
        calls.put("query", () -> client.context("s", (ContextQuery) null));
        calls.put("filter", () -> client.approvals(null));
        calls.put("decision", () -> client.decide("s~1", null));
        calls.put("item", () -> client.decide((Approval) null, ApprovalDecision.grantOnce("ok")));
        calls.put("update", () -> client.putHarnessVersion(null));
        calls.put("toVersion", () -> client.migrate("s", null));
        calls.put("claim ", () -> client.writer(null));
        calls.put("timeout", () -> {
            try {
                client.awaitEvent("s", 1, e -> true, null);
            } catch (InterruptedException e) {
                throw new AssertionError(e);
            }
        });
        calls.put("timeout ", () -> {
            try {
                client.awaitDecision("s~1", null);
            } catch (InterruptedException e) {
                throw new AssertionError(e);
            }
        });
        calls.forEach((name, call) -> assertThatThrownBy(call::run).as(name)
                .isInstanceOf(NullPointerException.class).hasMessage(name.strip()));
        assertThat(server.requests()).isEmpty();
        assertThat(claimed.sessionId()).isEqualTo("s");
    }

    // --- waits -------------------------------------------------------------------------------------

    @Test
    void awaitEvent_refusesANegativeTimeout_beforeSubscribing() {
        assertThatThrownBy(() -> client.awaitEvent("s", 1, e -> true, Duration.ofSeconds(-1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("timeout");
        assertThat(server.requests()).isEmpty();
    }

    @Test
    void awaitEvent_withATimeoutLongerThanADurationHasNanos_waitsForTheMatch() throws Exception {
        server.then(sse(frame("s", 1))).otherwise(exchange -> {
            exchange.sendResponseHeaders(200, 0);
            Thread.sleep(30_000);
        });
        assertThat(client.awaitEvent("s", 1, e -> true, Duration.ofDays(1_000_000))).map(SessionEvent::seq).contains(1L);
        server.then(sse(frame("s", 1)));
        assertThat(client.awaitEvent("s", 1, e -> true, ChronoUnit.FOREVER.getDuration())).map(SessionEvent::seq).contains(1L);
    }

    @Test
    void awaitDecision_withATimeoutLongerThanADurationHasNanos_polls_andANegativeOneIsRefused() throws Exception {
        server.otherwise(json(200, APPROVED));
        assertThat(client.awaitDecision("s~7", Duration.ofDays(1_000_000))).isInstanceOf(Settled.class);
        assertThat(client.awaitDecision("s~7", ChronoUnit.FOREVER.getDuration())).isInstanceOf(Settled.class);
        int sent = server.requests().size();
        assertThatThrownBy(() -> client.awaitDecision("s~7", Duration.ofMillis(-1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("timeout");
        assertThat(server.requests()).hasSize(sent);
    }

    @Test
    void aSubscriptionsAwaitEnd_acceptsAnyLongTimeout() throws Exception {
        server.otherwise(json(404, "{\"error\":\"not_found\",\"message\":\"no such session\"}"));
        Subscription s = client.subscribe("s", 1, e -> { });
        assertThat(s.awaitEnd(ChronoUnit.FOREVER.getDuration())).map(SubscriptionEnd::reason).contains(SubscriptionEnd.Reason.NOT_FOUND);
    }

    @Test
    void aRequestTimeoutLongerThanADurationHasNanos_isRefusedByTheOptions() {
        TetherOptions o = TetherOptions.local();
        assertThatThrownBy(() -> o.withTimeout(ChronoUnit.FOREVER.getDuration()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("timeout");
        assertThatThrownBy(() -> o.withConnectTimeout(Duration.ofDays(1_000_000)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("connectTimeout");
    }

    @Test
    void aRequestTimeoutOfYears_doesNotFailTheCall() {
        server.then(json(200, "{\"sessions\":[]}"));
        try (TetherClient patient = TetherClient.create(server.options().withTimeout(Duration.ofDays(365 * 100)))) {
            assertThat(patient.sessions()).isEmpty();
        }
    }

    @Test
    void aRetryPolicyWithAnUnboundedBackoff_isRefused_andItsWaitsNeverTurnNegative() {
        assertThatThrownBy(() -> RetryPolicy.of(3, Duration.ofSeconds(1), ChronoUnit.FOREVER.getDuration()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("maxBackoff");
        RetryPolicy longest = RetryPolicy.of(100, Duration.ofMillis(1), RetryPolicy.MAX_BACKOFF);
        for (int failures = 1; failures <= 100; failures++) {
            assertThat(longest.backoff(failures)).isPositive().isLessThanOrEqualTo(RetryPolicy.MAX_BACKOFF);
        }
    }

    // --- ids ---------------------------------------------------------------------------------------

    @Test
    void dotSegments_areRefused_sinceTheURLWouldAddressAnotherResource() {
        for (String dots : new String[] {".", ".."}) {
            assertThatThrownBy(() -> client.session(dots)).as(dots).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'" + dots + "'");
            assertThatThrownBy(() -> client.call("s", dots)).as(dots).isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> client.approval(dots)).as(dots).isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> client.decide(dots, ApprovalDecision.grantOnce("ok"))).as(dots)
                    .isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> client.subscribe(dots, 1, e -> { })).as(dots).isInstanceOf(IllegalArgumentException.class);
        }
        assertThat(server.requests()).isEmpty();
    }

    @Test
    void emptyIds_areRefused_sinceTheURLWouldAddressAnotherResource() {
        assertThatThrownBy(() -> client.approval("")).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("empty");
        assertThatThrownBy(() -> client.awaitDecision("", Duration.ofSeconds(1))).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> client.decide("", ApprovalDecision.grantOnce("ok"))).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> client.call("s", "")).isInstanceOf(IllegalArgumentException.class);
        assertThat(server.requests()).isEmpty(); // GET /v1/approvals/ is the list of approvals, read as one item
    }

    @Test
    void anIdWithALoneSurrogate_isRefused_sinceItWouldBeSentAsAnotherId() {
        assertThatThrownBy(() -> client.session("a\uD800")).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("surrogate");
        assertThat(server.requests()).isEmpty(); // it was sent as /v1/sessions/a%3F: the session "a?"
    }

    @Test
    void aDecisionOnAnItemAsRead_withoutItsRequestedAt_isRefused_ratherThanMadeOnWhateverHasItsIdNow() {
        Approval read = new Approval("s~7", "APPROVAL", "PENDING", "s", "c", "edit_file", "{}", "diff", 7, 6, null, "acme-agent", "m",
                Optional.empty(), Optional.empty(), List.of("GRANT_ONCE"), Optional.empty(), Optional.empty(), Optional.empty(), Optional.empty(), "{}");
        assertThatThrownBy(() -> client.decide(read, ApprovalDecision.grantOnce("ok")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("requestedAt");
        assertThat(server.requests()).isEmpty();
    }

    @Test
    void idsWithReservedCharacters_areSentEncodedAsOneSegment() {
        server.otherwise(json(404, "{\"error\":\"not_found\",\"message\":\"no\"}"));
        assertThat(client.call("s", "a/b?c#d%e f\u00e9...")).isEmpty();
        assertThat(server.requests().get(0).path()).isEqualTo("/v1/sessions/s/calls/a%2Fb%3Fc%23d%25e%20f%C3%A9...");
        assertThat(server.requests().get(0).query()).isNull();
    }

    // --- answers ----------------------------------------------------------------------------------

    @Test
    void aPageThatNamesItselfAsTheNext_failsTheRead_ratherThanReadingItWithoutEnd() {
        String page = "{\"events\":[" + FakeServer.eventJson("s", 1) + "],\"lastSeq\":5,\"nextSeq\":1}";
        server.otherwise(json(200, page));
        org.junit.jupiter.api.Assertions.assertTimeoutPreemptively(Duration.ofSeconds(10), () -> assertThatThrownBy(() -> client.allEvents("s"))
                .isInstanceOf(TetherException.class).hasMessageContaining("asks for seq 1 next"));
        String ask = "{\"seq\":1,\"eventId\":\"e-1\",\"type\":\"assistant_message\",\"sessionId\":\"s\",\"occurredAt\":\"2026-11-29T10:16:00Z\","
                + "\"actor\":{\"kind\":\"MODEL\",\"id\":\"m\"},\"harnessVersion\":\"v1\",\"content\":\"x\","
                + "\"toolCalls\":[{\"callId\":\"c1\",\"tool\":\"deploy\",\"argumentsJson\":\"{}\"}],\"usage\":{\"inputTokens\":1,\"outputTokens\":1}}";
        server.otherwise(json(200, "{\"events\":[" + ask + "],\"lastSeq\":5,\"nextSeq\":1}"));
        HarnessToolRunner runner = HarnessToolRunner.builder(client, new Claimed("s", "w", 1, Optional.empty(), 1, Optional.empty()))
                .tool(HarnessTool.mutating("deploy"), call -> ToolOutput.ok("deployed")).build();
        org.junit.jupiter.api.Assertions.assertTimeoutPreemptively(Duration.ofSeconds(10), () -> assertThatThrownBy(() -> runner.run(1, "c1"))
                .isInstanceOf(TetherException.class).hasMessageContaining("asks for seq 1 next"));
        server.otherwise(json(200, "{\"sessions\":[],\"nextAfter\":\"s-9\"}"));
        org.junit.jupiter.api.Assertions.assertTimeoutPreemptively(Duration.ofSeconds(10), () -> assertThatThrownBy(() -> client.sessions())
                .isInstanceOf(TetherException.class).hasMessageContaining("the page after s-9 names the page after s-9, read already, as the next"));
    }

    @Test
    void pagesThatComeBackToAPageReadAlready_failTheRead_ratherThanReadingThemWithoutEnd() {
        server.then(json(200, "{\"sessions\":[],\"nextAfter\":\"a\"}"))
                .then(json(200, "{\"sessions\":[],\"nextAfter\":\"b\"}"))
                .otherwise(json(200, "{\"sessions\":[],\"nextAfter\":\"a\"}"));
        int before = server.requests().size();

        org.junit.jupiter.api.Assertions.assertTimeoutPreemptively(Duration.ofSeconds(10), () -> assertThatThrownBy(() -> client.sessions())
                .isInstanceOf(TetherException.class).hasMessageContaining("the page after b names the page after a, read already, as the next"));
        assertThat(server.requests().size() - before).isEqualTo(3);
    }

    // --- listeners ---------------------------------------------------------------------------------

    @Test
    void aListenerThatThrowsAnError_endsTheSubscriptionAsFailed() throws Exception {
        server.then(sse(frame("s", 1))).otherwise(exchange -> {
            exchange.sendResponseHeaders(200, 0);
            Thread.sleep(30_000);
        });
        Subscription s = client.subscribe("s", 1, e -> {
            throw new AssertionError("a test's assertion in the listener");
        });
        Optional<SubscriptionEnd> end = s.awaitEnd(Duration.ofSeconds(5));
        assertThat(end).map(SubscriptionEnd::reason).contains(SubscriptionEnd.Reason.FAILED);
        assertThat(end.get().failure()).hasValueSatisfying(f -> assertThat(f).hasRootCauseInstanceOf(AssertionError.class));
        assertThat(s.isOpen()).isFalse();
    }

    @Test
    void underAPolicyThatNeverWaits_aSubscriptionStillBacksOffBetweenReconnects() throws Exception {
        // the defaults' waits: 0.1-0.2 s, 0.2-0.4 s, 0.4-0.8 s; without a wait, a reconnect as fast as the port refuses it
        assertThat(disconnectsInASecondUnder(RetryPolicy.none())).isBetween(2, 6);
        // a policy whose first wait is zero never waits either (zero doubled is zero, whatever its maxBackoff): its calls
        // retry at once, and a subscription under it still backs off
        assertThat(disconnectsInASecondUnder(RetryPolicy.of(3, Duration.ZERO, Duration.ofSeconds(5)))).isBetween(2, 6);
    }

    /** How often a subscription under {@code policy} is disconnected in a second from a port that refuses connections. */
    private static int disconnectsInASecondUnder(RetryPolicy policy) throws Exception {
        FakeServer gone = new FakeServer();
        TetherOptions options = gone.options().withRetry(policy);
        gone.close(); // its port now refuses connections at once, as a stopped service's does
        var disconnects = new java.util.concurrent.atomic.AtomicInteger();
        try (TetherClient impatient = TetherClient.create(options);
             Subscription s = impatient.subscribe("s", 1, new SessionEventListener() {
                 @Override
                 public void onEvent(SessionEvent event) { }

                 @Override
                 public void onDisconnected(long lastSeq, Exception cause) {
                     disconnects.incrementAndGet();
                 }
             })) {
            Thread.sleep(1_000);
            assertThat(s.isOpen()).isTrue();
        }
        return disconnects.get();
    }

    @Test
    void closingASubscriptionTwice_andAfterTheClient_isHarmless() {
        server.otherwise(exchange -> {
            exchange.sendResponseHeaders(200, 0);
            Thread.sleep(30_000);
        });
        Subscription s = client.subscribe("s", 1, e -> { });
        s.close();
        s.close();
        client.close();
        s.close();
        assertThat(s.isOpen()).isFalse();
        assertThatThrownBy(() -> client.session("s")).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> client.awaitDecision("s~1", Duration.ofSeconds(1))).isInstanceOf(IllegalStateException.class);
        assertThat(Instant.now()).isNotNull();
    }
}
