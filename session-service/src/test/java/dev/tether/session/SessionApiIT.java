package dev.tether.session;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.nullValue;

import dev.tether.testing.TetherStackResource;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.path.json.JsonPath;
import io.restassured.response.ValidatableResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** The session API against the real broker and registry, through REST, the sequencer and back. */
@QuarkusTest
@QuarkusTestResource(TetherStackResource.class)
class SessionApiIT {

    static final String AGENT = "dev-acme-agent";
    static final String APPROVER = "dev-acme-approver";
    static final String ADMIN = "dev-acme-admin";
    static final String OPERATOR = "dev-operator";
    static final String OTHER_TENANT = "dev-globex-agent";

    @org.junit.jupiter.api.BeforeEach
    void awaitSequencer() {
        awaitReady();
    }

    /** The app answers 503 until its sequencer runs; readiness says when. */
    static void awaitReady() {
        await().atMost(Duration.ofSeconds(60)).until(() -> given().get("/q/health/ready").statusCode() == 200);
    }

    @Test
    void createsSession_pinnedToModelAndDefaultVersion() {
        String id = newSessionId();
        createSession(AGENT, id, Map.of())
                .statusCode(201)
                .body("sessionId", equalTo(id))
                .body("seq", equalTo(1))
                .body("harnessVersion", equalTo("v1"))
                .body("modelId", equalTo("model-x"));

        JsonPath page = events(AGENT, id, 1);
        assertThat(page.getList("events.type")).containsExactly("session_started");
        assertThat(page.getString("events[0].objective")).isEqualTo("Rename Foo to Bar in src/");
        assertThat(page.getString("events[0].actor.kind")).isEqualTo("USER");
        assertThat(page.getString("events[0].actor.id")).isEqualTo("acme-agent");
    }

    @Test
    void appendsBatches_withGaplessSeqs_andReSendingAnEventIdAppendsNothing() {
        String id = created();
        String e1 = uuid();
        String e2 = uuid();
        append(AGENT, id, batch(userMessage(e1, "first"), userMessage(e2, "second")))
                .statusCode(200)
                .body("appended.seq", org.hamcrest.Matchers.contains(2, 3))
                .body("lastSeq", equalTo(3));

        append(AGENT, id, batch(userMessage(e1, "first"), userMessage(e2, "second")))
                .statusCode(200)
                .body("appended.seq", org.hamcrest.Matchers.contains(2, 3))
                .body("appended.duplicate", org.hamcrest.Matchers.contains(true, true))
                .body("lastSeq", equalTo(3));

        assertThat(events(AGENT, id, 1).getList("events.seq", Integer.class)).containsExactly(1, 2, 3);
    }

    @Test
    void expectedSeqConflict_is409WithTheLastSeq_andAppendsNothing() {
        String id = created();
        append(AGENT, id, Map.of("events", List.of(userMessage(uuid(), "x")), "expectedSeq", 5))
                .statusCode(409)
                .body("error", equalTo("seq_conflict"))
                .body("lastSeq", equalTo(1));
        assertThat(events(AGENT, id, 1).getList("events")).hasSize(1);
    }

    @Test
    void twoWorkersRacing_withTheSameExpectedSeq_exactlyOneWins() throws Exception {
        String id = created();
        var pool = java.util.concurrent.Executors.newFixedThreadPool(2);
        try {
            var a = pool.submit(() -> append(AGENT, id, Map.of("events", List.of(userMessage(uuid(), "a")), "expectedSeq", 1)).extract());
            var b = pool.submit(() -> append(AGENT, id, Map.of("events", List.of(userMessage(uuid(), "b")), "expectedSeq", 1)).extract());
            var statuses = List.of(a.get().statusCode(), b.get().statusCode());
            assertThat(statuses).containsExactlyInAnyOrder(200, 409);
            var loser = a.get().statusCode() == 409 ? a.get() : b.get();
            assertThat(loser.jsonPath().getString("error")).isEqualTo("seq_conflict");
            assertThat(loser.jsonPath().getInt("lastSeq")).isEqualTo(2);
        } finally {
            pool.shutdownNow();
        }
        assertThat(events(AGENT, id, 1).getList("events")).hasSize(2);
    }

