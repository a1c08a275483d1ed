package dev.tether.projector.domain;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tether.core.event.AssistantMessage;
import dev.tether.core.event.AuthorizationBasis;
import dev.tether.core.event.CallRunner;
import dev.tether.core.event.HarnessTool;
import dev.tether.core.event.OutcomeResolution;
import dev.tether.core.event.SessionStarted;
import dev.tether.core.event.TokenUsage;
import dev.tether.core.event.ToolCall;
import dev.tether.core.event.ToolCallAuthorized;
import dev.tether.core.event.ToolCallStarted;
import dev.tether.core.event.ToolMode;
import dev.tether.core.event.ToolOutcomeResolved;
import dev.tether.core.event.ToolResult;
import dev.tether.core.event.ToolStatus;
import dev.tether.core.id.IdempotencyKey;
import dev.tether.projector.avro.CheckpointAvro;
import dev.tether.projector.domain.ProjectionTest.Script;
import dev.tether.projector.domain.RecoveryReport.HarnessCall;
import dev.tether.projector.domain.RecoveryReport.HarnessOutcome;
import dev.tether.projector.domain.SessionProjection.CallCursor;
import dev.tether.projector.domain.SessionProjection.CallState;
import dev.tether.projector.domain.SessionProjection.PendingAction;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The checkpoint and recovery report of harness-run calls (docs/ARCHITECTURE.md §6, "Harness-run tools"), as folds. */
class ProjectionHarnessRunTest {

    static final HarnessTool SEND = new HarnessTool("send_email", true, true, false);
    static final HarnessTool CHARGE = new HarnessTool("charge_card", true, false, false);
    static final HarnessTool SEARCH = new HarnessTool("web_search", false, false, true);

    static Script started() {
        return new Script().add(new SessionStarted("Send the report", "Be careful.", "model-x", "v1", ToolMode.WRITE, List.of(), null,
                null, List.of(SEND, CHARGE, SEARCH)));
    }

    static AssistantMessage asking(ToolCall... calls) {
        return new AssistantMessage("working", null, List.of(calls), new TokenUsage(1, 1));
    }

    static ToolCall call(String id, String tool) {
        return new ToolCall(id, tool, "{}");
    }

    static String key(long seq, String callId) {
        return IdempotencyKey.of(ProjectionTest.SESSION, seq, callId);
    }

    static CallCursor cursor(SessionProjection s, String callId) {
        return s.toolCursor().stream().filter(c -> c.callId().equals(callId)).findFirst().orElseThrow();
    }

    @Test
    void aHarnessRunCall_isRequestedAuthorizedStartedThenConfirmed_withItsRunnerAttemptAndEpochInTheCheckpoint() {
        Script s = started().add(asking(call("c1", "send_email")), new ToolCallAuthorized("c1", AuthorizationBasis.POLICY),
                new ToolCallStarted("c1", key(2, "c1"), 0, 1));

        CallCursor c = cursor(s.state, "c1");
        assertThat(s.state.harnessTools()).containsExactly(SEND, CHARGE, SEARCH);
        assertThat(c.runBy()).isEqualTo(CallRunner.HARNESS);
        assertThat(c.state()).isEqualTo(CallState.STARTED);
        assertThat(c.attempt()).isEqualTo(1);
        assertThat(c.startedEpoch()).isZero();
        assertThat(s.state.pendingAction()).isEqualTo(new PendingAction(PendingAction.Kind.TOOL_RESULT, "c1", 2));

        s.add(new ToolResult("c1", key(2, "c1"), ToolStatus.OK, "sent", null));
        assertThat(cursor(s.state, "c1").state()).isEqualTo(CallState.OK);
        assertThat(RecoveryReport.of(s.state).effects().harnessRun()).singleElement()
                .extracting(HarnessCall::outcome).isEqualTo(HarnessOutcome.CONFIRMED);
    }

