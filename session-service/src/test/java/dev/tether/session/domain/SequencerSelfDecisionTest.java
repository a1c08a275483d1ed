package dev.tether.session.domain;

import static dev.tether.session.domain.Given.AGENT;
import static dev.tether.session.domain.Given.APPROVER;
import static dev.tether.session.domain.Given.SERVICE;
import static dev.tether.session.domain.Given.SESSION;
import static dev.tether.session.domain.Given.V1;
import static dev.tether.session.domain.Given.approvalRequested;
import static dev.tether.session.domain.Given.asking;
import static dev.tether.session.domain.Given.authorizedByPolicy;
import static dev.tether.session.domain.Given.call;
import static dev.tether.session.domain.Given.denied;
import static dev.tether.session.domain.Given.granted;
import static dev.tether.session.domain.Given.principal;
import static dev.tether.session.domain.Given.resolved;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tether.core.auth.Role;
import dev.tether.core.auth.TetherPrincipal;
import dev.tether.core.event.OutcomeResolution;
import dev.tether.core.event.ToolCallStarted;
import dev.tether.core.event.ToolResult;
import dev.tether.core.event.ToolStatus;
import dev.tether.core.id.IdempotencyKey;
import dev.tether.session.domain.Decision.Rejected;
import dev.tether.session.domain.Given.World;
import java.util.LinkedHashMap;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.api.Test;

/**
 * Nobody decides to run their own call (docs/ARCHITECTURE.md §7), in the sequencer too: the principal whose
 * {@code assistant_message} asked for a call may deny it or abandon its unknown outcome, but a grant, MARK_DONE or RETRY
 * of it appended straight to the session-service is refused, whatever the principal's roles; the asker is in the head
 * ({@code OpenCall.requestedBy}), a fold of the log.
 */
class SequencerSelfDecisionTest {

    /** The agent's own principal, given the approver role too (a token with both, or an admin that approves). */
    private static final TetherPrincipal AGENT_AND_APPROVER = principal(AGENT.id(), Role.AGENT, Role.APPROVER);

    private static World awaitingApproval() {
        World w = World.started();
        w.accept(w.append(AGENT_AND_APPROVER, asking(call("c1"))));
        w.accept(w.append(SERVICE, approvalRequested("c1")));
        return w;
    }

    private static World unknownOutcome() {
        World w = World.started();
        w.accept(w.append(AGENT_AND_APPROVER, asking(call("c1"))));
        w.accept(w.append(SERVICE, authorizedByPolicy("c1")));
        w.accept(w.append(SERVICE, new ToolResult("c1", IdempotencyKey.of(SESSION, 2, "c1"), ToolStatus.UNKNOWN, "timed out", null)));
        return w;
    }

    private static void assertSelfDecision(Rejected r, String decision) {
        assertThat(r.reason()).isEqualTo(Rejection.FORBIDDEN);
        assertThat(r.field()).isEqualTo("events[0].approver");
        assertThat(r.message()).contains("asked for call 'c1' itself (the assistant_message at seq 2)", "may not " + decision);
    }

    @Test
    void theHead_keepsWhoAskedForEachCall_asTheLogSaysIt() {
        World w = awaitingApproval();

        assertThat(w.head.openCalls().get("c1").requestedBy()).isEqualTo(AGENT.id());
        assertThat(Given.fold(w.log)).isEqualTo(w.head);
    }

    @Test
    void theAsker_mayNotGrantItsOwnCall_butMayDenyIt() {
        World w = awaitingApproval();

        assertSelfDecision(w.reject(w.append(AGENT_AND_APPROVER, granted("c1", AGENT.id()))), "grant");
        assertThat(w.head.openCalls().get("c1").approval()).isEqualTo(SessionHead.Approval.REQUESTED);

        w.accept(w.append(AGENT_AND_APPROVER, denied("c1", AGENT.id())));
        assertThat(w.head.openCalls().get("c1").approval()).isEqualTo(SessionHead.Approval.DENIED);
    }

    @Test
    void anotherApprover_grantsIt() {
        World w = awaitingApproval();

        w.accept(w.append(APPROVER, granted("c1", APPROVER.id())));

        assertThat(w.head.openCalls().get("c1").approval()).isEqualTo(SessionHead.Approval.GRANTED);
    }

    @ParameterizedTest
    @EnumSource(value = OutcomeResolution.class, names = {"MARK_DONE", "RETRY"})
    void theAsker_mayNotMarkItsOwnUnknownOutcomeDone_norRetryIt(OutcomeResolution resolution) {
        World w = unknownOutcome();

        assertSelfDecision(w.reject(w.append(AGENT_AND_APPROVER, resolved("c1", resolution, AGENT.id()))),
                resolution == OutcomeResolution.RETRY ? "retry" : "mark done");
        assertThat(w.head.openCalls().get("c1").outcomeUnknown()).isTrue();

        w.accept(w.append(APPROVER, resolved("c1", resolution, APPROVER.id())));
    }

    @Test
    void theAsker_mayAbandonItsOwnUnknownOutcome() {
        World w = unknownOutcome();

        w.accept(w.append(AGENT_AND_APPROVER, resolved("c1", OutcomeResolution.ABANDON, AGENT.id())));

        assertThat(w.head.openCalls()).doesNotContainKey("c1");
    }

    @Test
    void aCallInAHeadStoredBeforeAskersWereKept_mayBeDecidedByAnyApprover_asBefore() {
        World w = awaitingApproval();
        var calls = new LinkedHashMap<>(w.head.openCalls());
        SessionHead.OpenCall c1 = calls.get("c1");
        calls.put("c1", new SessionHead.OpenCall(c1.tool(), c1.requestSeq(), c1.approval(), c1.authorized(), c1.outcomeUnknown(),
                c1.runBy(), c1.attempts(), c1.running(), c1.retrySeq(), null));
        w.head = w.head.withOpenCalls(calls);

        w.accept(w.append(AGENT_AND_APPROVER, granted("c1", AGENT.id())));

        assertThat(w.head.openCalls().get("c1").approval()).isEqualTo(SessionHead.Approval.GRANTED);
    }

    /**
     * A harness that is an approver too still reconciles its own harness-run call by the harness's rule (RETRY of an
     * attempt that had no effect, in its epoch): that is not a decision on an unknown outcome.
     */
    @Test
    void aHarnessThatIsAnApproverToo_retriesItsOwnStartedAttempt_asAHarness() {
        World w = World.started(SESSION, SequencerHarnessRunTest.startedWithHarnessTools());
        w.accept(w.append(AGENT_AND_APPROVER, asking(call("c1", "send_email"))));
        w.accept(w.append(SERVICE, authorizedByPolicy("c1")));
        w.accept(w.claim(AGENT_AND_APPROVER, "worker-1", V1, false));
        w.accept(SequencerHarnessRunTest.fenced(w, AGENT_AND_APPROVER, 1,
                new ToolCallStarted("c1", SequencerHarnessRunTest.KEY, 1, 1)));

        w.accept(SequencerHarnessRunTest.fenced(w, AGENT_AND_APPROVER, 1, resolved("c1", OutcomeResolution.RETRY, AGENT.id())));

        assertThat(w.head.openCalls().get("c1").retrySeq()).isEqualTo(w.head.lastSeq());
    }
}
