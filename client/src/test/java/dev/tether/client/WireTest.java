package dev.tether.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tether.client.internal.Json;
import dev.tether.client.internal.MalformedAnswerException;
import dev.tether.client.internal.Wire;
import java.time.Instant;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The services' answers — the README's real outputs, and the approval-service's item shape — read into the SDK's records. */
class WireTest {

    @Test
    void appendAnswer_withADuplicate() {
        Appended a = Wire.appended(Json.parse("{\"appended\":[{\"eventId\":\"e1\",\"seq\":2,\"duplicate\":true}],\"lastSeq\":3,\"redactions\":1}"));
        assertThat(a.events()).containsExactly(new Appended.AppendedEvent("e1", 2, true));
        assertThat(a.lastSeq()).isEqualTo(3);
        assertThat(a.redactions()).isEqualTo(1);
    }

    @Test
    void aListAnswerWithoutItsList_isMalformed_neverAnEmptyList() {
        for (String answer : new String[] {"{}", "[1,2]", "{\"sessions\":{}}", "{\"sessions\":null}"}) {
            assertThatThrownBy(() -> Wire.sessions(Json.parse(answer))).as(answer).isInstanceOf(MalformedAnswerException.class)
                    .hasMessageContaining("sessions");
        }
        assertThatThrownBy(() -> Wire.approvals(Json.parse("{}"))).isInstanceOf(MalformedAnswerException.class);
        assertThatThrownBy(() -> Wire.versions(Json.parse("{\"version\":\"v1\"}"))).isInstanceOf(MalformedAnswerException.class);
        assertThatThrownBy(() -> Wire.page(Json.parse("{\"lastSeq\":3,\"nextSeq\":4}"))).isInstanceOf(MalformedAnswerException.class);
        assertThat(Wire.sessions(Json.parse("{\"sessions\":[]}"))).as("an empty list, said so").isEmpty();
    }

    @Test
    void claimAnswers_firstAndResumed() {
        Claimed first = Wire.claimed(Json.parse("{\"epoch\":1,\"resumed\":false,\"reason\":null,\"lastSeq\":4}"), "demo-1", "worker-a");
        assertThat(first).isEqualTo(new Claimed("demo-1", "worker-a", 1, Optional.empty(), 4));
        assertThat(first.resumed()).isFalse();
        assertThat(first.nextSeq()).isEqualTo(5);
        Claimed again = Wire.claimed(Json.parse("{\"epoch\":2,\"resumed\":true,\"reason\":\"CRASH\",\"lastSeq\":6}"), "demo-1", "worker-b");
        assertThat(again.resumeReason()).contains("CRASH");
        assertThat(again.resumed()).isTrue();
        assertThat(first.sessionStartedAt()).as("an earlier release's answer").isEmpty();
        assertThat(Wire.claimed(Json.parse("{\"epoch\":1,\"resumed\":false,\"reason\":null,\"lastSeq\":4,\"sessionStartedAt\":null}"),
                "demo-1", "worker-a").sessionStartedAt()).isEmpty();
        assertThat(Wire.claimed(Json.parse("{\"epoch\":1,\"resumed\":false,\"reason\":null,\"lastSeq\":4,"
                + "\"sessionStartedAt\":\"2026-12-06T00:30:00Z\"}"), "demo-1", "worker-a").sessionStartedAt())
                .contains(Instant.parse("2026-12-06T00:30:00Z"));
    }

    @Test
    void aForkAnswer_withItsBudgetAndStart_orWithoutThem() {
        Forked bounded = Wire.forked(Json.parse("{\"sessionId\":\"f-1\",\"parentSessionId\":\"p-1\",\"atSeq\":2,\"seq\":1,"
                + "\"harnessVersion\":\"v1\",\"modelId\":\"m\",\"tokenBudget\":700,\"sessionStartedAt\":\"2026-12-06T00:30:00.001Z\"}"));
        assertThat(bounded.tokenBudget()).hasValue(700);
        assertThat(bounded.sessionStartedAt()).contains(Instant.parse("2026-12-06T00:30:00.001Z"));
        Forked earlier = Wire.forked(Json.parse("{\"sessionId\":\"f-1\",\"parentSessionId\":\"p-1\",\"atSeq\":2,\"seq\":1,"
                + "\"harnessVersion\":\"v1\",\"modelId\":\"m\",\"tokenBudget\":null}"));
        assertThat(earlier).isEqualTo(new Forked("f-1", "p-1", 2, 1, "v1", "m"));
    }