    /**
     * A worker may name its claims after itself, the same request id for every session it works on: claims of several
     * sessions in flight at once each get their own session's answer (the channel matches verdicts by command id).
     */
    @Test
    void claimsOfManySessionsAtOnce_underOneRequestId_eachAnswerTheirOwnSession() throws Exception {
        List<String> ids = new java.util.ArrayList<>();
        for (int i = 0; i < 8; i++) {
            ids.add(created());
        }
        var pool = java.util.concurrent.Executors.newFixedThreadPool(ids.size());
        try {
            var claims = new java.util.ArrayList<java.util.concurrent.Future<JsonPath>>();
            for (String id : ids) {
                claims.add(pool.submit(() -> given().auth().oauth2(AGENT).contentType("application/json")
                        .body(Map.of("workerId", "worker-9", "harnessVersion", "v1", "requestId", "worker-9"))
                        .post("/v1/sessions/{id}/claim", id).then().statusCode(200).extract().jsonPath()));
            }
            for (int i = 0; i < ids.size(); i++) {
                JsonPath claim = claims.get(i).get();
                assertThat(claim.getString("sessionStartedAt")).as("the start of %s", ids.get(i))
                        .isEqualTo(events(AGENT, ids.get(i), 1).getString("events[0].occurredAt"));
                assertThat(claim.getInt("lastSeq")).isEqualTo(2);
            }
        } finally {
            pool.shutdownNow();
        }
        for (String id : ids) {
            assertThat(events(AGENT, id, 1).getList("events.type")).as(id).containsExactly("session_started", "session_claimed");
        }
    }

    @Test
    void claim_thenReClaim_recordsCrashResume_andFencesTheOldWorker() {
        String id = created();
        claim(AGENT, id, "worker-1", "v1").statusCode(200)
                .body("epoch", equalTo(1)).body("resumed", equalTo(false)).body("reason", nullValue());
        append(AGENT, id, Map.of("events", List.of(userMessage(uuid(), "from w1")), "epoch", 1)).statusCode(200);

        claim(AGENT, id, "worker-2", "v1").statusCode(200)
                .body("epoch", equalTo(2)).body("resumed", equalTo(true)).body("reason", equalTo("CRASH"));

        append(AGENT, id, Map.of("events", List.of(userMessage(uuid(), "late from w1")), "epoch", 1))
                .statusCode(409)
                .body("error", equalTo("stale_epoch"))
                .body("epoch", equalTo(2));
        JsonPath page = events(AGENT, id, 1);
        assertThat(page.getList("events.type")).containsExactly("session_started", "session_claimed", "user_message",
                "session_claimed", "session_resumed");
        assertThat(page.getString("events[4].reason")).isEqualTo("CRASH");
        assertThat(page.getInt("events[4].fromSeq")).isEqualTo(3);
    }

    @Test
    void claimDuringRollout_recordsDeployResume() {
        String id = created();
        claim(AGENT, id, "worker-1", "v1").statusCode(200);
        given().auth().oauth2(AGENT).contentType("application/json")
                .body(Map.of("workerId", "worker-2", "harnessVersion", "v1", "rollout", true))
                .post("/v1/sessions/{id}/claim", id).then()
                .statusCode(200).body("reason", equalTo("DEPLOY"));
    }

    @Test
    void workerOfAnotherVersion_isRefused_untilAnOperatorMigratesTheSession() {
        String id = created();
        claim(AGENT, id, "worker-v2", "v2").statusCode(409).body("error", equalTo("version_pinned"));

        given().auth().oauth2(AGENT).contentType("application/json").body(Map.of("toVersion", "v2"))
                .post("/v1/sessions/{id}/migrate", id).then().statusCode(403);
        given().auth().oauth2(OPERATOR).contentType("application/json").body(Map.of("toVersion", "v2"))
                .post("/v1/sessions/{id}/migrate", id).then().statusCode(200).body("harnessVersion", equalTo("v2"));

        claim(AGENT, id, "worker-v2", "v2").statusCode(200).body("epoch", equalTo(1));
        assertThat(events(AGENT, id, 1).getList("events.type")).containsExactly("session_started", "session_migrated", "session_claimed");

        String retired = "retired-" + uuid().substring(0, 8); // no worker runs it: a session moved there would wait forever
        putVersion(retired, 0, "RETIRED");
        given().auth().oauth2(OPERATOR).contentType("application/json").body(Map.of("toVersion", retired))
                .post("/v1/sessions/{id}/migrate", id).then().statusCode(422).body("error", equalTo("version_retired"))
                .body("field", equalTo("toVersion"));
        assertThat(events(AGENT, id, 1).getList("events")).hasSize(3);
    }

    @Test
    void illegalEvents_are422WithTheReason() {
        String id = created();
        append(AGENT, id, batch(Map.of("eventId", uuid(), "type", "tool_result", "callId", "nope", "status", "OK", "content", "x")))
                .statusCode(422).body("error", equalTo("illegal_event")).body("field", equalTo("events[0].callId"));
        append(AGENT, id, batch(Map.of("eventId", uuid(), "type", "session_claimed", "workerId", "w", "epoch", 9, "harnessVersion", "v1")))
                .statusCode(422).body("error", equalTo("illegal_event")).body("message", containsString("written by Tether"));
        append(AGENT, id, batch(Map.of("eventId", uuid(), "type", "approval_granted", "callId", "c1", "scope", "ONCE",
                "approver", "acme-agent", "reason", "I approve myself")))
                .statusCode(422).body("message", containsString("only an approver"));
        append(AGENT, id, batch(Map.of("eventId", uuid(), "type", "tool_call_authorized", "callId", "c1",
                "basis", Map.of("kind", "POLICY"))))
                .statusCode(422);
        // the whole batch is refused: the legal first event was not appended either
        append(AGENT, id, batch(userMessage(uuid(), "legal"),
                Map.of("eventId", uuid(), "type", "tool_result", "callId", "nope", "status", "OK", "content", "x")))
                .statusCode(422).body("field", equalTo("events[1].callId"));
        assertThat(events(AGENT, id, 1).getList("events")).hasSize(1);
    }

