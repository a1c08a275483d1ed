package dev.tether.projector.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tether.core.event.ApprovalScope;
import dev.tether.core.event.ToolStatus;
import dev.tether.kit.json.EventJson;
import dev.tether.projector.domain.CallRecord;
import dev.tether.projector.domain.SessionProjection;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/**
 * The JSON the projector keeps in its call store and serves over REST, byte for byte as earlier releases wrote it:
 * a stored record of the previous release must still read, and clients parse what is served.
 */
class StoredAndServedJsonTest {

    private static final Instant T = Instant.parse("2026-11-29T10:00:00Z");

    private static CallRecord call() {
        return CallRecord.requested("s1", "c1", "edit_file", "{}", 2)
                .decided(new CallRecord.Approval(3, CallRecord.Approval.Decision.GRANTED, ApprovalScope.SESSION, "alice", "fine", T))
                .authorized(4, "approval at seq 3", "trace-1")
                .attempt(new CallRecord.Attempt(1, "OK", "executor-1", T, T.plusSeconds(1)))
                .finished(5, ToolStatus.OK);
    }

    private static final String CALL_JSON = "{\"sessionId\":\"s1\",\"callId\":\"c1\",\"tool\":\"edit_file\",\"argumentsJson\":\"{}\","
            + "\"requestSeq\":2,\"idempotencyKey\":\"s1/2/c1\",\"authorizedSeq\":4,\"basis\":\"approval at seq 3\","
            + "\"approval\":{\"seq\":3,\"decision\":\"granted\",\"scope\":\"SESSION\",\"approver\":\"alice\",\"reason\":\"fine\","
            + "\"decidedAt\":\"2026-11-29T10:00:00Z\"},\"resultSeq\":5,\"resultStatus\":\"OK\",\"traceId\":\"trace-1\","
            + "\"attempts\":[{\"attempt\":1,\"state\":\"OK\",\"executorId\":\"executor-1\",\"startedAt\":\"2026-11-29T10:00:00Z\","
            + "\"finishedAt\":\"2026-11-29T10:00:01Z\"}]}";

    @Test
    void aCallRecord_isStoredAsBefore_withItsVersion_andReadsBack() {
        var format = ProjectorStoreFormats.CALLS;

        byte[] stored = format.serialize("calls", call());

        assertThat(new String(stored, StandardCharsets.UTF_8)).isEqualTo("{\"version\":1," + CALL_JSON.substring(1));
        assertThat(format.deserialize("calls", stored)).isEqualTo(call());
        assertThat(new String(format.writing(0).serialize("calls", call()), StandardCharsets.UTF_8)).isEqualTo(CALL_JSON);
        assertThat(format.deserialize("calls", CALL_JSON.getBytes(StandardCharsets.UTF_8))).isEqualTo(call());
    }

    @Test
    void aCallRecord_isServedAsBefore() {
        assertThat(new EventJson().mapper().valueToTree(call()).toString()).isEqualTo(CALL_JSON);
    }

    @Test
    void aDenial_isStoredAsBefore() {
        var denied = new CallRecord.Approval(3, CallRecord.Approval.Decision.DENIED, ApprovalScope.ONCE, "bob", "no", T);

        CallRecord c = call();
        var deniedCall = new CallRecord(c.sessionId(), c.callId(), c.tool(), c.argumentsJson(), c.requestSeq(), c.idempotencyKey(),
                c.authorizedSeq(), c.basis(), denied, c.resultSeq(), c.resultStatus(), c.traceId(), c.attempts());

        assertThat(new String(ProjectorStoreFormats.CALLS.serialize("calls", deniedCall), StandardCharsets.UTF_8))
                .contains("{\"seq\":3,\"decision\":\"denied\",\"scope\":\"ONCE\",\"approver\":\"bob\",\"reason\":\"no\","
                        + "\"decidedAt\":\"2026-11-29T10:00:00Z\"}");
    }

    @Test
    void aPendingAction_isServedAsBefore() {
        for (SessionProjection.PendingAction.Kind kind : SessionProjection.PendingAction.Kind.values()) {
            var pending = new SessionProjection.PendingAction(kind, "c1", 2);

            assertThat(new EventJson().mapper().valueToTree(pending).toString())
                    .isEqualTo("{\"kind\":\"" + kind.wireName() + "\",\"callId\":\"c1\",\"sinceSeq\":2}");
        }
        assertThat(Arrays.stream(SessionProjection.PendingAction.Kind.values()).map(SessionProjection.PendingAction.Kind::wireName))
                .containsExactly("approval", "tool_result", "human_decision", "model_turn");
    }
}