    @Test
    void anEvent_keepsItsEnvelope_andEveryPayloadField() {
        SessionEvent e = Wire.event(Json.parse("{\"seq\":6,\"eventId\":\"d7c3ebe5-48f9-347a-8a76-e96db8508fdb\",\"type\":\"session_resumed\","
                + "\"sessionId\":\"demo-1\",\"occurredAt\":\"2026-11-29T10:16:00.986Z\",\"actor\":{\"kind\":\"SYSTEM\",\"id\":\"acme-agent\"},"
                + "\"harnessVersion\":\"v1\",\"reason\":\"CRASH\",\"fromSeq\":4,\"reconciliation\":\"open tool calls: call-1 (read_file, requested)\"}"));
        assertThat(e.seq()).isEqualTo(6);
        assertThat(e.type()).isEqualTo("session_resumed");
        assertThat(e.occurredAt()).isEqualTo(Instant.parse("2026-11-29T10:16:00.986Z"));
        assertThat(e.actor()).isEqualTo(new Actor("SYSTEM", "acme-agent"));
        assertThat(e.text("reason")).contains("CRASH");
        assertThat(e.longField("fromSeq")).hasValue(4);
        assertThat(e.text("nothing")).isEmpty();
        e.json().put("reason", "changed through a copy");
        assertThat(e.text("reason")).contains("CRASH");
    }

    @Test
    void checkpoint_fromTheReadme() {
        Checkpoint c = Wire.checkpoint(Json.parse("""
                {"sessionId":"demo-1","tenantId":"acme","schemaVersion":2,"lastSeq":5,"owner":"acme-agent",
                 "objective":"Rename Foo to Bar in src/","constraints":["keep the tests green"],"modelId":"claude-sonnet-4",
                 "harnessVersion":"v1","toolMode":"WRITE","status":"ACTIVE","step":0,
                 "usedTokens":{"inputTokens":812,"outputTokens":40},"tokenBudget":200000,
                 "pendingAction":{"kind":"tool_result","callId":"call-1","sinceSeq":5},
                 "toolCursor":[{"callId":"call-1","tool":"read_file","requestSeq":5,"idempotencyKey":"demo-1/5/call-1","state":"REQUESTED","awaitingApproval":false}],
                 "plan":[{"text":"rename the class","status":"IN_PROGRESS"},{"text":"fix the callers","status":"PENDING"}],
                 "progress":{"lastVerifiedStep":0,"stepsCompleted":0},"approvals":[],
                 "position":{"partition":1,"firstOffset":0,"lastOffset":6},
                 "lease":{"workerId":"worker-a","epoch":1,"harnessVersion":"v1","claimedAt":"2026-11-29T11:15:51.387Z"},
                 "decisions":[],"artifacts":[],"callCounts":{"ok":0,"error":0,"cancelled":0,"unknown":0},"updatedAt":"2026-11-29T11:15:51.643Z"}
                """));
        assertThat(c.lastSeq()).isEqualTo(5);
        assertThat(c.status()).isEqualTo("ACTIVE");
        assertThat(c.usedTokens()).isEqualTo(new TokenUsage(812, 40));
        assertThat(c.tokenBudget()).hasValue(200000);
        assertThat(c.pendingAction()).contains(new Checkpoint.PendingAction("tool_result", Optional.of("call-1"), 5));
        assertThat(c.call("call-1")).hasValueSatisfying(call -> {
            assertThat(call.state()).isEqualTo("REQUESTED");
            assertThat(call.idempotencyKey()).isEqualTo("demo-1/5/call-1");
            assertThat(call.resultSeq()).isEmpty();
        });
        assertThat(c.plan()).containsExactly(PlanItem.inProgress("rename the class"), PlanItem.pending("fix the callers"));
        assertThat(c.lease()).hasValueSatisfying(l -> assertThat(l.epoch()).isEqualTo(1));
        assertThat(c.progress().lastNote()).isEmpty();
        assertThat(Json.parse(c.json()).get("position").get("partition").asInt()).isEqualTo(1);
    }