    @Test
    void toolCallLifecycle_resultForAFinishedCallIsRefused() {
        String id = created();
        append(AGENT, id, batch(assistantMessage(uuid(), "reading", "c1", 10, 5))).statusCode(200);
        var result = Map.<String, Object>of("eventId", uuid(), "type", "tool_result", "callId", "c1", "status", "OK", "content", "file body");
        append(AGENT, id, batch(result)).statusCode(200).body("lastSeq", equalTo(3));
        append(AGENT, id, batch(Map.of("eventId", uuid(), "type", "tool_result", "callId", "c1", "status", "OK", "content", "again")))
                .statusCode(422).body("message", containsString("already finished"));
        // and a re-send of the same result (same eventId) is a no-op, not an error
        append(AGENT, id, batch(result)).statusCode(200).body("appended[0].duplicate", equalTo(true));
    }

    @Test
    void nothingAfterSessionClosed() {
        String id = created();
        append(AGENT, id, batch(Map.of("eventId", uuid(), "type", "session_closed", "outcome", "done"))).statusCode(200);
        append(AGENT, id, batch(userMessage(uuid(), "too late"))).statusCode(422).body("error", equalTo("session_closed"));
        claim(AGENT, id, "w", "v1").statusCode(422).body("error", equalTo("session_closed"));
    }

    @Test
    void tokenBudget_refusesTheTurnThatWouldExceedIt() {
        String id = newSessionId();
        createSession(AGENT, id, Map.of("tokenBudget", 100)).statusCode(201);
        append(AGENT, id, batch(assistantMessage(uuid(), "one", null, 40, 20))).statusCode(200);
        append(AGENT, id, batch(assistantMessage(uuid(), "two", null, 30, 11)))
                .statusCode(422).body("error", equalTo("budget_exceeded"));
        append(AGENT, id, batch(assistantMessage(uuid(), "exactly", null, 30, 10))).statusCode(200);
    }

    @Test
    void badInput_is400NamingTheField_andChangesNothing() {
        String id = created();
        given().auth().oauth2(AGENT).contentType("application/json").body("{\"events\": [").post("/v1/sessions/{id}/events", id)
                .then().statusCode(400).body("error", equalTo("malformed_json"));
        append(AGENT, id, batch(Map.of("eventId", uuid(), "type", "user_message")))
                .statusCode(400).body("field", equalTo("events[0].content"));
        append(AGENT, id, batch(Map.of("eventId", uuid(), "type", "user_message", "content", 42)))
                .statusCode(400).body("field", equalTo("events[0].content"));
        append(AGENT, id, batch(Map.of("eventId", uuid(), "type", "user_message", "content", "x", "colour", "red")))
                .statusCode(400).body("field", equalTo("events[0]")).body("message", containsString("its fields are: content"));
        append(AGENT, id, batch(Map.of("eventId", uuid(), "type", "no_such_type")))
                .statusCode(400).body("field", equalTo("events[0].type"));
        append(AGENT, id, batch(Map.of("type", "user_message", "content", "x")))
                .statusCode(400).body("field", equalTo("events[0].eventId"));
        append(AGENT, id, batch(Map.of("eventId", uuid(), "type", "user_message", "content", "x",
                "contentRef", Map.of("uri", "blob://sha256/00", "sha256", "00", "size", 1, "preview", "x"))))
                .statusCode(400).body("field", equalTo("events[0].contentRef"));
        append(AGENT, id, Map.of("events", List.of())).statusCode(400).body("field", equalTo("events"));
        given().auth().oauth2(AGENT).contentType("application/json").body(Map.of("objective", "x", "modelId", "m"))
                .post("/v1/sessions").then().statusCode(400).body("field", equalTo("toolMode"));
        assertThat(events(AGENT, id, 1).getList("events")).hasSize(1);
    }

    @Test
    void unknownSession_and_anotherTenantsSession_answerTheSame404() {
        String id = created();
        append(OTHER_TENANT, id, batch(userMessage(uuid(), "intrusion"))).statusCode(404).body("error", equalTo("not_found"));
        append(AGENT, "no-such-session", batch(userMessage(uuid(), "x"))).statusCode(404).body("error", equalTo("not_found"));
        given().auth().oauth2(OTHER_TENANT).get("/v1/sessions/{id}/events", id).then().statusCode(404);
        // and another tenant cannot take over the id by "creating" it
        createSession(OTHER_TENANT, id, Map.of()).statusCode(404);
        assertThat(events(AGENT, id, 1).getList("events")).hasSize(1);
    }

