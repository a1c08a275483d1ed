package dev.tether.client;

import static dev.tether.client.FakeServer.json;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tether.client.internal.Json;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * What the client sends, and which calls it repeats: against a scripted server that answers 503 or
 * drops the connection. Safe calls are repeated with the same ids; unsafe ones never.
 */
class ClientRetryTest {

    private static final String UNAVAILABLE = "{\"error\":\"unavailable\",\"message\":\"the sequencer is not ready\"}";
    private static final Map<String, String> RETRY_NOW = Map.of("Retry-After", "0");
    private static final String APPENDED = appended("turn-1", 2);

    /** The answer to an append of the first {@code count} events of {@code step} to demo-1, from seq 2. */
    private static String appended(String step, int count) {
        var events = new java.util.ArrayList<String>();
        for (int i = 0; i < count; i++) {
            events.add("{\"eventId\":\"" + EventIds.of("demo-1", step, i) + "\",\"seq\":" + (2 + i) + ",\"duplicate\":false}");
        }
        return "{\"appended\":[" + String.join(",", events) + "],\"lastSeq\":" + (1 + count) + ",\"redactions\":0}";
    }

    private final FakeServer server = new FakeServer();
    private final TetherClient client = TetherClient.create(server.options());

    @AfterEach
    void close() {
        client.close();
        server.close();
    }

    @Test
    void append_isRetriedAfter503_withTheSameEventIds_epochAndExpectedSeq() {
        server.then(json(503, UNAVAILABLE, RETRY_NOW)).then(dropConnection()).then(json(200, APPENDED));
        AppendResult result = client.append("demo-1", AppendBatch.forStep("turn-1", NewEvent.userMessage("a"), NewEvent.userMessage("b"))
                .expectingSeq(1).withEpoch(2));
        assertThat(result).isInstanceOf(Appended.class);
        assertThat(((Appended) result).seqs()).containsExactly(2L, 3L);

        var requests = server.requests();
        assertThat(requests).hasSize(3).allSatisfy(r -> {
            assertThat(r.method()).isEqualTo("POST");
            assertThat(r.path()).isEqualTo("/v1/sessions/demo-1/events");
            assertThat(r.header("Authorization")).isEqualTo("Bearer dev-acme-agent");
            assertThat(r.header("Content-Type")).isEqualTo("application/json");
        });
        assertThat(requests.stream().map(FakeServer.Seen::body).distinct()).as("every attempt sends the same body").hasSize(1);
        JsonNode body = Json.parse(requests.get(0).body());
        assertThat(body.get("expectedSeq").asLong()).isEqualTo(1);
        assertThat(body.get("epoch").asLong()).isEqualTo(2);
        assertThat(body.get("events").get(0).get("eventId").asText()).isEqualTo(EventIds.of("demo-1", "turn-1", 0));
        assertThat(body.get("events").get(1).get("eventId").asText()).isEqualTo(EventIds.of("demo-1", "turn-1", 1));
        assertThat(body.get("events").get(1).get("type").asText()).isEqualTo("user_message");
    }

    @Test
    void aWritersAppends_carryItsClaimsEpochAndTheSessionsStart() {
        server.then(json(200, "{\"epoch\":3,\"resumed\":true,\"reason\":\"CRASH\",\"lastSeq\":7,"
                + "\"sessionStartedAt\":\"2026-12-06T00:30:00.120Z\"}")).then(json(200, appended("turn-1", 1)));
        Claimed claim = client.claim("demo-1", ClaimRequest.of("worker-a", "v1")).claimedOrThrow();
        assertThat(claim.sessionStartedAt()).contains(Instant.parse("2026-12-06T00:30:00.120Z"));

        client.writer(claim).append(AppendBatch.forStep("turn-1", NewEvent.userMessage("a")).withEpoch(1)).appendedOrThrow();

        JsonNode body = Json.parse(server.requests().get(1).body());
        assertThat(body.get("epoch").asLong()).as("the claim's, over the batch's").isEqualTo(3);
        assertThat(body.get("sessionStartedAt").asText()).isEqualTo("2026-12-06T00:30:00.120Z");
        assertThat(Json.parse(requestOf(AppendBatch.forStep("turn-2", NewEvent.userMessage("b")))).has("sessionStartedAt"))
                .as("a batch for whichever session has the id").isFalse();
    }

    /** The request of an append of {@code batch}, a batch of step turn-2. */
    private String requestOf(AppendBatch batch) {
        server.then(json(200, appended("turn-2", batch.events().size())));
        client.append("demo-1", batch).appendedOrThrow();
        var requests = server.requests();
        return requests.get(requests.size() - 1).body();
    }