    @Test
    void theRecoveryReport_listsEveryHarnessRunCall_asConfirmedUnknownOrNotStarted_andFlagsRecordedOnlyOnes() {
        Script s = started().add(
                asking(call("c1", "send_email"), call("c2", "charge_card"), call("c3", "web_search"), call("c4", "read_file"),
                        call("c5", "charge_card")),
                new ToolCallAuthorized("c1", AuthorizationBasis.POLICY), new ToolCallAuthorized("c2", AuthorizationBasis.POLICY),
                new ToolCallAuthorized("c4", AuthorizationBasis.POLICY), new ToolCallAuthorized("c5", AuthorizationBasis.POLICY),
                new ToolCallStarted("c1", key(2, "c1"), 0, 1), new ToolCallStarted("c5", key(2, "c5"), 0, 1),
                new ToolResult("c5", key(2, "c5"), ToolStatus.ERROR, "declined", null));

        RecoveryReport report = RecoveryReport.of(s.state);

        assertThat(report.effects().harnessRun()).extracting(HarnessCall::callId, HarnessCall::outcome, HarnessCall::recordedOnly,
                HarnessCall::exactlyOnce).containsExactly(
                org.assertj.core.groups.Tuple.tuple("c1", HarnessOutcome.UNKNOWN, false, true),
                org.assertj.core.groups.Tuple.tuple("c2", HarnessOutcome.NOT_STARTED, false, true),
                org.assertj.core.groups.Tuple.tuple("c3", HarnessOutcome.NOT_STARTED, true, false),
                org.assertj.core.groups.Tuple.tuple("c5", HarnessOutcome.CONFIRMED, false, true));
        assertThat(report.effects().unknown()).extracting(RecoveryReport.Call::callId).containsExactly("c1");
        assertThat(report.nextSafeActions()).containsExactly(
                "call c1 (send_email) started (attempt 1, epoch 0) and has no result: its outcome is unknown; do not run it again."
                        + " Reconcile it by its key " + key(2, "c1") + ": append the tool_result you find, or tool_outcome_resolved"
                        + " RETRY if it had no effect; if you cannot tell, append tool_result UNKNOWN with key " + key(2, "c1")
                        + " for a person to decide (mark done, retry or abandon)",
                "call c2 (charge_card) is authorized and not started: safe to run. Append tool_call_started (attempt 1, key "
                        + key(2, "c2") + ", your epoch), run it with that key, then append its tool_result",
                "report the result of recorded-only call c3 (web_search) with key " + key(2, "c3") + " when the harness has it;"
                        + " Tether gives it no exactly-once guarantee and no approval gate",
                "wait for the result of call c4 (read_file): the executor runs it once, keyed by " + key(2, "c4")
                        + "; do not issue it again");
    }

    @Test
    void aStartedCallOfAToolWithoutHook_isLeftToAPerson() {
        Script s = started().add(asking(call("c1", "charge_card")), new ToolCallAuthorized("c1", AuthorizationBasis.POLICY),
                new ToolCallStarted("c1", key(2, "c1"), 0, 1));

        assertThat(RecoveryReport.of(s.state).nextSafeActions()).singleElement().asString()
                .contains("Its tool has no reconciliation hook: append tool_result UNKNOWN with key " + key(2, "c1"));
    }

    @Test
    void aHarnessRetry_ofAStartedCall_authorizesItAgainUnderTheRetrysKey_andTheNextAttemptIsCountedOnce() {
        Script s = started().add(asking(call("c1", "send_email")), new ToolCallAuthorized("c1", AuthorizationBasis.POLICY),
                new ToolCallStarted("c1", key(2, "c1"), 0, 1), new ToolOutcomeResolved("c1", OutcomeResolution.RETRY, "agent-1", ""));

        CallCursor retried = cursor(s.state, "c1");
        assertThat(retried.state()).isEqualTo(CallState.AUTHORIZED);
        assertThat(retried.idempotencyKey()).isEqualTo(key(5, "c1"));
        assertThat(retried.attempt()).isEqualTo(1);

        s.add(new ToolCallStarted("c1", key(5, "c1"), 1, 2), new ToolResult("c1", key(5, "c1"), ToolStatus.OK, "sent", null));
        assertThat(cursor(s.state, "c1")).extracting(CallCursor::state, CallCursor::attempt, CallCursor::startedEpoch)
                .containsExactly(CallState.OK, 2, 1L);
        assertThat(s.state.callCounts()).isEqualTo(new SessionProjection.CallCounts(1, 0, 0, 0));
    }

    @Test
    void aCheckpointWithHarnessRunCalls_roundTripsThroughItsAvro() {
        Script s = started().add(asking(call("c1", "send_email"), call("c2", "web_search")),
                new ToolCallAuthorized("c1", AuthorizationBasis.POLICY), new ToolCallStarted("c1", key(2, "c1"), 0, 1));

        assertThat(CheckpointAvro.fromAvro(CheckpointAvro.toAvro(s.state))).isEqualTo(s.state);
        assertThat(CheckpointAvro.toAvro(s.state).getToolCursor().get(0).getState()).isEqualTo(dev.tether.avro.ToolCallState.STARTED);
    }
}
