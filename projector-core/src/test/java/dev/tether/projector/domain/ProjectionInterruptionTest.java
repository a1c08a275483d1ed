package dev.tether.projector.domain;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tether.core.event.ApprovalRequested;
import dev.tether.core.event.AuthorizationBasis;
import dev.tether.core.event.ToolCallAuthorized;
import dev.tether.core.event.ToolResult;
import dev.tether.core.event.ToolStatus;
import dev.tether.core.event.TurnInterrupted;
import dev.tether.projector.domain.ProjectionTest.Script;
import dev.tether.projector.domain.SessionProjection.Status;
import dev.tether.core.event.AssistantMessage;
import dev.tether.core.event.HarnessTool;
import dev.tether.core.event.ResumeReason;
import dev.tether.core.event.SessionClaimed;
import dev.tether.core.event.SessionResumed;
import dev.tether.core.event.SessionStarted;
import dev.tether.core.event.TokenUsage;
import dev.tether.core.event.ToolCall;
import dev.tether.core.event.ToolMode;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * An interrupted turn, as the sequencer accepts its orders: the checkpoint keeps the interruption whether its calls waited
 * for an approver or not, and the recovery report never tells a worker to start a call the interruption cut off.
 */
class ProjectionInterruptionTest {

    /**
     * The approval-service answers every call of an interrupted turn that is not yet authorized CANCELLED
     * (docs/ARCHITECTURE.md §6 item 5, §7). Whether the call was waiting for an approver or for its authorization, the log
     * then says the same thing: the turn was interrupted and nothing resumed it. The checkpoint must say INTERRUPTED in
     * both cases, and the recovery report must tell the worker to re-issue the interrupted turn.
     */
    @Test
    void anInterruptionWhileAnApprovalIsPending_isKeptOnceTheCallIsCancelled() {
        // the control: the call was not gated
        Script plain = Script.started().add(ProjectionTest.asking(10, 5, ProjectionTest.call("c1", "edit_file")),
                new TurnInterrupted("partial", "user pressed stop"),
                new ToolResult("c1", "s-1/2/c1", ToolStatus.CANCELLED, "interrupted", null));
        assertThat(plain.state.status()).isEqualTo(Status.INTERRUPTED);

        // the same, with the call waiting for an approver when the user interrupted
        Script gated = Script.started().add(ProjectionTest.asking(10, 5, ProjectionTest.call("c1", "edit_file")),
                new ApprovalRequested("c1", "edit_file", "--- a/Foo\n+++ b/Foo", null),
                new TurnInterrupted("partial", "user pressed stop"),
                new ToolResult("c1", "s-1/2/c1", ToolStatus.CANCELLED, "interrupted", null));

        assertThat(gated.state.status()).isEqualTo(Status.INTERRUPTED);
        assertThat(RecoveryReport.of(gated.state).nextSafeActions())
                .anySatisfy(a -> assertThat(a).contains("re-issue the interrupted model turn"));
    }

    /** An authorized call of the interrupted turn, cancelled by the executor: the control the gated case must match. */
    @Test
    void anInterruptionOfAnAuthorizedCall_isKept() {
        Script s = Script.started().add(ProjectionTest.asking(10, 5, ProjectionTest.call("c1", "run_command")),
                new ToolCallAuthorized("c1", AuthorizationBasis.POLICY),
                new TurnInterrupted("partial", "stop"),
                new ToolResult("c1", "s-1/2/c1", ToolStatus.CANCELLED, "killed", null));
        assertThat(s.state.status()).isEqualTo(Status.INTERRUPTED);
    }

    /**
     * A harness-run call authorized and not started when its turn is interrupted must never start (docs/ARCHITECTURE.md
     * §6 "Interruption and context"; the sequencer refuses its tool_call_started: SessionHead.interrupted). Until the
     * approval-service appends its CANCELLED (it may be down: that is when a worker reads the report), the recovery
     * report tells the resuming worker not to run it.
     */
    @Test
    void anAuthorizedHarnessCallOfAnInterruptedTurn_isNotReportedSafeToRun() {
        var script = new Script().add(new SessionStarted("Find the ticket", "", "model-x", "v1", ToolMode.WRITE, List.of(), null, null,
                List.of(new HarnessTool("charge_card", true, true, false))));
        script.add(new AssistantMessage("charging", null, List.of(new ToolCall("c1", "charge_card", "{}")), new TokenUsage(1, 1)),
                new ToolCallAuthorized("c1", AuthorizationBasis.POLICY),
                new TurnInterrupted("", "user pressed stop"));

        assertThat(script.state.status()).isEqualTo(Status.INTERRUPTED);
        assertThat(RecoveryReport.of(script.state).nextSafeActions())
                .noneSatisfy(a -> assertThat(a).contains("safe to run"))
                .anySatisfy(a -> assertThat(a).contains("call c1 (charge_card)", "do not run it"));
    }

    /**
     * The worker that ran the interrupted turn crashed, and another claims the session: its claim appends
     * {@code session_resumed}, which is no message, so the turn is still interrupted (the sequencer still refuses to start
     * its calls) and the report the resuming worker reads must still say so.
     */
    @Test
    void aResumeAfterAnInterruption_keepsItInterrupted_andTheReportStillForbidsItsAuthorizedHarnessCall() {
        var script = new Script().add(new SessionStarted("Find the ticket", "", "model-x", "v1", ToolMode.WRITE, List.of(), null, null,
                List.of(new HarnessTool("charge_card", true, true, false))));
        script.add(new SessionClaimed("w-1", 1, "v1"),
                new AssistantMessage("charging", null, List.of(new ToolCall("c1", "charge_card", "{}")), new TokenUsage(1, 1)),
                new ToolCallAuthorized("c1", AuthorizationBasis.POLICY),
                new TurnInterrupted("", "user pressed stop"),
                new SessionClaimed("w-2", 2, "v1"),
                new SessionResumed(ResumeReason.CRASH, 5, "open tool calls: c1 (charge_card, run by the harness, authorized, not started)"));

        assertThat(script.state.status()).isEqualTo(Status.INTERRUPTED);
        assertThat(RecoveryReport.of(script.state).nextSafeActions())
                .noneSatisfy(a -> assertThat(a).contains("safe to run"))
                .anySatisfy(a -> assertThat(a).contains("call c1 (charge_card)", "do not run it"))
                .anySatisfy(a -> assertThat(a).contains("re-issue the interrupted model turn"));
    }
}