    @Test
    void listsOnlyTheCallersTenantsOpenSessions() {
        String open = created();
        append(AGENT, open, batch(userMessage(uuid(), "one"), userMessage(uuid(), "two"))).statusCode(200);
        String closed = created();
        append(AGENT, closed, batch(Map.of("eventId", uuid(), "type", "session_closed", "outcome", "done"))).statusCode(200);
        String globex = newSessionId();
        createSession(OTHER_TENANT, globex, Map.of()).statusCode(201);

        JsonPath acme = given().auth().oauth2(AGENT).queryParam("status", "open").get("/v1/sessions").then().statusCode(200).extract().jsonPath();
        assertThat(acme.getList("sessions.sessionId", String.class)).contains(open).doesNotContain(closed, globex);
        assertThat(acme.getList("sessions.status", String.class)).containsOnly("open");
        given().auth().oauth2(AGENT).queryParam("limit", 0).get("/v1/sessions").then().statusCode(400).body("field", equalTo("limit"));
        given().auth().oauth2(AGENT).queryParam("limit", 1001).get("/v1/sessions").then().statusCode(400).body("field", equalTo("limit"));
        given().auth().oauth2(AGENT).queryParam("after", "not an id").get("/v1/sessions").then().statusCode(400).body("field", equalTo("after"));
        JsonPath first = given().auth().oauth2(AGENT).queryParam("limit", 1).get("/v1/sessions").then().statusCode(200).extract().jsonPath();
        assertThat(first.getList("sessions")).hasSize(1);
        String next = first.getString("nextAfter");
        assertThat(next).isEqualTo(first.getString("sessions[0].sessionId"));
        JsonPath second = given().auth().oauth2(AGENT).queryParam("limit", 1).queryParam("after", next).get("/v1/sessions").then().statusCode(200)
                .extract().jsonPath();
        assertThat(second.getString("sessions[0].sessionId")).isGreaterThan(next);
        // the stored summary is written at creation, not on each append: the list takes the last seq from the head
        assertThat(acme.getLong("sessions.find { it.sessionId == '" + open + "' }.lastSeq")).isEqualTo(3);
        JsonPath all = given().auth().oauth2(AGENT).get("/v1/sessions").then().statusCode(200).extract().jsonPath();
        assertThat(all.getString("sessions.find { it.sessionId == '" + closed + "' }.status")).isEqualTo("closed");
        assertThat(all.getLong("sessions.find { it.sessionId == '" + closed + "' }.lastSeq")).isEqualTo(2);
        JsonPath other = given().auth().oauth2(OTHER_TENANT).get("/v1/sessions").then().statusCode(200).extract().jsonPath();
        assertThat(other.getList("sessions.sessionId", String.class)).contains(globex).doesNotContain(open, closed);

        // pages of two, each partition's run read on its own and merged: every session once, in id order
        for (int i = 0; i < 7; i++) {
            created();
        }
        List<String> whole = given().auth().oauth2(AGENT).queryParam("limit", 1000).get("/v1/sessions").then().statusCode(200).extract()
                .jsonPath().getList("sessions.sessionId", String.class);
        var paged = new java.util.ArrayList<String>();
        String after = null;
        do {
            var request = given().auth().oauth2(AGENT).queryParam("limit", 2);
            JsonPath page = (after == null ? request : request.queryParam("after", after)).get("/v1/sessions").then().statusCode(200)
                    .extract().jsonPath();
            paged.addAll(page.getList("sessions.sessionId", String.class));
            after = page.getString("nextAfter");
        } while (after != null);
        assertThat(whole).hasSizeGreaterThanOrEqualTo(9).isSorted();
        assertThat(paged).isEqualTo(whole);
    }

    @Test
    void erase_removesTheSession_forItsOwnerOrAnAdminOnly() {
        String id = created();
        append(AGENT, id, batch(userMessage(uuid(), "private"))).statusCode(200);
        given().auth().oauth2(APPROVER).delete("/v1/sessions/{id}", id).then().statusCode(403);

        given().auth().oauth2(AGENT).delete("/v1/sessions/{id}", id).then().statusCode(200).body("events", equalTo(2));

        given().auth().oauth2(AGENT).get("/v1/sessions/{id}/events", id).then().statusCode(404);
        append(AGENT, id, batch(userMessage(uuid(), "x"))).statusCode(404);
    }

