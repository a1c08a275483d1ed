package dev.tether.kit.json;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tether.core.blob.BlobRef;
import dev.tether.core.event.Actor;
import dev.tether.core.event.ActorKind;
import dev.tether.core.event.ApprovalDenied;
import dev.tether.core.event.ApprovalScope;
import dev.tether.core.event.AssistantMessage;
import dev.tether.core.event.ContextCompacted;
import dev.tether.core.event.Event;
import dev.tether.core.event.EventPayload;
import dev.tether.core.event.FrameworkState;
import dev.tether.core.event.InvalidEventException;
import dev.tether.core.event.SessionForked;
import dev.tether.core.event.SessionStarted;
import dev.tether.core.event.SubagentResult;
import dev.tether.core.event.TokenUsage;
import dev.tether.core.event.ToolCall;
import dev.tether.core.event.ToolMode;
import dev.tether.core.event.ToolResult;
import dev.tether.core.event.ToolStatus;
import dev.tether.core.event.UnknownEvent;
import dev.tether.core.event.UserMessage;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class EventJsonTest {

    private final EventJson json = new EventJson();

    private JsonNode parse(String text) throws Exception {
        return json.mapper().readTree(text);
    }

    @Test
    void readsAProposal_intoItsTypedPayload() throws Exception {
        var p = json.readProposal(parse("""
                {"eventId":"e1","type":"assistant_message","content":"reading",
                 "toolCalls":[{"callId":"c1","tool":"read_file","argumentsJson":"{}"}],
                 "usage":{"inputTokens":10,"outputTokens":2}}"""));

        assertThat(p.eventId()).isEqualTo("e1");
        assertThat(p.payload()).isEqualTo(new AssistantMessage("reading", null, List.of(new ToolCall("c1", "read_file", "{}")),
                new TokenUsage(10, 2)));
    }

    @Test
    void refuses_namingTheField() throws Exception {
        assertField("{\"eventId\":\"e\",\"type\":\"user_message\"}", "content");
        assertField("{\"eventId\":\"e\",\"type\":\"user_message\",\"content\":42}", "content");
        assertField("{\"eventId\":\"e\",\"type\":\"user_message\",\"content\":true}", "content");
        assertField("{\"eventId\":\"e\",\"type\":\"user_message\",\"content\":\"x\",\"extra\":1}", InvalidEventException.WHOLE);
        assertField("{\"eventId\":\"e\",\"type\":\"assistant_message\",\"content\":\"x\",\"usage\":{\"inputTokens\":1,\"outputTokens\":1,\"tokens\":1}}", "usage");
        assertField("{\"eventId\":\"e\",\"type\":\"step_completed\",\"step\":\"3\",\"note\":\"n\",\"verified\":true}", "step");
        assertField("{\"eventId\":\"e\",\"type\":\"step_completed\",\"step\":1.5,\"note\":\"n\",\"verified\":true}", "step");
        assertField("{\"eventId\":\"e\",\"type\":\"step_completed\",\"step\":1,\"note\":\"n\",\"verified\":\"yes\"}", "verified");
        assertField("{\"eventId\":\"e\",\"type\":\"assistant_message\",\"content\":\"x\",\"toolCalls\":[{\"tool\":\"t\"}]}",
                "toolCalls[0].callId");
        assertField("{\"eventId\":\"e\",\"type\":\"tool_result\",\"callId\":\"c\",\"status\":\"MAYBE\",\"content\":\"\"}", "status");
        // a number is not the enum constant of that ordinal (1 read as ERROR before)
        assertField("{\"eventId\":\"e\",\"type\":\"tool_result\",\"callId\":\"c\",\"status\":1,\"content\":\"\"}", "status");
        assertField("{\"eventId\":\"e\",\"type\":\"approval_granted\",\"callId\":\"c\",\"scope\":0,\"approver\":\"a\"}", "scope");
        assertField("{\"eventId\":\"e\",\"type\":\"teleport\"}", "type");
        assertField("{\"type\":\"user_message\",\"content\":\"x\"}", "eventId");
        assertField("{\"eventId\":\"e\",\"type\":\"tool_result\",\"callId\":\"c\",\"status\":\"OK\",\"content\":\"\","
                + "\"artifact\":{\"uri\":\"u\",\"sha256\":\"s\",\"size\":1,\"preview\":\"\"}}", "artifact");
        // a field of a nested record, named once by its path (not basis.basis.approvalSeq)
        assertField("{\"eventId\":\"e\",\"type\":\"tool_call_authorized\",\"callId\":\"c\",\"basis\":{\"kind\":\"APPROVAL\"}}",
                "basis.approvalSeq");
        assertField("{\"eventId\":\"e\",\"type\":\"tool_call_authorized\",\"callId\":\"c\",\"basis\":{}}", "basis.kind");
    }

    @Test
    void readsADeclarationOfHarnessTools_andAToolCallStarted_andRefusesABadDeclaration_namingTheField() throws Exception {
        var p = json.readProposal(parse("""
                {"eventId":"e1","type":"session_started","objective":"o","systemPrompt":"","modelId":"m","harnessVersion":"v1",
                 "toolMode":"WRITE","harnessTools":[{"name":"send_email","mutating":true,"canReconcile":true,"recordedOnly":false}]}"""));
        assertThat(((SessionStarted) p.payload()).harnessTools())
                .containsExactly(new dev.tether.core.event.HarnessTool("send_email", true, true, false));
        assertThat(json.readProposal(parse("""
                {"eventId":"e2","type":"tool_call_started","callId":"c1","idempotencyKey":"s/3/c1","epoch":2,"attempt":1}""")).payload())
                .isEqualTo(new dev.tether.core.event.ToolCallStarted("c1", "s/3/c1", 2, 1));
        assertThat(json.readProposal(parse("""
                {"eventId":"e3","type":"tool_call_started","callId":"c1","idempotencyKey":"s/3/c1","epoch":2,"attempt":1,
                 "externalKey":"s/3/c1~1796119200000"}""")).payload())
                .isEqualTo(new dev.tether.core.event.ToolCallStarted("c1", "s/3/c1", 2, 1, "s/3/c1~1796119200000"));

        String start = "{\"eventId\":\"e\",\"type\":\"session_started\",\"objective\":\"o\",\"systemPrompt\":\"\","
                + "\"modelId\":\"m\",\"harnessVersion\":\"v1\",\"toolMode\":\"READ_ONLY\",\"harnessTools\":";
        var plain = new dev.tether.core.event.Event("e1", "s1", "acme", 1, java.time.Instant.parse("2026-12-01T10:00:00Z"),
                new dev.tether.core.event.Actor(dev.tether.core.event.ActorKind.USER, "a"), "v1",
                new SessionStarted("o", "", "m", "v1", dev.tether.core.event.ToolMode.WRITE, List.of(), null, null));
        assertThat(json.write(plain).has("harnessTools")).as("none declared: written as before the field").isFalse();
        assertThat(json.readEvent(json.write(plain), "acme")).isEqualTo(plain);
        var declared = new dev.tether.core.event.Event("e1", "s1", "acme", 1, plain.occurredAt(), plain.actor(), "v1",
                new SessionStarted("o", "", "m", "v1", dev.tether.core.event.ToolMode.WRITE, List.of(), null, null,
                        List.of(new dev.tether.core.event.HarnessTool("send_email", true, true, false))));
        assertThat(json.readEvent(json.write(declared), "acme")).isEqualTo(declared);

        assertField(start + "[{\"name\":\"send_email\",\"mutating\":true,\"canReconcile\":false,\"recordedOnly\":false}]}",
                "harnessTools[0].mutating");
        assertField(start + "[{\"name\":\"a\",\"mutating\":false,\"canReconcile\":false,\"recordedOnly\":false},{\"name\":\"a\",\"mutating\":false,\"canReconcile\":false,\"recordedOnly\":false}]}", "harnessTools[1].name");
        assertField(start + "[{\"name\":\"a\",\"canReconcile\":false,\"recordedOnly\":false}]}", "harnessTools[0].mutating");
        assertField(start + "[{\"name\":\"\",\"mutating\":false,\"canReconcile\":false,\"recordedOnly\":false}]}", "harnessTools[0].name");
        assertField(start + "[{\"name\":\"a\",\"mutating\":false,\"canReconcile\":true,\"recordedOnly\":true}]}", "harnessTools[0].canReconcile");
        assertField(start + "[{\"name\":\"a\",\"mutating\":\"yes\",\"canReconcile\":false,\"recordedOnly\":false}]}", "harnessTools[0].mutating");
        assertField("{\"eventId\":\"e\",\"type\":\"tool_call_started\",\"callId\":\"c\",\"idempotencyKey\":\"k\",\"epoch\":0,"
                + "\"attempt\":0}", "attempt");
    }

    @Test
    void aMissingOrNullNumberOrBoolean_isRequired_whileOneOfTheWrongType_hasTheWrongType_namingTheFieldEitherWay() throws Exception {
        String step = "{\"eventId\":\"e\",\"type\":\"step_completed\",\"note\":\"n\"";
        assertRefused(step + ",\"step\":1}", "verified", "is required");
        assertRefused(step + ",\"step\":1,\"verified\":null}", "verified", "is required");
        assertRefused(step + ",\"verified\":true}", "step", "is required");
        assertRefused(step + ",\"step\":1,\"verified\":\"yes\"}", "verified", "has the wrong type or shape");
        assertRefused(step + ",\"step\":[1],\"verified\":true}", "step", "has the wrong type or shape");
        String started = "{\"eventId\":\"e\",\"type\":\"tool_call_started\",\"callId\":\"c\",\"idempotencyKey\":\"k\"";
        assertRefused(started + ",\"attempt\":1}", "epoch", "is required");
        assertRefused(started + ",\"epoch\":1}", "attempt", "is required");
        assertRefused("{\"eventId\":\"e\",\"type\":\"assistant_message\",\"content\":\"x\",\"usage\":{\"inputTokens\":1}}",
                "usage.outputTokens", "is required");
        String start = "{\"eventId\":\"e\",\"type\":\"session_started\",\"objective\":\"o\",\"systemPrompt\":\"\","
                + "\"modelId\":\"m\",\"harnessVersion\":\"v1\",\"toolMode\":\"WRITE\",\"harnessTools\":";
        assertRefused(start + "[{\"name\":\"a\",\"mutating\":false,\"canReconcile\":false}]}", "harnessTools[0].recordedOnly",
                "is required");
        assertRefused(start + "[{\"name\":\"a\",\"mutating\":false,\"canReconcile\":false,\"recordedOnly\":null}]}",
                "harnessTools[0].recordedOnly", "is required");
    }

    @Test
    void readsAFrameworkState_andRefusesEachBadField_namingIt() throws Exception {
        var p = json.readProposal(parse("""
                {"eventId":"e1","type":"framework_state","framework":"langgraph","kind":"checkpoint","key":"[\\"\\",\\"cp-1\\"]",
                 "content":"{\\"v\\":1,\\"channel_versions\\":{\\"messages\\":2}}"}"""));
        assertThat(p.payload()).isEqualTo(new FrameworkState("langgraph", "checkpoint", "[\"\",\"cp-1\"]",
                "{\"v\":1,\"channel_versions\":{\"messages\":2}}"));

        String state = "{\"eventId\":\"e\",\"type\":\"framework_state\",";
        assertField(state + "\"framework\":\"LangGraph\",\"kind\":\"checkpoint\",\"key\":\"k\",\"content\":\"{}\"}", "framework");
        assertField(state + "\"kind\":\"checkpoint\",\"key\":\"k\",\"content\":\"{}\"}", "framework");
        assertField(state + "\"framework\":\"langgraph\",\"kind\":\"check point\",\"key\":\"k\",\"content\":\"{}\"}", "kind");
        assertField(state + "\"framework\":\"langgraph\",\"kind\":\"checkpoint\",\"key\":\"a\\nb\",\"content\":\"{}\"}", "key");
        assertField(state + "\"framework\":\"langgraph\",\"kind\":\"checkpoint\",\"key\":\"\",\"content\":\"{}\"}", "key");
        assertField(state + "\"framework\":\"langgraph\",\"kind\":\"checkpoint\",\"key\":\"k\",\"content\":\"{v:1}\"}", "content");
        // JSON's escapes have ASCII hex digits: Jackson and JSON.parse read no other, nor would secret scrubbing
        assertField(state + "\"framework\":\"langgraph\",\"kind\":\"checkpoint\",\"key\":\"k\",\"content\":\"\\\"\\\\u\uFF10\uFF10\uFF14\uFF11\\\"\"}", "content");
        assertThat(json.readProposal(parse(state + "\"framework\":\"langgraph\",\"kind\":\"checkpoint\",\"key\":\"k\","
                + "\"content\":\"\\\"\\\\u0041\\\"\"}")).payload()).isEqualTo(new FrameworkState("langgraph", "checkpoint", "k", "\"\\u0041\""));
        assertField(state + "\"framework\":\"langgraph\",\"kind\":\"checkpoint\",\"key\":\"k\"}", "content");
        assertField(state + "\"framework\":\"langgraph\",\"kind\":\"checkpoint\",\"key\":\"k\",\"content\":{\"v\":1}}", "content");
        assertField(state + "\"framework\":\"langgraph\",\"kind\":\"checkpoint\",\"key\":\"k\",\"content\":\"{}\","
                + "\"artifact\":{\"uri\":\"u\",\"sha256\":\"s\",\"size\":1,\"preview\":\"\"}}", "artifact");
    }

    @Test
    void aClientsDenial_isAnApproversDenial_andCannotSayItExpired() throws Exception {
        var p = json.readProposal(parse("""
                {"eventId":"e1","type":"approval_denied","callId":"c1","scope":"ONCE","approver":"alice","reason":"no"}"""));

        assertThat(p.payload()).isEqualTo(ApprovalDenied.byApprover("c1", ApprovalScope.ONCE, null, null, "alice", "no"));
        for (String expired : List.of("true", "false", "null")) {
            assertField("{\"eventId\":\"e\",\"type\":\"approval_denied\",\"callId\":\"c1\",\"scope\":\"ONCE\","
                    + "\"approver\":\"alice\",\"reason\":\"no\",\"expired\":" + expired + "}", "expired");
        }
    }

    @Test
    void anUnknownField_isRefusedNamingItsObject_neverAPartOfItsName_evenWhenTheNameHoldsDots() throws Exception {
        String jwt = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhbGljZSJ9.c2lnbmF0dXJl";
        String message = "\"eventId\":\"e\",\"type\":\"assistant_message\",\"content\":\"x\"";

        for (String[] sent : new String[][] {
                {"{" + message + ",\"" + jwt + "\":1}", InvalidEventException.WHOLE},
                {"{" + message + ",\"usage\":{\"inputTokens\":1,\"outputTokens\":1,\"" + jwt + "\":1}}", "usage"},
                {"{" + message + ",\"toolCalls\":[{\"callId\":\"c1\",\"tool\":\"t\",\"argumentsJson\":\"{}\",\"" + jwt + "\":1}]}",
                        "toolCalls[0]"}}) {
            var refused = catchThrowableOfType(InvalidEventException.class, () -> json.readProposal(parse(sent[0])));

            assertThat(refused).as(sent[0]).isNotNull();
            assertThat(refused.field()).as(sent[0]).isEqualTo(sent[1]);
            assertThat(refused.getMessage()).as(sent[0]).doesNotContain("eyJ");
        }
    }

    /** A request with an instant, as {@code AppendEvents.sessionStartedAt}. */
    record Dated(Instant at) {}

    @Test
    void anInstant_isAnIsoInstantThatMillisecondsCount_andAnythingElseIsRefusedNamingIt() throws Exception {
        assertThat(json.read(parse("{\"at\":\"2026-12-06T12:00:00.123Z\"}"), Dated.class).at())
                .isEqualTo(Instant.parse("2026-12-06T12:00:00.123Z"));
        assertThat(json.read(parse("{\"at\":null}"), Dated.class).at()).isNull();

        // a number is no instant (nor is text of one: seconds or milliseconds?), and Avro stores an instant as a long of
        // milliseconds, which one past the year 292,278,994 does not fit (a 500 when the command was written)
        for (String at : List.of("1796119200000", "1796119200.5", "\"1796119200\"", "\"+999999999-12-31T23:59:59Z\"",
                "\"2026-12-06\"", "\"\"", "true")) {
            var refused = catchThrowableOfType(InvalidEventException.class, () -> json.read(parse("{\"at\":" + at + "}"), Dated.class));

            assertThat(refused).as(at).isNotNull();
            assertThat(refused.field()).as(at).isEqualTo("at");
        }
    }

    @Test
    void aDenial_isWrittenWithItsExpiredFlag_andReadBack_andOneWrittenBeforeTheFieldHasNone() {
        for (Boolean expired : Arrays.asList(true, false, null)) {
            var event = new Event("e4", "s1", "acme", 4, Instant.parse("2026-11-29T10:00:00Z"), new Actor(ActorKind.SYSTEM,
                    "approval-service"), "v1", new ApprovalDenied("c1", ApprovalScope.ONCE, null, null, "approval-service", "late", expired));

            var node = json.write(event);

            assertThat(node.has("expired")).as("expired " + expired).isEqualTo(expired != null);
            if (expired != null) {
                assertThat(node.get("expired").isBoolean()).isTrue();
                assertThat(node.get("expired").booleanValue()).isEqualTo(expired);
            }
            assertThat(json.readEvent(node, "acme")).isEqualTo(event);
        }
    }

    @Test
    void writesTheEnvelopeThenThePayload() {
        EventPayload payload = new UserMessage("hello", null);
        var event = new Event("e1", "s1", "acme", 7, Instant.parse("2026-11-29T10:00:00Z"), new Actor(ActorKind.USER, "alice"), "v1",
                payload);

        var node = json.write(event);

        assertThat(node.toString()).isEqualTo("{\"seq\":7,\"eventId\":\"e1\",\"type\":\"user_message\",\"sessionId\":\"s1\","
                + "\"occurredAt\":\"2026-11-29T10:00:00Z\",\"actor\":{\"kind\":\"USER\",\"id\":\"alice\"},\"harnessVersion\":\"v1\","
                + "\"content\":\"hello\"}");
    }

    @Test
    void readsBackWhatItWrites_forTheTenantItIsGiven() {
        Instant at = Instant.parse("2026-11-29T10:00:00Z");
        var actor = new Actor(ActorKind.MODEL, "worker-1");
        List<EventPayload> payloads = List.of(
                new SessionForked("parent-1", 3, "fix the bug", "be brief", "gpt-4o", "v1", ToolMode.WRITE, List.of("no force push")),
                new SessionForked("parent-1", 3, "fix the bug", "be brief", "gpt-4o", "v1", ToolMode.WRITE, List.of(), List.of(), "e3",
                        Instant.parse("2026-11-29T09:59:00.123Z")),
                new SessionForked("parent-1", 3, "fix the bug", "be brief", "gpt-4o", "v1", ToolMode.WRITE, List.of(), List.of(), "e3",
                        Instant.parse("2026-11-29T09:59:00.123Z"), 700L),
                new AssistantMessage("calling", null, List.of(new ToolCall("c1", "shell", "{\"cmd\":\"ls\"}")), new TokenUsage(10, 2)),
                new ToolResult("c1", "s1/4/c1", ToolStatus.OK, "", BlobRef.of("a".repeat(64), 1, "")),
                new ContextCompacted(4, "so far", null, List.of(1L, 2L, 3L, 4L)),
                new FrameworkState("langgraph", "checkpoint", "cp-1", "{\"v\":1}"),
                new FrameworkState("langgraph", "writes", "cp-1", "[{\"task", BlobRef.of("c".repeat(64), 90_000, "[{\"task")),
                new SessionStarted("o", "", "m", "v1", ToolMode.READ_ONLY, List.of(), 100L, "parent-1", List.of(),
                        Instant.parse("2026-11-29T09:00:00.007Z")),
                new SubagentResult("child-1", "done", Instant.parse("2026-11-29T09:00:00.007Z")),
                new UnknownEvent("from_a_newer_version"));
        long seq = 1;
        for (EventPayload payload : payloads) {
            var event = new Event("e" + seq, "s1", "acme", seq++, at, actor, "v1", payload);

            assertThat(json.readEvent(json.write(event), "acme")).isEqualTo(event);
        }
    }

    @Test
    void anEventsTraceId_isWrittenAfterItsEnvelope_readBack_andNeverTakenFromAClient() throws Exception {
        String traceId = "4bf92f3577b34da6a3ce929d0e0e4736";
        var traced = new Event("e1", "s1", "acme", 7, Instant.parse("2026-11-29T10:00:00Z"), new Actor(ActorKind.USER, "alice"), "v1",
                new UserMessage("hello", null), traceId);

        var node = json.write(traced);

        assertThat(node.toString()).isEqualTo("{\"seq\":7,\"eventId\":\"e1\",\"type\":\"user_message\",\"sessionId\":\"s1\","
                + "\"occurredAt\":\"2026-11-29T10:00:00Z\",\"actor\":{\"kind\":\"USER\",\"id\":\"alice\"},\"harnessVersion\":\"v1\","
                + "\"traceId\":\"" + traceId + "\",\"content\":\"hello\"}");
        assertThat(json.readEvent(node, "acme")).isEqualTo(traced);
        assertThat(json.write(traced.withTraceId(null)).has("traceId")).as("none recorded: no field").isFalse();
        node.put("traceId", "not-a-trace-id");
        assertThat(json.readEvent(node, "acme").traceId()).as("another instance's malformed trace id reads as none").isNull();
        assertField("{\"eventId\":\"e1\",\"type\":\"user_message\",\"content\":\"hi\",\"traceId\":\"" + traceId + "\"}", "traceId");
        assertThatThrownBy(() -> traced.withTraceId("0".repeat(32))).isInstanceOf(InvalidEventException.class);
    }

    private void assertRefused(String text, String field, String message) throws Exception {
        JsonNode node = parse(text);
        assertThatThrownBy(() -> json.readProposal(node)).as(text)
                .isInstanceOfSatisfying(InvalidEventException.class, e -> {
                    assertThat(e.field()).isEqualTo(field);
                    assertThat(e.getMessage()).contains(message);
                });
    }

    private void assertField(String text, String field) throws Exception {
        JsonNode node = parse(text);
        assertThatThrownBy(() -> json.readProposal(node)).as(text)
                .isInstanceOf(InvalidEventException.class)
                .extracting(e -> ((InvalidEventException) e).field()).isEqualTo(field);
    }
}
