package dev.tether.projector;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.equalTo;

import dev.tether.avro.OutcomeState;
import dev.tether.avro.ToolOutcome;
import dev.tether.avro.ToolRequest;
import dev.tether.core.event.ApprovalGranted;
import dev.tether.core.event.ApprovalRequested;
import dev.tether.core.event.ApprovalScope;
import dev.tether.core.event.AssistantMessage;
import dev.tether.core.event.AuthorizationBasis;
import dev.tether.core.event.ContextCompacted;
import dev.tether.core.event.SessionClaimed;
import dev.tether.core.event.SessionForked;
import dev.tether.core.event.SessionStarted;
import dev.tether.core.event.StepCompleted;
import dev.tether.core.event.TokenUsage;
import dev.tether.core.event.ToolCall;
import dev.tether.core.event.ToolCallAuthorized;
import dev.tether.core.event.ToolMode;
import dev.tether.core.event.ToolResult;
import dev.tether.core.event.ToolStatus;
import dev.tether.core.event.TurnInterrupted;
import dev.tether.core.event.UserMessage;
import dev.tether.kit.kafka.AvroSerdes;
import dev.tether.kit.kafka.SessionPartitioner;
import dev.tether.kit.kafka.TopicLayout;
import dev.tether.kit.kafka.Topics;
import dev.tether.testing.TetherStack;
import dev.tether.testing.TetherStackResource;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.path.json.JsonPath;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The projection's API over a log written to the real broker, read through the real registry. */
@QuarkusTest
@QuarkusTestResource(TetherStackResource.class)
class ProjectionApiIT {

    static final String AGENT = "dev-acme-agent";

    @BeforeEach
    void awaitProjection() {
        await().atMost(Duration.ofSeconds(60)).until(() -> given().get("/q/health/ready").statusCode() == 200);
    }

    static SessionStarted started() {
        return new SessionStarted("Rename Foo to Bar in src/", "You are a careful engineer.", "claude-sonnet-4", "v1", ToolMode.WRITE,
                List.of("keep the tests green"), 50_000L, null);
    }

    /** The first event of a fork of {@code parent} at {@code atSeq}, as the session-service's POST /v1/sessions/{id}/fork appends it. */
    static SessionForked forkOf(String parent, long atSeq, SessionStarted start) {
        return new SessionForked(parent, atSeq, start.objective(), start.systemPrompt(), start.modelId(), start.harnessVersion(),
                start.toolMode(), start.constraints());
    }

    static String newSession() {
        return "proj-" + UUID.randomUUID();
    }

    /** Waits until the projection has folded the session through {@code seq}. */
    static JsonPath checkpointAt(String sessionId, long seq) {
        await().atMost(Duration.ofSeconds(60)).until(() -> {
            var r = given().auth().oauth2(AGENT).get("/v1/sessions/{id}/checkpoint", sessionId);
            return r.statusCode() == 200 && r.jsonPath().getLong("lastSeq") >= seq;
        });
        return given().auth().oauth2(AGENT).get("/v1/sessions/{id}/checkpoint", sessionId).then().statusCode(200).extract().jsonPath();
    }

    @Test
    void checkpoint_followsTheLog_andTimeTravelsToAnySeq() {
        String id = newSession();
        try (var writer = new EventWriter(TopicLayout.local(), "acme")) {
            writer.session(id).add(started(),
                    new AssistantMessage("reading", null, List.of(new ToolCall("c1", "read_file", "{\"path\":\"src/Foo.java\"}")),
                            new TokenUsage(800, 40)),
                    new ToolCallAuthorized("c1", AuthorizationBasis.POLICY),
                    new ToolResult("c1", id + "/2/c1", ToolStatus.OK, "class Foo {}", null),
                    new StepCompleted(1, "read Foo", true, null));
        }

        JsonPath now = checkpointAt(id, 5);
        assertThat(now.getString("status")).isEqualTo("ACTIVE");
        assertThat(now.getInt("step")).isEqualTo(1);
        assertThat(now.getLong("usedTokens.inputTokens")).isEqualTo(800);
        assertThat(now.getString("toolCursor[0].state")).isEqualTo("OK");
        assertThat(now.getString("toolCursor[0].idempotencyKey")).isEqualTo(id + "/2/c1");
        assertThat(now.getString("owner")).isEqualTo("acme-agent");

        JsonPath then = given().auth().oauth2(AGENT).queryParam("atSeq", 2).get("/v1/sessions/{id}/checkpoint", id)
                .then().statusCode(200).extract().jsonPath();
        assertThat(then.getLong("lastSeq")).isEqualTo(2);
        assertThat(then.getString("toolCursor[0].state")).isEqualTo("REQUESTED");
        assertThat(then.getString("pendingAction.kind")).isEqualTo("tool_result");
        given().auth().oauth2(AGENT).queryParam("atSeq", 99).get("/v1/sessions/{id}/checkpoint", id).then().statusCode(400)
                .body("field", equalTo("atSeq"));
    }