    /** A writer's erasure names the claim it holds: once another worker claimed the session, nothing is erased. */
    @Test
    void anErasureCarryingTheWritersEpoch_erasesNothing_onceAnotherWorkerClaimedTheSession() {
        String id = newSessionId();
        createSession(AGENT, id, Map.of()).statusCode(201);
        String start = claim(AGENT, id, "worker-1", "v1").statusCode(200).body("epoch", equalTo(1)).extract().path("sessionStartedAt");
        claim(AGENT, id, "worker-2", "v1").statusCode(200).body("epoch", equalTo(2));
        given().auth().oauth2(AGENT).queryParam("epoch", "one").delete("/v1/sessions/{id}", id).then().statusCode(400)
                .body("field", equalTo("epoch"));
        given().auth().oauth2(AGENT).queryParam("epoch", 1).queryParam("sessionStartedAt", "yesterday").delete("/v1/sessions/{id}", id)
                .then().statusCode(400).body("field", equalTo("sessionStartedAt"));

        given().auth().oauth2(AGENT).queryParam("epoch", 1).queryParam("sessionStartedAt", start).delete("/v1/sessions/{id}", id)
                .then().statusCode(409).body("error", equalTo("stale_epoch"));
        assertThat(events(AGENT, id, 1).getList("events.type", String.class))
                .containsExactly("session_started", "session_claimed", "session_claimed", "session_resumed");

        given().auth().oauth2(AGENT).queryParam("epoch", 2).queryParam("sessionStartedAt", start).delete("/v1/sessions/{id}", id)
                .then().statusCode(200).body("events", equalTo(4));
        given().auth().oauth2(AGENT).get("/v1/sessions/{id}/events", id).then().statusCode(404);
    }

    /**
     * A worker still running for an erased session holds the epoch and seqs a session made again under the id may reach
     * too; the start its create and claim answered tells the two apart.
     */
    @Test
    void anAppendCarryingTheSessionsStart_isRefused_onceThatSessionIsErased_evenUnderTheSameEpoch() {
        String id = newSessionId();
        String createdAt = createSession(AGENT, id, Map.of()).statusCode(201).extract().path("sessionStartedAt");
        assertThat(createdAt).as("the create's answer").isEqualTo(events(AGENT, id, 1).getString("events[0].occurredAt"));
        String staleStart = claim(AGENT, id, "worker-1", "v1").statusCode(200).body("epoch", equalTo(1))
                .body("sessionStartedAt", equalTo(createdAt)).extract().path("sessionStartedAt");
        append(AGENT, id, Map.of("events", List.of(userMessage(uuid(), "from w1")), "epoch", 1, "sessionStartedAt", staleStart))
                .statusCode(200);
        append(AGENT, id, Map.of("events", List.of(userMessage(uuid(), "x")), "sessionStartedAt", "yesterday"))
                .statusCode(400).body("field", equalTo("sessionStartedAt"));

        given().auth().oauth2(AGENT).delete("/v1/sessions/{id}", id).then().statusCode(200);
        createSession(AGENT, id, Map.of("objective", "another session, under the same id")).statusCode(201);
        String start = claim(AGENT, id, "worker-2", "v1").statusCode(200).body("epoch", equalTo(1)).extract().path("sessionStartedAt");
        assertThat(start).isNotEqualTo(staleStart);

        append(AGENT, id, Map.of("events", List.of(userMessage(uuid(), "late from w1")), "epoch", 1, "sessionStartedAt", staleStart))
                .statusCode(404).body("error", equalTo("not_found"));
        append(AGENT, id, Map.of("events", List.of(userMessage(uuid(), "from w2")), "epoch", 1, "sessionStartedAt", start))
                .statusCode(200).body("lastSeq", equalTo(3));
        assertThat(events(AGENT, id, 1).getList("events.content", String.class)).containsExactly(null, null, "from w2");
    }

    @Test
    void largeContent_isOffloadedToTheBlobStore_andServedToItsTenantOnly() {
        String id = created();
        String big = "line of a large tool output\n".repeat(4000); // ~110 KiB
        append(AGENT, id, batch(userMessage(uuid(), big))).statusCode(200);

        JsonPath page = events(AGENT, id, 2);
        String sha = page.getString("events[0].contentRef.sha256");
        assertThat(sha).hasSize(64);
        assertThat(page.getLong("events[0].contentRef.size")).isEqualTo(big.getBytes(java.nio.charset.StandardCharsets.UTF_8).length);
        assertThat(page.getString("events[0].content")).hasSize(512).isEqualTo(big.substring(0, 512));
        String served = given().auth().oauth2(AGENT).get("/v1/artifacts/{sha}", sha).then().statusCode(200).extract().asString();
        assertThat(served).isEqualTo(big);
        given().auth().oauth2(OTHER_TENANT).get("/v1/artifacts/{sha}", sha).then().statusCode(404);
    }

