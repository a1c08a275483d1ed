package dev.tether.session.domain;

import static dev.tether.session.domain.Given.AGENT;
import static dev.tether.session.domain.Given.APPROVER;
import static dev.tether.session.domain.Given.MODEL;
import static dev.tether.session.domain.Given.SERVICE;
import static dev.tether.session.domain.Given.SESSION;
import static dev.tether.session.domain.Given.V1;
import static dev.tether.session.domain.Given.approvalRequested;
import static dev.tether.session.domain.Given.asking;
import static dev.tether.session.domain.Given.authorizedByPolicy;
import static dev.tether.session.domain.Given.call;
import static dev.tether.session.domain.Given.denied;
import static dev.tether.session.domain.Given.interrupted;
import static dev.tether.session.domain.Given.resolved;
import static dev.tether.session.domain.Given.unknownResult;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tether.core.event.HarnessTool;
import dev.tether.core.event.OutcomeResolution;
import dev.tether.core.event.ProposedEvent;
import dev.tether.core.event.SessionStarted;
import dev.tether.core.event.ToolCallStarted;
import dev.tether.core.event.ToolMode;
import dev.tether.core.event.ToolResult;
import dev.tether.core.event.ToolStatus;
import dev.tether.core.id.IdempotencyKey;
import dev.tether.session.domain.Decision.Rejected;
import dev.tether.session.domain.Given.World;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The tool-call lifecycle's corners: unknown outcomes of calls never authorized, and retries after an interruption. */
class SequencerToolLifecycleTest {

    // --- an UNKNOWN outcome for a call that was never authorized -------------------------------------------------------

    /**
     * A call that was never authorized never ran, so its outcome cannot be unknown: an agent's UNKNOWN for a gated
     * executor call an approver denied (before the approval-service's ERROR lands) is refused. Taken, it made the call an
     * unknown-outcome item, whose RETRY authorized a denied call without a grant.
     */
    @Test
    void anAgentMayNotReportAnUnknownOutcome_forAnExecutorCallThatWasNeverAuthorized_soADenialCannotBeTurnedIntoARetry() {
        World w = World.started();
        w.accept(w.append(AGENT, asking(call("c1", "run_command"))));
        w.accept(w.append(SERVICE, approvalRequested("c1", "run_command")));
        w.accept(w.append(APPROVER, denied("c1", APPROVER.id())));
        assertThat(w.head.openCalls().get("c1").approval()).isEqualTo(SessionHead.Approval.DENIED);

        Decision d = w.apply(w.append(AGENT, unknownResult("c1")));
        if (d instanceof Decision.Accepted) {
            // what the fault leads to: an approver's RETRY authorizes the denied call
            w.apply(w.append(APPROVER, resolved("c1", OutcomeResolution.RETRY, APPROVER.id())));
            assertThat(w.head.openCalls().get("c1").authorized())
                    .as("a denied call authorized by a RETRY of an outcome the agent made up").isFalse();
        }
        assertThat(d).as("UNKNOWN result for a call never authorized").isInstanceOf(Rejected.class);
        assertThat(((Rejected) d).field()).isEqualTo("events[0].callId");
    }

    @Test
    void anAgentMayNotReportAnUnknownOutcome_forACallStillWaitingForItsApprover() {
        World w = World.started();
        w.accept(w.append(AGENT, asking(call("c1", "run_command"))));
        w.accept(w.append(SERVICE, approvalRequested("c1", "run_command")));

        Rejected r = w.reject(w.append(AGENT, unknownResult("c1")));

        assertThat(r.reason()).isEqualTo(Rejection.ILLEGAL_EVENT);
        // and the pending approval is still decidable as it was
        w.accept(w.append(APPROVER, Given.granted("c1", APPROVER.id())));
    }

