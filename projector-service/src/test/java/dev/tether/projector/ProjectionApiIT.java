package dev.tether.projector;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.equalTo;

import dev.tether.avro.ToolRequest;
import dev.tether.common.event.ApprovalGranted;
import dev.tether.common.event.ApprovalRequested;
import dev.tether.common.event.ApprovalScope;
import dev.tether.common.event.AssistantMessage;
import dev.tether.common.event.AuthorizationBasis;
import dev.tether.common.event.ContextCompacted;
import dev.tether.common.event.SessionStarted;
import dev.tether.common.event.StepCompleted;
import dev.tether.common.event.TokenUsage;
import dev.tether.common.event.ToolCall;
import dev.tether.common.event.ToolCallAuthorized;
import dev.tether.common.event.ToolMode;
import dev.tether.common.event.ToolResult;
import dev.tether.common.event.ToolStatus;
import dev.tether.common.event.TurnInterrupted;
import dev.tether.common.event.UserMessage;
import dev.tether.common.kafka.AvroSerdes;
import dev.tether.common.kafka.TopicLayout;
import dev.tether.common.kafka.Topics;
import dev.tether.testing.TetherStack;
import dev.tether.testing.TetherStackResource;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.path.json.JsonPath;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
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
        try (var writer = new EventWriter(TopicLayout.local(), "acme")) {
            writer.session(id).add(started(),
                    new AssistantMessage("two edits", null, List.of(new ToolCall("c1", "edit_file", "{\"path\":\"a\"}"),
                            new ToolCall("c2", "edit_file", "{\"path\":\"b\"}")), new TokenUsage(1, 1)),
                    new ApprovalRequested("c1", "edit_file", "--- a\n+++ a", null),
                    new ApprovalGranted("c1", ApprovalScope.SESSION, "edit_file", "**", "acme-approver", "fine"),
                    new ToolCallAuthorized("c1", AuthorizationBasis.approval(4)),
                    new ToolCallAuthorized("c2", AuthorizationBasis.approval(4)));
        }
        checkpointAt(id, 6);

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
                    new StepCompleted(1, "read it", true, null));
        }
        checkpointAt(id, 8);

        JsonPath report = given().auth().oauth2(AGENT).get("/v1/sessions/{id}/recovery", id).then().statusCode(200).extract().jsonPath();
        assertThat(report.getString("identity.modelId")).isEqualTo("claude-sonnet-4");
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
            while (partitions.stream().anyMatch(p -> consumer.position(p) < end.get(p))) {
                consumer.poll(Duration.ofMillis(200)).forEach(r -> {
                    if (r.value().getSessionId().equals(sessionId)) {
                        found.add(r.value());
                    }
                });
            }
        }
        return found;
    }
}