    @Test
    void contexts_inBothFormats() {
        ModelContext openai = Wire.context(Json.parse("{\"format\":\"openai\",\"messages\":[{\"role\":\"system\",\"content\":\"You are a careful engineer.\"},"
                + "{\"role\":\"user\",\"content\":\"Rename Foo to Bar in src/\"}],\"stablePrefixSize\":5,\"tokens\":298,\"tokenizer\":\"o200k_base\","
                + "\"window\":200000,\"compactionAdvised\":false,\"atSeq\":5}"));
        assertThat(openai.system()).isEmpty();
        assertThat(openai.messages()).hasSize(2);
        assertThat(openai.messages().get(0).get("role").asText()).isEqualTo("system");
        assertThat(openai.tokens()).isEqualTo(298);
        assertThat(openai.droppedEvents()).isZero();

        ModelContext anthropic = Wire.context(Json.parse("{\"format\":\"anthropic\",\"system\":\"You are a careful engineer.\",\"messages\":["
                + "{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"Rename Foo to Bar in src/\"}]}],\"stablePrefixSize\":1,"
                + "\"tokens\":308,\"tokenizer\":\"o200k_base\",\"window\":200000,\"compactionAdvised\":true,\"atSeq\":5,\"droppedEvents\":3}"));
        assertThat(anthropic.system()).contains("You are a careful engineer.");
        assertThat(anthropic.compactionAdvised()).isTrue();
        assertThat(anthropic.droppedEvents()).isEqualTo(3);
    }

    @Test
    void recoveryReport_fromTheReadme() {
        RecoveryReport r = Wire.recovery(Json.parse("""
                {"identity":{"sessionId":"demo-1","tenantId":"acme","owner":"acme-agent","modelId":"claude-sonnet-4","harnessVersion":"v1","epoch":2,"workerId":"worker-b"},
                 "position":{"lastSeq":7,"step":0,"lastVerifiedStep":0,"status":"RECOVERING","lastNote":null},
                 "effects":{"confirmed":[],"cancelled":[],"unknown":[],
                            "inFlight":[{"callId":"call-1","tool":"read_file","state":"REQUESTED","requestSeq":5,"resultSeq":null,"idempotencyKey":"demo-1/5/call-1"}],
                            "totals":{"ok":0,"error":0,"cancelled":0,"unknown":0}},
                 "authority":{"approvalsInForce":[{"grantSeq":9,"tool":"edit_file","pathGlob":"src/**","approver":"acme-approver"}],"pendingApprovals":[]},
                 "nextSafeActions":["call call-1 (read_file) waits for authorization; do not run it before tool_call_authorized"]}
                """));
        assertThat(r.identity().workerId()).contains("worker-b");
        assertThat(r.position().status()).isEqualTo("RECOVERING");
        assertThat(r.effects().inFlight()).singleElement()
                .isEqualTo(new RecoveryReport.Call("call-1", "read_file", "REQUESTED", 5, java.util.OptionalLong.empty(), "demo-1/5/call-1"));
        assertThat(r.authority().approvalsInForce()).containsExactly(new RecoveryReport.Grant(9, "edit_file", Optional.of("src/**"), "acme-approver"));
        assertThat(r.nextSafeActions()).hasSize(1);
    }