    @Test
    void anAppendsAnswer_thatDoesNotNameEachEventSent_inOrder_isMalformed_neverReadAsTheBatchInTheLog() {
        for (String answer : List.of("{\"lastSeq\":3}", "{\"appended\":[],\"lastSeq\":3}", appended("turn-9", 2))) {
            server.then(json(200, answer));
            assertThatThrownBy(() -> client.append("demo-1", AppendBatch.forStep("turn-1", NewEvent.userMessage("a"), NewEvent.userMessage("b"))))
                    .as(answer).isInstanceOf(TetherException.class).hasMessageContaining("append");
        }
    }

    @Test
    void safeCalls_giveUpAfterThePolicysAttempts() {
        server.otherwise(json(503, UNAVAILABLE, RETRY_NOW));
        assertThatThrownBy(() -> client.append("demo-1", AppendBatch.forStep("turn-1", NewEvent.userMessage("a"))))
                .isInstanceOf(TetherException.class)
                .satisfies(e -> assertThat(((TetherException) e).error().map(ApiError::code)).contains("unavailable"));
        assertThat(server.requests()).hasSize(3);
    }

    @Test
    void aRetryAfterOverAMinute_isLeftToTheBackoff_ratherThanHangingTheCall() {
        // an hour's would hang the call for an hour; 10^17 s has no millis in a long (an ArithmeticException)
        for (String seconds : List.of("3600", "100000000000000000")) {
            server.then(json(503, UNAVAILABLE, Map.of("Retry-After", seconds))).then(json(404, "{\"error\":\"not_found\",\"message\":\"no\"}"));
        }
        long started = System.nanoTime();
        assertThat(client.session("demo-1")).isEmpty();
        assertThat(client.session("demo-1")).isEmpty();
        assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(10));
        assertThat(server.requests()).hasSize(4);
    }

    @Test
    void decisions_areNeverRetried_aLostAnswerIsAnUnknownOutcome() {
        server.then(dropConnection()).otherwise(json(200, "{}"));
        assertThatThrownBy(() -> client.decide("demo-1~7", ApprovalDecision.grantOnce("looks right")))
                .isInstanceOf(TetherException.class)
                .satisfies(e -> assertThat(((TetherException) e).outcomeUnknown()).isTrue());
        assertThat(server.requests()).hasSize(1);
        JsonNode body = Json.parse(server.requests().get(0).body());
        assertThat(body.get("decision").asText()).isEqualTo("GRANT_ONCE");
        assertThat(body.get("reason").asText()).isEqualTo("looks right");
        assertThat(server.requests().get(0).path()).isEqualTo("/v1/approvals/demo-1~7/decision");
    }

    @Test
    void decisions_areNeverRetried_after503Either() {
        server.otherwise(json(503, UNAVAILABLE, RETRY_NOW));
        assertThatThrownBy(() -> client.decide("demo-1~7", ApprovalDecision.deny("no"))).isInstanceOf(TetherException.class);
        assertThat(server.requests()).hasSize(1);
    }

    @Test
    void erasure_isNeverRetried() {
        server.otherwise(json(503, UNAVAILABLE, RETRY_NOW));
        assertThatThrownBy(() -> client.erase("demo-1")).isInstanceOf(TetherException.class);
        assertThat(server.requests()).hasSize(1);
    }

    @Test
    void aWritersErasure_namesItsClaim_andIsRefusedAsStaleEpoch_onceAnotherWorkerClaimedTheSession() {
        server.then(json(409, "{\"error\":\"stale_epoch\",\"message\":\"epoch 1 is not the session's current epoch 2: nothing was erased\"}"));
        var claim = new Claimed("demo-1", "worker-1", 1, Optional.empty(), 4, Optional.of(java.time.Instant.parse("2026-12-07T00:00:00.123Z")));

        EraseResult refused = client.erase(claim);

        assertThat(refused).isInstanceOfSatisfying(Rejected.class, r -> assertThat(r.code()).isEqualTo("stale_epoch"));
        assertThat(server.requests()).singleElement().satisfies(r -> {
            assertThat(r.method()).isEqualTo("DELETE");
            assertThat(r.path()).isEqualTo("/v1/sessions/demo-1");
            assertThat(r.query()).isEqualTo("epoch=1&sessionStartedAt=2026-12-07T00%3A00%3A00.123Z");
        });
    }

    @Test
    void create_choosesTheSessionIdOnce_andDerivesTheEventIdFromTheRequest() {
        server.then(json(503, UNAVAILABLE, RETRY_NOW))
                .then(json(201, "{\"sessionId\":\"ignored-by-the-test\",\"seq\":1,\"harnessVersion\":\"v1\",\"modelId\":\"m\",\"redactions\":0}"))
                .otherwise(json(201, "{\"sessionId\":\"s\",\"seq\":1,\"harnessVersion\":\"v1\",\"modelId\":\"m\",\"redactions\":0}"));
        NewSession request = NewSession.of("Rename Foo", "m", ToolMode.WRITE).withConstraints(List.of("keep the tests green"));
        client.createSession(request).createdOrThrow();
        var attempts = server.requests();
        JsonNode first = Json.parse(attempts.get(0).body());
        JsonNode retry = Json.parse(attempts.get(1).body());
        assertThat(first.get("sessionId").asText()).isNotBlank().isEqualTo(retry.get("sessionId").asText());
        assertThat(first.get("eventId")).isEqualTo(retry.get("eventId"));
        assertThat(first.get("toolMode").asText()).isEqualTo("WRITE");
        assertThat(first.get("constraints").get(0).asText()).isEqualTo("keep the tests green");

        client.createSession(request.withSessionId("fixed")).createdOrThrow();
        client.createSession(request.withSessionId("fixed")).createdOrThrow();
        client.createSession(NewSession.of("Another objective", "m", ToolMode.WRITE).withSessionId("fixed")).createdOrThrow();
        var ids = server.requests().subList(2, 5).stream().map(r -> Json.parse(r.body()).get("eventId").asText()).toList();
        assertThat(ids.get(0)).as("the same request, the same eventId").isEqualTo(ids.get(1));
        assertThat(ids.get(2)).as("another request for the same id").isNotEqualTo(ids.get(0));
    }

    @Test
    void startSubagent_postsToItsParent_andDerivesTheEventIdFromTheParentAndTheRequest() {
        String started = "{\"sessionId\":\"child-1\",\"parentSessionId\":\"demo-1\",\"seq\":1,\"harnessVersion\":\"v1\","
                + "\"modelId\":\"m\",\"toolMode\":\"READ_ONLY\",\"redactions\":0,\"sessionStartedAt\":\"2026-12-06T01:10:00.250Z\"}";
        server.then(json(503, UNAVAILABLE, RETRY_NOW)).then(json(201, started)).then(json(201, started))
                .then(json(404, "{\"error\":\"not_found\",\"message\":\"session not found\"}"))
                .then(json(422, "{\"error\":\"budget_exceeded\",\"message\":\"the parent has 10 tokens left\",\"field\":\"tokenBudget\"}"));
        NewSubagent request = NewSubagent.of("Find the callers of Foo", ToolMode.READ_ONLY).withSessionId("child-1").withTokenBudget(300)
                .withConstraints(List.of("read only"));

        SubagentStarted child = client.startSubagent("demo-1", request).startedOrThrow();
        client.startSubagent("demo-1", request).startedOrThrow();

        assertThat(child).isEqualTo(new SubagentStarted("child-1", "demo-1", 1, "v1", "m", ToolMode.READ_ONLY, 0,
                java.util.Optional.of(Instant.parse("2026-12-06T01:10:00.250Z"))));
        var attempts = server.requests();
        assertThat(attempts).hasSize(3).allSatisfy(r -> assertThat(r.path()).isEqualTo("/v1/sessions/demo-1/subagents"));
        assertThat(attempts.stream().map(FakeServer.Seen::body).distinct()).as("a retry and the same request again: the same body")
                .hasSize(1);
        JsonNode body = Json.parse(attempts.get(0).body());
        assertThat(body.get("sessionId").asText()).isEqualTo("child-1");
        assertThat(body.get("tokenBudget").asLong()).isEqualTo(300);
        // the TypeScript SDK derives the same id for the same request (clients/typescript/test/subagent.test.ts)
        assertThat(body.get("eventId").asText()).isEqualTo("91629e8a-9d88-3c9e-8148-c21933834e76");

        assertThat(client.startSubagent("gone", request)).isInstanceOf(NotFound.class);
        assertThat(client.startSubagent("demo-1", request)).isInstanceOfSatisfying(Rejected.class,
                r -> assertThat(r.field()).contains("tokenBudget"));
    }

    @Test
    void fork_derivesItsEventId_fromTheNewSessionTheParentAndTheSeq_asOlderClientsDid() {
        server.then(json(503, UNAVAILABLE, RETRY_NOW)).then(json(201,
                "{\"sessionId\":\"child-1\",\"parentSessionId\":\"demo-1\",\"atSeq\":12,\"seq\":1,\"harnessVersion\":\"v1\",\"modelId\":\"m\"}"));
        client.fork("demo-1", 12, "child-1").forkedOrThrow();
        var ids = server.requests().stream().map(r -> Json.parse(r.body()).get("eventId").asText()).toList();
        // the value the client derived before its ids moved to tether-core: a fork retried across an upgrade is the same event
        assertThat(ids).containsExactly("7dc92fa7-7e8f-36dd-8cb3-9e8aa21a12d1", "7dc92fa7-7e8f-36dd-8cb3-9e8aa21a12d1");
    }

    @Test
    void claim_keepsItsRequestId_acrossRetries() {
        server.then(json(503, UNAVAILABLE, RETRY_NOW)).then(json(200, "{\"epoch\":1,\"resumed\":false,\"reason\":null,\"lastSeq\":2}"));
        Claimed claimed = client.claim("demo-1", ClaimRequest.of("worker-a", "v1").asRollout()).claimedOrThrow();
        assertThat(claimed).isEqualTo(new Claimed("demo-1", "worker-a", 1, java.util.Optional.empty(), 2));
        var bodies = server.requests().stream().map(r -> Json.parse(r.body())).toList();
        assertThat(bodies.get(0).get("requestId").asText()).isNotBlank().isEqualTo(bodies.get(1).get("requestId").asText());
        assertThat(bodies.get(0).get("rollout").asBoolean()).isTrue();
    }

    @Test
    void sessions_readsEveryPageOfTheList_inOrder_retryingAPageOnItsOwn() {
        String page = "{\"sessions\":[%s]%s}";
        String session = "{\"sessionId\":\"%s\",\"status\":\"open\"}";
        server.then(json(200, page.formatted(session.formatted("a") + "," + session.formatted("b"), ",\"nextAfter\":\"b\"")))
                .then(json(503, UNAVAILABLE, RETRY_NOW))
                .then(json(200, page.formatted(session.formatted("c"), "")));

        assertThat(client.sessions(SessionInfo.Status.OPEN)).extracting(SessionInfo::sessionId).containsExactly("a", "b", "c");
        assertThat(server.requests()).extracting(FakeServer.Seen::query)
                .containsExactly("status=open&limit=500", "status=open&after=b&limit=500", "status=open&after=b&limit=500");
    }

    @Test
    void approvals_readsEveryPageOfTheList_inOrder_retryingAPageOnItsOwn() {
        String page = "{\"approvals\":[%s]%s}";
        String item = "{\"id\":\"%s\",\"kind\":\"APPROVAL\",\"status\":\"PENDING\",\"sessionId\":\"s\",\"callId\":\"c\",\"tool\":\"edit_file\"}";
        server.then(json(200, page.formatted(item.formatted("s~3") + "," + item.formatted("s~5"), ",\"nextAfter\":\"2026-12-05T09:00:00Z~s~5\"")))
                .then(json(503, UNAVAILABLE, RETRY_NOW))
                .then(json(200, page.formatted(item.formatted("s~9"), "")));

        assertThat(client.approvals(ApprovalFilter.pending())).extracting(Approval::id).containsExactly("s~3", "s~5", "s~9");
        String next = "status=PENDING&after=2026-12-05T09%3A00%3A00Z~s~5&limit=500";
        assertThat(server.requests()).extracting(FakeServer.Seen::query).containsExactly("status=PENDING&limit=500", next, next);
    }

    @Test
    void reads_areEmptyOn404_andThrowOn401() {
        server.then(json(404, "{\"error\":\"not_found\",\"message\":\"session not found\"}"))
                .then(json(401, "{\"error\":\"unauthorized\",\"message\":\"a valid bearer token is required\"}"));
        assertThat(client.checkpoint("nope")).isEmpty();
        assertThatThrownBy(() -> client.checkpoint("nope")).isInstanceOf(TetherException.class).hasMessageContaining("credentials");
    }

    @Test
    void reads_sendTheirQueryParameters_encoded() {
        String notFound = "{\"error\":\"not_found\",\"message\":\"x\"}";
        server.then(json(404, notFound)).then(json(404, notFound)).then(json(404, notFound)).then(json(404, notFound))
                .otherwise(json(200, "{\"approvals\":[]}"));
        client.checkpoint("demo-1", ReadAt.atLeast(7));
        client.checkpoint("demo-1", ReadAt.seq(3));
        client.context("demo-1", ContextQuery.of(ContextFormat.ANTHROPIC).at(ReadAt.seq(5)).withMaxTokens(1000));
        client.call("demo-1", "call 1/x");
        client.approvals(ApprovalFilter.pending().ofKind(ApprovalFilter.Kind.UNKNOWN_OUTCOME));
        var seen = server.requests().stream().map(r -> r.path() + (r.query() == null ? "" : "?" + r.query())).toList();
        assertThat(seen).containsExactly("/v1/sessions/demo-1/checkpoint?minSeq=7", "/v1/sessions/demo-1/checkpoint?atSeq=3",
                "/v1/sessions/demo-1/context?format=anthropic&atSeq=5&maxTokens=1000", "/v1/sessions/demo-1/calls/call%201%2Fx",
                "/v1/approvals?status=PENDING&kind=UNKNOWN_OUTCOME&limit=500");
    }

    @Test
    void awaitDecision_pollsUntilTheItemIsNoLongerPending() throws Exception {
        String pending = "{\"id\":\"s~7\",\"kind\":\"APPROVAL\",\"status\":\"PENDING\",\"sessionId\":\"s\",\"callId\":\"c\",\"tool\":\"edit_file\"}";
        String granted = "{\"id\":\"s~7\",\"kind\":\"APPROVAL\",\"status\":\"GRANTED\",\"sessionId\":\"s\",\"callId\":\"c\",\"tool\":\"edit_file\"}";
        server.then(json(200, pending)).then(json(200, pending)).otherwise(json(200, granted));
        AwaitResult result = client.awaitDecision("s~7", Duration.ofSeconds(10));
        assertThat(result).isInstanceOf(Settled.class);
        assertThat(result.settledOrThrow().status()).isEqualTo("GRANTED");
        assertThat(server.requests()).hasSize(3);

        server.otherwise(json(200, pending));
        assertThat(client.awaitDecision("s~7", Duration.ofMillis(300))).isInstanceOf(StillPending.class);
        server.otherwise(json(404, "{\"error\":\"not_found\",\"message\":\"approval not found\"}"));
        assertThat(client.awaitDecision("s~7", Duration.ofMillis(300))).isInstanceOf(NotFound.class);
    }

    /** An interrupt that lands while the item is read, not between reads, is the method's InterruptedException too. */
    @Test
    void awaitDecision_interruptedWhileItReadsTheItem_throwsInterruptedException() throws Exception {
        var reading = new java.util.concurrent.CountDownLatch(1);
        server.otherwise(exchange -> {
            reading.countDown();
            Thread.sleep(4_000); // no answer before the interrupt
        });
        var thrown = new java.util.concurrent.CompletableFuture<Throwable>();
        Thread waiter = new Thread(() -> {
            try {
                client.awaitDecision("s~7", Duration.ofMinutes(1));
                thrown.complete(null);
            } catch (Throwable t) {
                thrown.complete(Thread.currentThread().isInterrupted() ? new AssertionError("the flag is still set", t) : t);
            }
        });
        waiter.start();
        assertThat(reading.await(5, java.util.concurrent.TimeUnit.SECONDS)).isTrue();

        waiter.interrupt();

        assertThat(thrown.get(5, java.util.concurrent.TimeUnit.SECONDS)).isInstanceOf(InterruptedException.class);
        assertThat(server.requests()).hasSize(1);
    }

    @Test
    void setWeight_keepsTheVersionsModel() {
        server.then(json(200, "{\"versions\":[{\"version\":\"v2\",\"weight\":0,\"state\":\"DRAINING\",\"modelId\":\"m2\",\"openSessions\":3}]}"))
                .then(json(200, "{\"versions\":[{\"version\":\"v2\",\"weight\":10,\"state\":\"ACTIVE\",\"modelId\":\"m2\",\"openSessions\":3}]}"));
        List<HarnessVersion> after = client.setWeight("v2", 10).versionsOrThrow();
        assertThat(after).singleElement().satisfies(v -> assertThat(v.weight()).isEqualTo(10));
        JsonNode put = Json.parse(server.requests().get(1).body());
        assertThat(put.toString()).isEqualTo("{\"version\":\"v2\",\"weight\":10,\"state\":\"ACTIVE\",\"modelId\":\"m2\"}");
        assertThat(server.requests().get(1).method()).isEqualTo("PUT");
    }

    /** Answers nothing: the connection closes before any response. */
    private static FakeServer.Script dropConnection() {
        return exchange -> exchange.getHttpContext().getServer(); // the exchange is closed without sendResponseHeaders
    }
}