    @Test
    void authorizedCalls_becomeExactlyOneToolRequestEach() throws Exception {
        String id = newSession();
        Instant started = Instant.parse("2026-11-29T10:00:07Z");
        try (var writer = new EventWriter(TopicLayout.local(), "acme")) {
            var session = writer.session(id).add(started(),
                    new AssistantMessage("two edits", null, List.of(new ToolCall("c1", "edit_file", "{\"path\":\"a\"}"),
                            new ToolCall("c2", "edit_file", "{\"path\":\"b\"}")), new TokenUsage(1, 1)),
                    new ApprovalRequested("c1", "edit_file", "--- a\n+++ a", null),
                    new ApprovalGranted("c1", ApprovalScope.SESSION, "edit_file", "**", "acme-approver", "fine"),
                    new ToolCallAuthorized("c1", AuthorizationBasis.approval(4)),
                    new ToolCallAuthorized("c2", AuthorizationBasis.approval(4)));
            checkpointAt(id, 6);
            // the executor's ledger for c1, as the tool-executor writes it: started, then OK; then its result
            writeOutcome(outcome(id, "c1", OutcomeState.STARTED, started, null));
            writeOutcome(outcome(id, "c1", OutcomeState.OK, started, started.plusSeconds(1)));
            session.add(new ToolResult("c1", id + "/2/c1", ToolStatus.OK, "edited a", null));
        }
        checkpointAt(id, 7);

        List<ToolRequest> requests = toolRequestsOf(id);
        assertThat(requests).extracting(ToolRequest::getIdempotencyKey).containsExactly(id + "/2/c1", id + "/2/c2");
        assertThat(requests.get(0).getBasis().getApprovalSeq()).isEqualTo(4);

        JsonPath call = given().auth().oauth2(AGENT).get("/v1/sessions/{id}/calls/{call}", id, "c1").then().statusCode(200)
                .extract().jsonPath();
        assertThat(call.getString("idempotencyKey")).isEqualTo(id + "/2/c1");
        assertThat(call.getString("approval.approver")).isEqualTo("acme-approver");
        assertThat(call.getString("approval.scope")).isEqualTo("SESSION");
        assertThat(call.getString("requestedBy.type")).isEqualTo("assistant_message");
        assertThat(call.getString("authorizedBy.type")).isEqualTo("tool_call_authorized");
        assertThat(call.getString("traceId")).hasSize(32);
        assertThat(call.getLong("approval.seq")).isEqualTo(4);
        assertThat(call.getString("approval.decision")).isEqualTo("granted");
        assertThat(Instant.parse(call.getString("approval.decidedAt"))).as("the time of the approval_granted event")
                .isEqualTo(Instant.parse("2026-11-29T10:00:04Z"));
        assertThat(call.getLong("resultSeq")).isEqualTo(7);
        assertThat(call.getString("resultStatus")).isEqualTo("OK");
        assertThat(call.getString("result.type")).isEqualTo("tool_result");
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
            JsonPath withAttempts = given().auth().oauth2(AGENT).get("/v1/sessions/{id}/calls/{call}", id, "c1").then().statusCode(200)
                    .extract().jsonPath();
            assertThat(withAttempts.getList("attempts.state")).containsExactly("OK");
            assertThat(withAttempts.getInt("attempts[0].attempt")).isEqualTo(1);
            assertThat(withAttempts.getString("attempts[0].executorId")).isEqualTo("executor-1");
            assertThat(Instant.parse(withAttempts.getString("attempts[0].finishedAt"))).isEqualTo(started.plusSeconds(1));
        });
        JsonPath c2 = given().auth().oauth2(AGENT).get("/v1/sessions/{id}/calls/{call}", id, "c2").then().statusCode(200).extract().jsonPath();
        assertThat(c2.getString("resultSeq")).as("c2 has no result yet").isNull();
        assertThat(c2.getList("attempts")).isEmpty();
    }

    @Test
    void context_inBothFormats_closesDanglingCalls_andKeepsInterruptedText() {
        String id = newSession();
        try (var writer = new EventWriter(TopicLayout.local(), "acme")) {
            writer.session(id).add(started(), new UserMessage("Start with src/Foo.java", null),
                    new AssistantMessage("Reading it.", null, List.of(new ToolCall("c1", "read_file", "{\"path\":\"src/Foo.java\"}")),
                            new TokenUsage(10, 5)),
                    new TurnInterrupted("I was going to", "user pressed stop"));
        }
        checkpointAt(id, 4);

        JsonPath openai = given().auth().oauth2(AGENT).queryParam("format", "openai").get("/v1/sessions/{id}/context", id)
                .then().statusCode(200).extract().jsonPath();
        assertThat(openai.getString("messages[0].role")).isEqualTo("system");
        assertThat(openai.getString("messages[0].content")).isEqualTo("You are a careful engineer.");
        assertThat(openai.getString("messages[1].content")).isEqualTo("Rename Foo to Bar in src/");
        List<Map<String, Object>> messages = openai.getList("messages");
        assertThat(messages).anySatisfy(m -> {
            assertThat(m.get("role")).isEqualTo("tool");
            assertThat(m.get("tool_call_id")).isEqualTo("c1");
            assertThat(m.get("content")).isEqualTo("{\"error\":\"cancelled_by_user\"}");
        });
        assertThat(messages).anySatisfy(m -> assertThat(String.valueOf(m.get("content"))).contains("I was going to")
                .contains("[interrupted: user pressed stop]"));
        assertThat(openai.getInt("tokens")).isPositive();
        assertThat(openai.getInt("window")).isEqualTo(200_000);
        assertThat(openai.getBoolean("compactionAdvised")).isFalse();

        JsonPath anthropic = given().auth().oauth2(AGENT).queryParam("format", "anthropic").get("/v1/sessions/{id}/context", id)
                .then().statusCode(200).extract().jsonPath();
        assertThat(anthropic.getString("system")).isEqualTo("You are a careful engineer.");
        assertThat(anthropic.getString("messages[0].role")).isEqualTo("user");
        assertThat(anthropic.getList("messages.content.flatten().findAll { it.type == 'tool_result' }.is_error", Boolean.class))
                .containsOnly(true);
        given().auth().oauth2(AGENT).queryParam("format", "cohere").get("/v1/sessions/{id}/context", id).then().statusCode(400)
                .body("field", equalTo("format"));
    }

    @Test
    void compaction_keepsTheOriginals_andTheContextUsesTheSummaryAndTypedFacts() {
        String id = newSession();
        try (var writer = new EventWriter(TopicLayout.local(), "acme")) {
            writer.session(id).add(started(), new UserMessage("one", null), new UserMessage("two", null),
                    new ContextCompacted(3, "The user said one and two.", null, List.of(1L, 2L, 3L)),
                    new UserMessage("three", null),
                    new ContextCompacted(5, "One, two, three.", null, List.of(1L, 2L, 3L, 5L)),
                    new UserMessage("four", null));
        }
        checkpointAt(id, 7);

        JsonPath source = given().auth().oauth2(AGENT).queryParam("throughSeq", 6).get("/v1/sessions/{id}/compaction-source", id)
                .then().statusCode(200).extract().jsonPath();
        assertThat(source.getList("events.seq", Integer.class)).containsExactly(1, 2, 3, 5);
        assertThat(source.getList("skippedSummaries", Integer.class)).containsExactly(4, 6);

        JsonPath context = given().auth().oauth2(AGENT).get("/v1/sessions/{id}/context", id).then().statusCode(200).extract().jsonPath();
        List<String> texts = context.getList("messages.content", String.class);
        assertThat(texts).contains("Session so far:\nOne, two, three.");
        assertThat(texts).anySatisfy(t -> assertThat(t).startsWith("Authoritative facts").contains("- keep the tests green"));
        assertThat(texts).contains("four").doesNotContain("one", "two", "three");
    }

    @Test
    void context_atSeq_equalsTheContextReadLiveWhenLastSeqWasThatSeq() {
        String id = newSession();
        var live = new HashMap<Long, Map<String, Object>>();
        try (var writer = new EventWriter(TopicLayout.local(), "acme")) {
            var session = writer.session(id);
            List<Object> script = List.of(started(), new UserMessage("Start with src/Foo.java", null),
                    new AssistantMessage("Reading it.", null, List.of(new ToolCall("c1", "read_file", "{\"path\":\"src/Foo.java\"}")),
                            new TokenUsage(10, 5)),
                    new ToolCallAuthorized("c1", AuthorizationBasis.POLICY),
                    new ToolResult("c1", id + "/3/c1", ToolStatus.OK, "class Foo {}", null),
                    new ContextCompacted(5, "Read Foo.", null, List.of(1L, 2L, 3L, 4L, 5L)),
                    new UserMessage("Now rename it", null),
                    new StepCompleted(1, "read Foo", true, null));
            for (Object payload : script) {
                session.add((dev.tether.core.event.EventPayload) payload);
                checkpointAt(id, session.lastSeq());
                live.put(session.lastSeq(), given().auth().oauth2(AGENT).queryParam("format", "anthropic")
                        .get("/v1/sessions/{id}/context", id).then().statusCode(200).extract().jsonPath().getMap(""));
            }
        }
        assertThat(live).hasSize(8);
        for (long seq = 1; seq <= 8; seq++) {
            Map<String, Object> past = given().auth().oauth2(AGENT).queryParam("format", "anthropic").queryParam("atSeq", seq)
                    .get("/v1/sessions/{id}/context", id).then().statusCode(200).extract().jsonPath().getMap("");
            assertThat(past).as("context at seq %d", seq).isEqualTo(live.get(seq));
        }
        assertThat(String.valueOf(live.get(7L).get("messages"))).contains("Session so far:").doesNotContain("Reading it.");
        assertThat(String.valueOf(live.get(4L).get("messages"))).contains("Reading it.").doesNotContain("Session so far:");
    }

    @Test
    void fork_contextIsTheParentsAtTheForkPoint_followedByItsOwnEvents() {
        String parent = newSession();
        String fork = newSession();
        SessionStarted start = started();
        try (var writer = new EventWriter(TopicLayout.local(), "acme")) {
            writer.session(parent).add(start, new UserMessage("parent one", null), new UserMessage("parent two", null),
                    new UserMessage("parent after the fork", null));
            writer.session(fork).add(forkOf(parent, 3, start), new UserMessage("fork one", null));
        }
        checkpointAt(parent, 4);
        JsonPath forkCheckpoint = checkpointAt(fork, 2);
        assertThat(forkCheckpoint.getString("objective")).isEqualTo(start.objective());

        JsonPath context = given().auth().oauth2(AGENT).get("/v1/sessions/{id}/context", fork).then().statusCode(200).extract().jsonPath();
        List<String> texts = context.getList("messages.content", String.class);
        assertThat(texts.subList(0, 2)).containsExactly(start.systemPrompt(), start.objective());
        assertThat(texts).containsSubsequence("parent one", "parent two", "fork one").doesNotContain("parent after the fork");
        assertThat(context.getLong("atSeq")).isEqualTo(2);

        List<Map<String, Object>> parentAtFork = given().auth().oauth2(AGENT).queryParam("atSeq", 3)
                .get("/v1/sessions/{id}/context", parent).then().statusCode(200).extract().jsonPath().getList("messages");
        List<Map<String, Object>> forkMessages = context.getList("messages");
        assertThat(forkMessages.subList(0, parentAtFork.size() - 1)).as("the parent's context at seq 3 without its volatile tail")
                .isEqualTo(parentAtFork.subList(0, parentAtFork.size() - 1));
        assertThat(given().auth().oauth2(AGENT).get("/v1/sessions/{id}/context", fork).then().statusCode(200).extract().jsonPath()
                .getList("messages")).as("again, from the parent's part kept since the first read").isEqualTo(forkMessages);

        given().auth().oauth2("dev-globex-agent").get("/v1/sessions/{id}/context", fork).then().statusCode(404);
    }

    @Test
    void fork_whoseOwnCallReusesAParentsCallId_rendersEveryToolUseIdOnce() {
        String parent = newSession();
        String fork = newSession();
        SessionStarted start = started();
        try (var writer = new EventWriter(TopicLayout.local(), "acme")) {
            writer.session(parent).add(start,
                    new AssistantMessage("reading", null, List.of(new ToolCall("c1", "read_file", "{}")), new TokenUsage(1, 1)),
                    new ToolResult("c1", parent + "/2/c1", ToolStatus.OK, "the parent's file", null));
            // the sequencer refuses a call id used before in the session, but the fork's own log has no c1 before this one
            writer.session(fork).add(forkOf(parent, 3, start),
                    new AssistantMessage("reading again", null, List.of(new ToolCall("c1", "read_file", "{}")), new TokenUsage(1, 1)),
                    new ToolResult("c1", fork + "/2/c1", ToolStatus.OK, "the fork's file", null));
        }
        checkpointAt(fork, 3);

        JsonPath context = given().auth().oauth2(AGENT).queryParam("format", "anthropic").get("/v1/sessions/{id}/context", fork)
                .then().statusCode(200).extract().jsonPath();
        assertThat(context.getList("messages.content.flatten().findAll { it.type == 'tool_use' }.id", String.class))
                .as("Anthropic refuses a context with a tool_use id twice").containsExactly("c1", "c1_2");
        assertThat(context.getList("messages.content.flatten().findAll { it.type == 'tool_result' }", Map.class))
                .extracting(r -> r.get("tool_use_id") + ": " + r.get("content"))
                .containsExactly("c1: the parent's file", "c1_2: the fork's file");
    }

    @Test
    void recoveryReport_saysWhatIsConfirmedUnknownAndPending() {
        String id = newSession();
        try (var writer = new EventWriter(TopicLayout.local(), "acme")) {
            writer.session(id).add(started(),
                    new AssistantMessage("three calls", null, List.of(new ToolCall("c1", "read_file", "{}"),
                            new ToolCall("c2", "http_fetch", "{}"), new ToolCall("c3", "run_command", "{}")), new TokenUsage(1, 1)),
                    new ToolCallAuthorized("c1", AuthorizationBasis.POLICY),
                    new ToolResult("c1", id + "/2/c1", ToolStatus.OK, "x", null),
                    new ToolCallAuthorized("c2", AuthorizationBasis.POLICY),
                    new ToolResult("c2", id + "/2/c2", ToolStatus.UNKNOWN, "the executor died mid-call", null),
                    new ApprovalRequested("c3", "run_command", "make deploy", null),
                    new StepCompleted(1, "read it", true, null),
                    new SessionClaimed("worker-a", 1, "v1"),
                    new SessionClaimed("worker-b", 2, "v1"),
                    new AssistantMessage("edit", null, List.of(new ToolCall("c4", "edit_file", "{\"path\":\"src/A.java\"}")),
                            new TokenUsage(1, 1)),
                    new ApprovalRequested("c4", "edit_file", "--- a\n+++ a", null),
                    new ApprovalGranted("c4", ApprovalScope.SESSION, "edit_file", "src/**", "acme-approver", "fine"));
        }
        checkpointAt(id, 13);

        JsonPath report = given().auth().oauth2(AGENT).get("/v1/sessions/{id}/recovery", id).then().statusCode(200).extract().jsonPath();
        assertThat(report.getString("identity.modelId")).isEqualTo("claude-sonnet-4");
        assertThat(report.getString("identity.owner")).isEqualTo("acme-agent");
        assertThat(report.getString("identity.tenantId")).isEqualTo("acme");
        assertThat(report.getLong("identity.epoch")).as("the latest claim's epoch").isEqualTo(2);
        assertThat(report.getString("identity.workerId")).isEqualTo("worker-b");
        assertThat(report.getList("authority.approvalsInForce")).hasSize(1);
        assertThat(report.getLong("authority.approvalsInForce[0].grantSeq")).isEqualTo(13);
        assertThat(report.getString("authority.approvalsInForce[0].tool")).isEqualTo("edit_file");
        assertThat(report.getString("authority.approvalsInForce[0].pathGlob")).isEqualTo("src/**");
        assertThat(report.getString("authority.approvalsInForce[0].approver")).isEqualTo("acme-approver");
        assertThat(report.getInt("position.lastVerifiedStep")).isEqualTo(1);
        assertThat(report.getList("effects.confirmed.callId")).containsExactly("c1");
        assertThat(report.getList("effects.unknown.callId")).containsExactly("c2");
        assertThat(report.getList("authority.pendingApprovals.callId")).containsExactly("c3");
        assertThat(report.getList("nextSafeActions", String.class)).anySatisfy(a -> assertThat(a).contains("c2").contains("do not re-run"))
                .anySatisfy(a -> assertThat(a).contains("c3").contains("approver"));
    }

    @Test
    void anotherTenantsSession_is404Everywhere() {
        String id = newSession();
        try (var writer = new EventWriter(TopicLayout.local(), "acme")) {
            writer.session(id).add(started());
        }
        checkpointAt(id, 1);
        for (String path : List.of("checkpoint", "context", "recovery", "compaction-source?throughSeq=1", "calls/c1")) {
            given().auth().oauth2("dev-globex-agent").get("/v1/sessions/" + id + "/" + path).then().statusCode(404);
        }
        given().get("/v1/sessions/{id}/checkpoint", id).then().statusCode(401);
    }

    /** A ledger record of the call asked for at seq 2, as the tool-executor writes it (attempt 1, edit_file). */
    static ToolOutcome outcome(String sessionId, String callId, OutcomeState state, Instant startedAt, Instant finishedAt) {
        return ToolOutcome.newBuilder().setIdempotencyKey(sessionId + "/2/" + callId).setSessionId(sessionId).setTenantId("acme")
                .setCallId(callId).setTool("edit_file").setState(state).setAttempt(1).setExecutorId("executor-1").setStartedAt(startedAt)
                .setFinishedAt(finishedAt).build();
    }

    /** Writes to tool-outcomes as the tool-executor does: keyed by idempotency key, on the session's partition. */
    private static void writeOutcome(ToolOutcome outcome) throws Exception {
        writeOutcome(TopicLayout.local(), outcome);
    }

    /** The same, to the {@code tool-outcomes} of {@code layout}. */
    static void writeOutcome(TopicLayout layout, ToolOutcome outcome) throws Exception {
        TetherStack stack = TetherStack.shared();
        var config = new HashMap<String, Object>(stack.clientConfig());
        config.put(ProducerConfig.ACKS_CONFIG, "all");
        config.put(ProducerConfig.PARTITIONER_CLASS_CONFIG, SessionPartitioner.class.getName());
        try (var serde = AvroSerdes.<ToolOutcome>valueSerde(stack.registryUrl());
                var producer = new KafkaProducer<>(config, new StringSerializer(), serde.serializer())) {
            producer.send(new ProducerRecord<>(layout.name(Topics.TOOL_OUTCOMES), outcome.getIdempotencyKey(), outcome)).get();
        }
    }

    private static List<ToolRequest> toolRequestsOf(String sessionId) {
        TetherStack stack = TetherStack.shared();
        var config = new HashMap<>(stack.clientConfig());
        config.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        String topic = TopicLayout.local().name(Topics.TOOL_REQUESTS);
        var found = new ArrayList<ToolRequest>();
        try (var serde = AvroSerdes.<ToolRequest>valueSerde(stack.registryUrl());
                var consumer = new KafkaConsumer<>(config, new StringDeserializer(), serde.deserializer())) {
            var partitions = consumer.partitionsFor(topic).stream().map(p -> new TopicPartition(topic, p.partition())).toList();
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            var end = consumer.endOffsets(partitions);
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (partitions.stream().anyMatch(p -> consumer.position(p) < end.get(p))) {
                try {
                    consumer.poll(Duration.ofMillis(200)).forEach(r -> {
                        if (r.value().getSessionId().equals(sessionId)) {
                            found.add(r.value());
                        }
                    });
                } catch (org.apache.kafka.common.errors.RecordDeserializationException e) {
                    // a lookup the registry did not answer in time (a loaded machine): the same record is read again
                    if (dev.tether.kit.kafka.RegistryUnavailableException.in(e).isEmpty() || System.nanoTime() > deadline) {
                        throw e;
                    }
                }
            }
        }
        return found;
    }
}