    @Test
    void requestOverTheCommandLimitAfterOffload_is413() {
        String id = created();
        var events = new java.util.ArrayList<Map<String, Object>>();
        for (int i = 0; i < 700; i++) {
            events.add(userMessage(uuid(), "x".repeat(1000)));
        }
        append(AGENT, id, Map.of("events", events)).statusCode(413).body("error", equalTo("too_large"));
        assertThat(events(AGENT, id, 1).getList("events")).hasSize(1);
    }

    @Test
    void harnessVersions_weightNewSessions_andReportOpenSessionsPerVersion() {
        given().auth().oauth2(AGENT).get("/v1/harness-versions").then().statusCode(403);
        putVersion("v1", 0, "DRAINING");
        putVersion("v9", 100, "ACTIVE").body("versions.find { it.version == 'v9' }.weight", equalTo(100));

        String id = newSessionId();
        createSession(AGENT, id, Map.of()).statusCode(201).body("harnessVersion", equalTo("v9"));
        given().auth().oauth2(OPERATOR).get("/v1/harness-versions").then().statusCode(200)
                .body("versions.find { it.version == 'v9' }.openSessions", equalTo(1));

        append(AGENT, id, batch(Map.of("eventId", uuid(), "type", "session_closed", "outcome", "done"))).statusCode(200);
        given().auth().oauth2(OPERATOR).get("/v1/harness-versions").then().statusCode(200)
                .body("versions.find { it.version == 'v9' }.openSessions", equalTo(0));
        putVersion("v9", 0, "RETIRED");
        putVersion("v1", 100, "ACTIVE");
    }

    /** A create re-sent after a lost answer lands on the session it made; its answer names that session's pin. */
    @Test
    void aReSentCreate_isAnsweredWithThePinItsSessionWasGiven_afterTheWeightsMoved() {
        String id = newSessionId();
        Map<String, Object> eventId = Map.of("eventId", uuid());
        createSession(AGENT, id, eventId).statusCode(201).body("harnessVersion", equalTo("v1"));
        putVersion("v1", 0, "DRAINING");
        putVersion("v8", 100, "ACTIVE");
        try {
            createSession(AGENT, newSessionId(), Map.of()).statusCode(201).body("harnessVersion", equalTo("v8"));

            createSession(AGENT, id, eventId).statusCode(201).body("seq", equalTo(1)).body("harnessVersion", equalTo("v1"));
            assertThat(events(AGENT, id, 1).getString("events[0].harnessVersion")).isEqualTo("v1");
        } finally {
            putVersion("v8", 0, "DRAINING");
            putVersion("v1", 100, "ACTIVE");
        }
    }

