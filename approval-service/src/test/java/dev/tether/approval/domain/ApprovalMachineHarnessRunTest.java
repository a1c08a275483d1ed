package dev.tether.approval.domain;

import static dev.tether.approval.domain.Story.AGENT_ACTOR;
import static dev.tether.approval.domain.Story.ALICE;
import static dev.tether.approval.domain.Story.SESSION;
import static dev.tether.approval.domain.Story.asking;
import static dev.tether.approval.domain.Story.call;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tether.approval.domain.SessionApprovals.Stage;
import dev.tether.core.event.Actor;
import dev.tether.core.event.ActorKind;
import dev.tether.core.event.ApprovalRequested;
import dev.tether.core.event.AuthorizationBasis;
import dev.tether.core.event.CallRunner;
import dev.tether.core.event.HarnessTool;
import dev.tether.core.event.OutcomeResolution;
import dev.tether.core.event.ProposedEvent;
import dev.tether.core.event.SessionForked;
import dev.tether.core.event.SessionStarted;
import dev.tether.core.event.ToolCallAuthorized;
import dev.tether.core.event.ToolCallStarted;
import dev.tether.core.event.ToolMode;
import dev.tether.core.event.ToolOutcomeResolved;
import dev.tether.core.event.ToolResult;
import dev.tether.core.event.ToolStatus;
import dev.tether.core.event.TurnInterrupted;
import dev.tether.core.policy.GatingPolicy;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The approval machine and harness-run calls (docs/ARCHITECTURE.md §6, "Harness-run tools"): the policy applies to them
 * as to executor calls (without a registry: the tool is the harness's), recorded-only calls get no answer, and an
 * interruption cancels those not started, authorized or not, once.
 */
class ApprovalMachineHarnessRunTest {

    static final HarnessTool SEND = new HarnessTool("send_email", true, true, false);
    static final HarnessTool LOOKUP = new HarnessTool("crm_lookup", false, false, false);
    static final HarnessTool SEARCH = new HarnessTool("web_search", true, false, true);
    static final Actor HARNESS = new Actor(ActorKind.TOOL, "acme-agent");

    static Story started(GatingPolicy policy) {
        return new Story(policy).append(AGENT_ACTOR, new SessionStarted("send the report", "be careful", "model-x", "v1", ToolMode.WRITE,
                List.of(), null, null, List.of(SEND, LOOKUP, SEARCH)));
    }

    static Story started() {
        return started(GatingPolicy.defaults());
    }

    @Test
    void aReadOnlyHarnessTool_isAuthorizedByPolicy_withoutARegistryCheck() {
        Story story = started().append(asking(call("c1", "crm_lookup", "{\"id\":7}")));

        assertThat(story.state.calls().get("c1").runBy()).isEqualTo(CallRunner.HARNESS);
        assertThat(story.only().payload()).isEqualTo(new ToolCallAuthorized("c1", AuthorizationBasis.POLICY));
    }

    @Test
    void aMutatingHarnessTool_waitsForAnApprover_whoSeesTheCallAsWritten_andTheGrantAuthorizesIt() {
        Story story = started().append(asking(call("c1", "send_email", "{\"to\":\"cfo@acme.example\"}")));

        ApprovalRequested requested = (ApprovalRequested) story.only().payload();
        assertThat(requested.shown()).isEqualTo("run by the session's harness: send_email {\"to\":\"cfo@acme.example\"}");
        story.acceptAnswers();
        assertThat(story.pending("c1").tool()).isEqualTo("send_email");

        var grant = ApprovalMachine.decide(story.state, story.pending("c1").seq(), new DecisionRequest(DecisionKind.GRANT_ONCE, null, null,
                "ok"), ALICE);
        story.accept(((Verdict.Append) grant).event());
        assertThat(story.only().payload()).isInstanceOf(ToolCallAuthorized.class);
    }

    @Test
    void aSessionGrantWithAPathGlob_onAHarnessRunCall_isRefusedNamingPathGlob_forItWouldCoverNoneOfItsCalls() {
        Story story = started().append(asking(call("c1", "send_email", "{\"to\":\"cfo@acme.example\"}")));
        story.acceptAnswers();
        long seq = story.pending("c1").seq();
        assertThat(story.state.runBy("c1")).as("no glob is suggested for it (ItemJson)").isEqualTo(CallRunner.HARNESS);

        var refused = ApprovalMachine.decide(story.state, seq, new DecisionRequest(DecisionKind.GRANT_SESSION, null, "reports/**", "ok"),
                ALICE);

        assertThat(refused).isInstanceOfSatisfying(Verdict.Refused.class, r -> {
            assertThat(r.reason()).isEqualTo(Verdict.Refusal.INVALID);
            assertThat(r.field()).isEqualTo("pathGlob");
            assertThat(r.message()).contains("'send_email' is run by the session's harness").contains("grant the session without one");
        });
        var granted = ApprovalMachine.decide(story.state, seq, new DecisionRequest(DecisionKind.GRANT_SESSION, null, null, "ok"), ALICE);
        story.accept(((Verdict.Append) granted).event());
        assertThat(story.only().payload()).isInstanceOf(ToolCallAuthorized.class);
        story.acceptAnswers();
        // without a glob the grant covers the tool's next call
        assertThat(story.append(asking(call("c2", "send_email", "{\"to\":\"ceo@acme.example\"}"))).only().payload())
                .isInstanceOfSatisfying(ToolCallAuthorized.class, a -> assertThat(a.basis().kind()).isEqualTo(AuthorizationBasis.Kind.APPROVAL));
    }

    @Test
    void theTenantsGatingPerMode_appliesToHarnessTools() {
        var none = GatingPolicy.of("write_file", Map.of(), Set.of("write_file"), "none", Map.of());
        var all = GatingPolicy.of("write_file", Map.of(), Set.of("write_file"), "none", Map.of("acme.WRITE", "all"));

        assertThat(started(none).append(asking(call("c1", "send_email", "{}"))).only().payload()).isInstanceOf(ToolCallAuthorized.class);
        assertThat(started(all).append(asking(call("c1", "crm_lookup", "{}"))).only().payload()).isInstanceOf(ApprovalRequested.class);
    }

    @Test
    void aHarnessRunCallsArguments_areCutForTheApprover_sayingWhereTheRestIs() {
        String big = "{\"body\":\"" + "x".repeat(ApprovalMachine.HARNESS_SHOWN_MAX) + "\"}";

        var shown = ((ApprovalRequested) started().append(asking(call("c1", "send_email", big))).only().payload()).shown();

        assertThat(shown).hasSizeLessThan(ApprovalMachine.HARNESS_SHOWN_MAX + 200).endsWith("the whole call is in its assistant_message)");
    }

    @Test
    void aRecordedOnlyCall_getsNoAnswer_andAnInterruptionLeavesItToItsHarness() {
        Story story = started().append(asking(call("c1", "web_search", "{}"), call("c2", "crm_lookup", "{}")));

        assertThat(story.answers).extracting(ProposedEvent::payload).containsExactly(new ToolCallAuthorized("c2", AuthorizationBasis.POLICY));
        assertThat(story.state.calls().get("c1").runBy()).isEqualTo(CallRunner.RECORDED);
        story.append(new TurnInterrupted("", "stop"));
        assertThat(story.answers).as("c2's authorization was not in the log yet: cancelled; c1 is its harness's")
                .extracting(a -> ((ToolResult) a.payload()).callId()).containsExactly("c2");
        story.append(HARNESS, new ToolResult("c1", SESSION + "/2/c1", ToolStatus.OK, "3 hits", null));
        assertThat(story.state.calls()).doesNotContainKey("c1");
    }

    @Test
    void underARecordedOnlyWildcard_aCallOfAnyUndeclaredTool_getsNoAnswer_notEvenTheRegistrysError_whileNamedToolsAreAnswered() {
        Story story = new Story(GatingPolicy.defaults()).append(AGENT_ACTOR, new SessionStarted("send the report", "", "model-x", "v1",
                ToolMode.WRITE, List.of(), null, null, List.of(new HarnessTool("*", false, false, true), LOOKUP, SEND)));

        story.append(asking(call("c1", "some_unknown_tool", "{}"), call("c2", "run_command", "{\"command\":\"rm -rf /\"}"),
                call("c3", "crm_lookup", "{}"), call("c4", "send_email", "{}")));

        assertThat(story.state.calls().get("c1").runBy()).isEqualTo(CallRunner.RECORDED);
        assertThat(story.state.calls().get("c2").runBy()).as("a built-in, gated tool's name too").isEqualTo(CallRunner.RECORDED);
        assertThat(story.answers).extracting(a -> a.payload().getClass().getSimpleName() + " " + callOf(a.payload()))
                .containsExactly("ToolCallAuthorized c3", "ApprovalRequested c4");
        story.acceptAnswers();
        story.append(HARNESS, new ToolResult("c1", SESSION + "/2/c1", ToolStatus.OK, "found", null));
        assertThat(story.answers).as("the harness's result of c1 is answered with nothing").isEmpty();
        assertThat(story.state.calls()).doesNotContainKey("c1");
    }

    @Test
    void underANonRecordedWildcard_anUndeclaredCall_isGatedByItsOwnName_andByWhatTheWildcardSays() {
        Story readOnly = new Story(GatingPolicy.defaults()).append(AGENT_ACTOR, new SessionStarted("o", "", "model-x", "v1",
                ToolMode.WRITE, List.of(), null, null, List.of(new HarnessTool("*", false, false, false))));
        readOnly.append(asking(call("c1", "some_unknown_tool", "{}"), call("c2", "run_command", "{}")));
        assertThat(readOnly.state.calls().get("c1").runBy()).isEqualTo(CallRunner.HARNESS);
        assertThat(readOnly.answers).extracting(ProposedEvent::payload).containsExactly(
                new ToolCallAuthorized("c1", AuthorizationBasis.POLICY),
                new ApprovalRequested("c2", "run_command", "run by the session's harness: run_command {}", null));

        Story mutating = new Story(GatingPolicy.defaults()).append(AGENT_ACTOR, new SessionStarted("o", "", "model-x", "v1",
                ToolMode.WRITE, List.of(), null, null, List.of(new HarnessTool("*", true, false, false))));
        mutating.append(asking(call("c1", "some_unknown_tool", "{\"a\":1}")));
        assertThat(((ApprovalRequested) mutating.only().payload()).shown())
                .isEqualTo("run by the session's harness: some_unknown_tool {\"a\":1}");
    }

    private static String callOf(dev.tether.core.event.EventPayload payload) {
        if (payload instanceof ToolCallAuthorized a) {
            return a.callId();
        }
        if (payload instanceof ApprovalRequested r) {
            return r.callId();
        }
        return ((ToolResult) payload).callId();
    }

    @Test
    void anInterruption_cancelsAnAuthorizedHarnessRunCallNotStarted_once_withItsKey() {
        Story story = started().append(asking(call("c1", "crm_lookup", "{}"))).acceptAnswers();
        assertThat(story.state.calls().get("c1").stage()).isEqualTo(Stage.AUTHORIZED);

        story.append(new TurnInterrupted("", "stop"));

        ProposedEvent cancel = story.only();
        assertThat(cancel.eventId()).isEqualTo(ApprovalMachine.cancelledId(SESSION, "c1"));
        assertThat(cancel.payload()).isInstanceOfSatisfying(ToolResult.class, r -> {
            assertThat(r.status()).isEqualTo(ToolStatus.CANCELLED);
            assertThat(r.idempotencyKey()).isEqualTo(SESSION + "/2/c1");
            assertThat(r.content()).contains("before its harness started it").contains("nothing was run");
        });
        story.accept(cancel);
        assertThat(story.state.calls()).isEmpty();
        assertThat(story.answers).isEmpty();
    }

    @Test
    void anInterruption_leavesAStartedHarnessRunCallToItsHarness_asAnExecutorCallIsLeftToTheExecutor() {
        Story story = started().append(asking(call("c1", "crm_lookup", "{}"))).acceptAnswers();
        story.append(HARNESS, new ToolCallStarted("c1", SESSION + "/2/c1", 0, 1));
        assertThat(story.state.calls().get("c1").stage()).isEqualTo(Stage.STARTED);

        story.append(new TurnInterrupted("", "stop"));

        assertThat(story.answers).isEmpty();
    }

    @Test
    void anInterruption_cancelsAHarnessRunCallWaitingForAnApprover_asAnyCall() {
        Story story = started().append(asking(call("c1", "send_email", "{}"))).acceptAnswers();

        story.append(new TurnInterrupted("", "stop"));

        assertThat(story.only().eventId()).isEqualTo(ApprovalMachine.cancelledId(SESSION, "c1"));
    }

    @Test
    void aStartedCallReportedUnknown_becomesAnItemForAnApprover_andAHarnessRetryAuthorizesItAgain() {
        Story story = started().append(asking(call("c1", "crm_lookup", "{}"), call("c2", "crm_lookup", "{}"))).acceptAnswers();
        story.append(HARNESS, new ToolCallStarted("c1", SESSION + "/2/c1", 0, 1));
        story.append(HARNESS, new ToolResult("c1", SESSION + "/2/c1", ToolStatus.UNKNOWN, "the worker died", null));
        assertThat(story.pending("c1").kind()).isEqualTo(ApprovalItem.Kind.UNKNOWN_OUTCOME);

        story.append(HARNESS, new ToolCallStarted("c2", SESSION + "/2/c2", 0, 1));
        story.append(HARNESS, new ToolOutcomeResolved("c2", OutcomeResolution.RETRY, "acme-agent", "the hook found nothing sent"));
        assertThat(story.state.calls().get("c2").stage()).isEqualTo(Stage.AUTHORIZED);
        assertThat(story.answers).isEmpty();
    }

    @Test
    void aForkKeepsItsParentsHarnessTools() {
        SessionApprovals fork = ApprovalMachine.evolve(null, new dev.tether.core.event.Event("f", "s-2", "acme", 1, Story.T0, AGENT_ACTOR,
                "v1", new SessionForked(SESSION, 5, "o", "s", "model-x", "v1", ToolMode.WRITE, List.of(), List.of(SEND))));

        assertThat(fork.harnessTools()).containsExactly(SEND);
    }
}