    @Test
    void harnessVersions_fromTheReadme() {
        var versions = Wire.versions(Json.parse("{\"versions\":[{\"version\":\"v1\",\"weight\":0,\"share\":100.0,\"state\":\"ACTIVE\","
                + "\"default\":true,\"openSessions\":1},"
                + "{\"version\":\"v2\",\"weight\":0,\"share\":0.0,\"state\":\"DRAINING\",\"modelId\":\"m2\",\"openSessions\":0}]}"));
        assertThat(versions).containsExactly(new HarnessVersion("v1", 0, "ACTIVE", true, Optional.empty(), 1, 100),
                new HarnessVersion("v2", 0, "DRAINING", false, Optional.of("m2"), 0, 0));
        assertThat(versions.get(1).drained()).isTrue();
        assertThat(versions.get(0).drained()).isFalse();
    }

    @Test
    void approvalItems_pendingAndDecided() {
        Approval pending = Wire.approval(Json.parse("""
                {"id":"demo-1~7","kind":"APPROVAL","status":"PENDING","sessionId":"demo-1","callId":"call-2","tool":"edit_file",
                 "arguments":{"path":"src/Foo.java"},"shown":"--- a/src/Foo.java\\n+++ b/src/Foo.java","seq":7,"requestSeq":6,
                 "requestedAt":"2026-11-29T11:20:00Z","requestedBy":"acme-agent","model":"claude-sonnet-4","expiresAt":"2026-11-29T12:20:00Z",
                 "decisions":["GRANT_ONCE","GRANT_SESSION","DENY"],"suggestedPathGlob":"src/**","runBy":"EXECUTOR"}
                """));
        assertThat(pending.isPending()).isTrue();
        assertThat(pending.runBy()).contains("EXECUTOR");
        assertThat(pending.argumentsJson()).isEqualTo("{\"path\":\"src/Foo.java\"}");
        assertThat(pending.decisions()).containsExactly("GRANT_ONCE", "GRANT_SESSION", "DENY");
        assertThat(pending.expiresAt()).contains(Instant.parse("2026-11-29T12:20:00Z"));
        assertThat(pending.decision()).isEmpty();

        Approval granted = Wire.approval(Json.parse("""
                {"id":"demo-1~7","kind":"APPROVAL","status":"GRANTED","sessionId":"demo-1","callId":"call-2","tool":"edit_file",
                 "arguments":{"path":"src/Foo.java"},"shown":"diff","seq":7,"requestSeq":6,"requestedAt":"2026-11-29T11:20:00Z",
                 "requestedBy":"acme-agent","model":"claude-sonnet-4",
                 "decision":{"decision":"GRANT_SESSION","approver":"acme-approver","reason":"ok","tool":"edit_file","pathGlob":"src/**","seq":8,
                             "decidedAt":"2026-11-29T11:21:00Z"}}
                """));
        assertThat(granted.isPending()).isFalse();
        assertThat(granted.runBy()).isEmpty();
        assertThat(granted.decision()).hasValueSatisfying(d -> {
            assertThat(d.decision()).isEqualTo("GRANT_SESSION");
            assertThat(d.pathGlob()).contains("src/**");
            assertThat(d.seq()).isEqualTo(8);
        });
    }

    @Test
    void callRecord_withItsEvents() {
        CallRecord r = Wire.callRecord(Json.parse("""
                {"sessionId":"demo-1","callId":"call-1","tool":"read_file","argumentsJson":"{}","requestSeq":5,"idempotencyKey":"demo-1/5/call-1",
                 "authorizedSeq":6,"basis":"POLICY","approval":null,"resultSeq":null,"resultStatus":null,"traceId":"abc",
                 "attempts":[{"attempt":1,"state":"STARTED","executorId":"x","startedAt":"2026-11-29T11:20:00Z","finishedAt":null}],
                 "requestedBy":{"seq":5,"eventId":"e5","type":"assistant_message","sessionId":"demo-1","content":"go"}}
                """));
        assertThat(r.authorizedSeq()).hasValue(6);
        assertThat(r.resultSeq()).isEmpty();
        assertThat(r.attempts()).singleElement().satisfies(a -> assertThat(a.finishedAt()).isEmpty());
        assertThat(r.requestedBy()).hasValueSatisfying(e -> assertThat(e.seq()).isEqualTo(5));
        assertThat(r.result()).isEmpty();
    }
}