    @Test
    void subagent_runsInItsOwnLog_andOnlyItsOutcomeReachesTheParent() {
        String parent = newSessionId();
        createSession(AGENT, parent, Map.of("tokenBudget", 1000, "toolMode", "READ_ONLY")).statusCode(201);
        given().auth().oauth2(AGENT).contentType("application/json")
                .body(Map.of("objective", "search", "toolMode", "WRITE", "tokenBudget", 100))
                .post("/v1/sessions/{id}/subagents", parent).then().statusCode(422).body("field", equalTo("toolMode"));
        given().auth().oauth2(AGENT).contentType("application/json")
                .body(Map.of("objective", "search", "toolMode", "READ_ONLY", "tokenBudget", 5000))
                .post("/v1/sessions/{id}/subagents", parent).then().statusCode(422).body("error", equalTo("budget_exceeded"));
        // nor around those checks: a session's first event proposed on the events endpoint is refused, and starts nothing
        String bypass = newSessionId();
        append(AGENT, bypass, batch(Map.of("eventId", uuid(), "type", "session_started", "objective", "write", "systemPrompt", "",
                "modelId", "model-x", "harnessVersion", "v1", "toolMode", "WRITE", "parentSessionId", parent))).statusCode(422).body("error", equalTo("illegal_event"))
                .body("field", equalTo("events[0].type")).body("message", containsString("POST /v1/sessions/{id}/subagents"));
        append(AGENT, bypass, batch(Map.of("eventId", uuid(), "type", "session_forked", "parentSessionId", parent, "atSeq", 1,
                "objective", "write", "systemPrompt", "", "modelId", "model-x", "harnessVersion", "v1", "toolMode", "WRITE")))
                .statusCode(422).body("field", equalTo("events[0].type")).body("message", containsString("/fork"));
        given().auth().oauth2(AGENT).get("/v1/sessions/{id}", bypass).then().statusCode(404);

        String child = given().auth().oauth2(AGENT).contentType("application/json")
                .body(Map.of("objective", "find the callers of Foo", "toolMode", "READ_ONLY", "tokenBudget", 300))
                .post("/v1/sessions/{id}/subagents", parent).then().statusCode(201)
                .body("parentSessionId", equalTo(parent)).body("modelId", equalTo("model-x"))
                .extract().path("sessionId");
        append(AGENT, child, batch(userMessage(uuid(), "a long transcript nobody in the parent needs"),
                Map.of("eventId", uuid(), "type", "session_closed", "outcome", "Foo is called from 3 places"))).statusCode(200);

        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
            JsonPath page = events(AGENT, parent, 1);
            assertThat(page.getList("events.type")).containsExactly("session_started", "subagent_result");
            assertThat(page.getString("events[1].childSessionId")).isEqualTo(child);
            assertThat(page.getString("events[1].outcome")).isEqualTo("Foo is called from 3 places");
        });
    }

    @Test
    void subagent_ofAnErasedParent_reportsToNoSessionMadeAgainUnderItsId() {
        String parent = newSessionId();
        createSession(AGENT, parent, Map.of()).statusCode(201);
        String orphan = subagent(parent, "outlive the parent");
        assertThat(events(AGENT, orphan, 1).getString("events[0].parentStartedAt")).as("which session of the parent's id")
                .isEqualTo(events(AGENT, parent, 1).getString("events[0].occurredAt"));
        given().auth().oauth2(AGENT).delete("/v1/sessions/{id}", parent).then().statusCode(200);
        createSession(AGENT, parent, Map.of("objective", "another session, under the same id")).statusCode(201);
        String child = subagent(parent, "report to the new parent");

        append(AGENT, orphan, batch(Map.of("eventId", uuid(), "type", "session_closed", "outcome", "for the erased parent only")))
                .statusCode(200);
        append(AGENT, child, batch(Map.of("eventId", uuid(), "type", "session_closed", "outcome", "for the new parent"))).statusCode(200);

        // both results go to the parent's partition in that order: once the second is in, the first was decided
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() ->
                assertThat(events(AGENT, parent, 1).getList("events.type")).containsExactly("session_started", "subagent_result"));
        JsonPath page = events(AGENT, parent, 1);
        assertThat(page.getString("events[1].childSessionId")).isEqualTo(child);
        assertThat(page.getString("events[1].outcome")).isEqualTo("for the new parent");
    }

    private String subagent(String parent, String objective) {
        return given().auth().oauth2(AGENT).contentType("application/json").body(Map.of("objective", objective, "toolMode", "READ_ONLY"))
                .post("/v1/sessions/{id}/subagents", parent).then().statusCode(201).extract().path("sessionId");
    }

    @Test
    void fork_startsANewSessionPinnedLikeItsParentAtTheForkPoint() {
        String parent = created();
        append(AGENT, parent, batch(userMessage(uuid(), "one"), userMessage(uuid(), "two"))).statusCode(200);
        given().auth().oauth2(OPERATOR).contentType("application/json").body(Map.of("toVersion", "v2"))
                .post("/v1/sessions/{id}/migrate", parent).then().statusCode(200);

        String fork = given().auth().oauth2(AGENT).contentType("application/json").body(Map.of("atSeq", 2))
                .post("/v1/sessions/{id}/fork", parent).then().statusCode(201)
                .body("parentSessionId", equalTo(parent)).body("atSeq", equalTo(2)).body("harnessVersion", equalTo("v1"))
                .extract().path("sessionId");

        JsonPath page = events(AGENT, fork, 1);
        assertThat(page.getList("events.type")).containsExactly("session_forked");
        assertThat(page.getString("events[0].objective")).isEqualTo("Rename Foo to Bar in src/");
        assertThat(page.getInt("events[0].atSeq")).isEqualTo(2);
        JsonPath atForkPoint = events(AGENT, parent, 2);
        assertThat(page.getString("events[0].parentEventId")).as("which session of the parent's id was forked")
                .isEqualTo(atForkPoint.getString("events[0].eventId"));
        assertThat(page.getString("events[0].parentEventAt")).isEqualTo(atForkPoint.getString("events[0].occurredAt"));
        append(AGENT, fork, batch(userMessage(uuid(), "the fork goes its own way"))).statusCode(200).body("lastSeq", equalTo(2));
        assertThat(events(AGENT, parent, 1).getList("events")).hasSize(4);
        given().auth().oauth2(AGENT).contentType("application/json").body(Map.of("atSeq", 99))
                .post("/v1/sessions/{id}/fork", parent).then().statusCode(400).body("field", equalTo("atSeq"));
        given().auth().oauth2(OTHER_TENANT).contentType("application/json").body(Map.of("atSeq", 1))
                .post("/v1/sessions/{id}/fork", parent).then().statusCode(404);
    }

    /** A budgeted agent may fork itself; the fork is bounded by what the parent had left at the fork point. */
    @Test
    void aFork_isBoundedByWhatItsParentHadLeftAtTheForkPoint() {
        String parent = newSessionId();
        createSession(AGENT, parent, Map.of("tokenBudget", 1000)).statusCode(201);
        append(AGENT, parent, batch(assistantMessage(uuid(), "first turn", null, 250, 50))).statusCode(200);
        append(AGENT, parent, batch(assistantMessage(uuid(), "second turn", null, 100, 0))).statusCode(200);

        forkAt(parent, Map.of("atSeq", 2, "tokenBudget", 701)).statusCode(422).body("error", equalTo("budget_exceeded"))
                .body("field", equalTo("tokenBudget")).body("message", containsString("700"));
        forkAt(parent, Map.of("atSeq", 2, "tokenBudget", 0)).statusCode(400).body("field", equalTo("tokenBudget"));
        String fork = forkAt(parent, Map.of("atSeq", 2)).statusCode(201).body("tokenBudget", equalTo(700)).extract().path("sessionId");
        assertThat(events(AGENT, fork, 1).getInt("events[0].tokenBudget")).isEqualTo(700);
        append(AGENT, fork, batch(assistantMessage(uuid(), "over", null, 701, 0))).statusCode(422).body("error", equalTo("budget_exceeded"));
        append(AGENT, fork, batch(assistantMessage(uuid(), "within", null, 700, 0))).statusCode(200);

        String smaller = forkAt(parent, Map.of("atSeq", 3, "tokenBudget", 10)).statusCode(201).body("tokenBudget", equalTo(10))
                .extract().path("sessionId");
        append(AGENT, smaller, batch(assistantMessage(uuid(), "over", null, 11, 0))).statusCode(422);
        forkAt(fork, Map.of("atSeq", 2)).statusCode(422).body("field", equalTo("atSeq")); // the fork had used all 700 there
        forkAt(created(), Map.of("atSeq", 1)).statusCode(201).body("tokenBudget", nullValue());
    }

    private static ValidatableResponse forkAt(String parent, Map<String, Object> body) {
        return given().auth().oauth2(AGENT).contentType("application/json").body(body).post("/v1/sessions/{id}/fork", parent).then();
    }

    @Test
    void everyCallNeedsAToken() {
        given().contentType("application/json").body(Map.of()).post("/v1/sessions").then().statusCode(401)
                .body("error", equalTo("unauthorized"));
        given().auth().oauth2("not-a-key").get("/v1/sessions").then().statusCode(401);
        given().auth().oauth2(APPROVER).contentType("application/json").body(Map.of()).post("/v1/sessions").then().statusCode(403)
                .body("error", equalTo("forbidden"));
    }

    // ---------------------------------------------------------------------------------------------

    static String uuid() {
        return UUID.randomUUID().toString();
    }

    static String newSessionId() {
        return "it-" + UUID.randomUUID();
    }

    static String created() {
        String id = newSessionId();
        createSession(AGENT, id, Map.of()).statusCode(201);
        return id;
    }

    static ValidatableResponse createSession(String token, String id, Map<String, Object> extra) {
        var body = new java.util.HashMap<String, Object>(Map.of("objective", "Rename Foo to Bar in src/", "systemPrompt",
                "You are a careful engineer.", "modelId", "model-x", "toolMode", "WRITE", "constraints", List.of("keep tests green"),
                "sessionId", id));
        body.putAll(extra);
        return given().auth().oauth2(token).contentType("application/json").body(body).post("/v1/sessions").then();
    }

    static ValidatableResponse append(String token, String id, Map<String, ?> body) {
        return given().auth().oauth2(token).contentType("application/json").body(body).post("/v1/sessions/{id}/events", id).then();
    }

    static ValidatableResponse claim(String token, String id, String worker, String version) {
        return given().auth().oauth2(token).contentType("application/json").body(Map.of("workerId", worker, "harnessVersion", version))
                .post("/v1/sessions/{id}/claim", id).then();
    }

    static JsonPath events(String token, String id, long fromSeq) {
        return given().auth().oauth2(token).queryParam("fromSeq", fromSeq).get("/v1/sessions/{id}/events", id)
                .then().statusCode(200).extract().jsonPath();
    }

    static ValidatableResponse putVersion(String version, int weight, String state) {
        return given().auth().oauth2(OPERATOR).contentType("application/json")
                .body(Map.of("version", version, "weight", weight, "state", state))
                .put("/v1/harness-versions").then().statusCode(200);
    }

    @SafeVarargs
    static Map<String, Object> batch(Map<String, Object>... events) {
        return Map.of("events", List.of(events));
    }

    static Map<String, Object> userMessage(String eventId, String content) {
        return Map.of("eventId", eventId, "type", "user_message", "content", content);
    }

    static Map<String, Object> assistantMessage(String eventId, String content, String callId, int in, int out) {
        var calls = callId == null ? List.of() : List.of(Map.of("callId", callId, "tool", "read_file", "argumentsJson", "{\"path\":\"a.txt\"}"));
        return Map.of("eventId", eventId, "type", "assistant_message", "content", content, "toolCalls", calls,
                "usage", Map.of("inputTokens", in, "outputTokens", out));
    }
}