    /** The legitimate path is kept: an authorized call's outcome may be unknown (the executor's, after a start). */
    @Test
    void anUnknownOutcome_ofAnAuthorizedExecutorCall_isStillTaken() {
        World w = World.started();
        w.accept(w.append(AGENT, asking(call("c1"))));
        w.accept(w.append(SERVICE, authorizedByPolicy("c1")));

        w.accept(w.append(SERVICE, unknownResult("c1")));

        assertThat(w.head.openCalls().get("c1").outcomeUnknown()).isTrue();
    }

    // --- a RETRY a person asks for after the interruption is a request of its own: also for a harness-run call ---------

    static final HarnessTool SEND = new HarnessTool("send_email", true, true, false);

    /**
     * docs/ARCHITECTURE.md §6 item 5: a call's turn is interrupted when a turn_interrupted comes after the event in its
     * key, the assistant_message or the RETRY decision, so a retry asked for after the interruption is a request of its
     * own, as the executor, the approval-service and the SDKs (HarnessCallFold) take it: the harness may start it.
     */
    @Test
    void aHarnessRunCallRetriedByAnApproverAfterTheInterruption_mayStartItsNextAttempt() {
        World w = World.started(SESSION, new SessionStarted("send the report", "You are careful.", MODEL, V1, ToolMode.WRITE,
                List.of(), null, null, List.of(SEND)));
        w.accept(w.append(AGENT, asking(call("c1", "send_email"))));              // 2
        w.accept(w.append(SERVICE, authorizedByPolicy("c1")));                    // 3
        String key1 = IdempotencyKey.of(SESSION, 2, "c1");
        w.accept(fenced(w, 0, new ToolCallStarted("c1", key1, 0, 1)));           // 4: runs
        w.accept(w.append(AGENT, interrupted()));                                // 5: the harness's to finish
        w.accept(fenced(w, 0, new ToolResult("c1", key1, ToolStatus.UNKNOWN, "cannot tell", null))); // 6
        long retrySeq = w.accept(w.append(APPROVER, resolved("c1", OutcomeResolution.RETRY, APPROVER.id()))).events().get(0).seq();
        assertThat(retrySeq).isEqualTo(7);

        String key2 = IdempotencyKey.of(SESSION, retrySeq, "c1");
        Decision start = w.apply(fenced(w, 0, new ToolCallStarted("c1", key2, 0, 2)));

        assertThat(start).as("the start of the attempt a person asked for after the interruption").isInstanceOf(Decision.Accepted.class);
        w.accept(fenced(w, 0, new ToolResult("c1", key2, ToolStatus.OK, "sent", null)));
        assertThat(w.head.openCalls()).isEmpty();
    }

    /** ... while an interruption after the RETRY still cuts the retried attempt off. */
    @Test
    void aHarnessRunCallRetried_thenInterrupted_mayNotStart() {
        World w = World.started(SESSION, new SessionStarted("send the report", "You are careful.", MODEL, V1, ToolMode.WRITE,
                List.of(), null, null, List.of(SEND)));
        w.accept(w.append(AGENT, asking(call("c1", "send_email"))));
        w.accept(w.append(SERVICE, authorizedByPolicy("c1")));
        String key1 = IdempotencyKey.of(SESSION, 2, "c1");
        w.accept(fenced(w, 0, new ToolCallStarted("c1", key1, 0, 1)));
        w.accept(fenced(w, 0, new ToolResult("c1", key1, ToolStatus.UNKNOWN, "cannot tell", null)));
        long retrySeq = w.accept(w.append(APPROVER, resolved("c1", OutcomeResolution.RETRY, APPROVER.id()))).events().get(0).seq();
        w.accept(w.append(AGENT, interrupted()));

        Rejected r = w.reject(fenced(w, 0, new ToolCallStarted("c1", IdempotencyKey.of(SESSION, retrySeq, "c1"), 0, 2)));

        assertThat(r.message()).contains("interrupted");
    }

    private static CommandEnvelope fenced(World w, long epoch, dev.tether.core.event.EventPayload payload) {
        return w.appendEvents(AGENT, null, epoch, new ProposedEvent[] {w.ev(AGENT, payload)});
    }
}
