package dev.tether.approval.domain;

import static dev.tether.approval.domain.Story.append;
import static dev.tether.approval.domain.Story.refused;
import static dev.tether.approval.domain.Story.ALICE;
import static dev.tether.approval.domain.Story.TENANT;
import static dev.tether.approval.domain.Story.asking;
import static dev.tether.approval.domain.Story.call;
import static dev.tether.approval.domain.Story.edit;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tether.approval.domain.ApprovalItem.Status;
import dev.tether.approval.domain.SessionApprovals.Stage;
import dev.tether.approval.domain.Verdict.Refusal;
import dev.tether.core.auth.Role;
import dev.tether.core.auth.TetherPrincipal;
import dev.tether.core.event.Actor;
import dev.tether.core.event.ActorKind;
import dev.tether.core.event.ApprovalDenied;
import dev.tether.core.event.ApprovalGranted;
import dev.tether.core.event.ApprovalScope;
import dev.tether.core.event.ToolCallAuthorized;
import dev.tether.core.event.ToolOutcomeResolved;
import dev.tether.core.event.ToolResult;
import dev.tether.core.event.ToolStatus;
import dev.tether.core.event.TurnInterrupted;
import java.util.Set;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Faults a review found in deciding: a principal deciding on its own call, and an ended item refused as if someone had
 * decided it (a session grant's path glob on a call that names no path: {@code DecisionRefusalTest}).
 */
class ApprovalMachineReviewTest {

    /** The agent's own principal, with the approver role too: the assistant messages of {@link Story} are its. */
    static final TetherPrincipal AGENT_AND_APPROVER = new TetherPrincipal(Story.AGENT_ACTOR.id(), TENANT, Set.of(Role.AGENT, Role.APPROVER));
    /** An admin that is an approver too, appending the session's turns itself. */
    static final TetherPrincipal ROOT = new TetherPrincipal("root", TENANT, Set.of(Role.ADMIN, Role.APPROVER));
    static final Actor ROOT_AS_MODEL = new Actor(ActorKind.MODEL, "root");

    private static Verdict decide(Story story, String callId, DecisionKind decision, String glob, String reason, TetherPrincipal by) {
        return ApprovalMachine.decide(story.state, story.pending(callId).seq(), new DecisionRequest(decision, null, glob, reason), by);
    }

    @Nested
    class SelfDecisions {

        private Story awaiting() {
            return Story.started().append(asking(edit("c1", "src/Foo.java"))).acceptAnswers();
        }

        private Story unknownOutcome() {
            Story story = Story.started().append(asking(call("c1", "read_file", "{\"path\":\"a.txt\"}"))).acceptAnswers();
            return story.authorizeByPolicyAndReport("c1", ToolStatus.UNKNOWN);
        }

        @ParameterizedTest
        @EnumSource(value = DecisionKind.class, names = {"GRANT_ONCE", "GRANT_SESSION"})
        void aGrantByThePrincipalWhoseAssistantMessageAskedForTheCall_isForbidden(DecisionKind grant) {
            Story story = awaiting();
            assertThat(story.pending("c1").requestedBy()).isEqualTo(AGENT_AND_APPROVER.id());

            Verdict.Refused r = refused(decide(story, "c1", grant, null, "", AGENT_AND_APPROVER));

            assertThat(r.reason()).isEqualTo(Refusal.FORBIDDEN);
            assertThat(r.message()).contains("acme-agent").contains("asked for").contains("another approver");
            assertThat(append(decide(story, "c1", grant, null, "", ALICE)).event().actor().id()).as("another approver still may")
                    .isEqualTo("alice");
        }

        @Test
        void anAdmin_isNotExempt_whenItAskedForTheCallItself() {
            Story story = Story.started().append(ROOT_AS_MODEL, asking(edit("c1", "src/Foo.java"))).acceptAnswers();

            assertThat(refused(decide(story, "c1", DecisionKind.GRANT_ONCE, null, "", ROOT)).reason()).isEqualTo(Refusal.FORBIDDEN);
            assertThat(refused(decide(story, "c1", DecisionKind.GRANT_SESSION, "src/**", "", ROOT)).reason()).isEqualTo(Refusal.FORBIDDEN);
        }

        @Test
        void denyingItsOwnCall_isAllowed_sinceItFailsClosed() {
            Story story = awaiting();

            Verdict.Append deny = append(decide(story, "c1", DecisionKind.DENY, null, "on second thought", AGENT_AND_APPROVER));
            story.accept(deny.event());

            assertThat(story.state.item(3).orElseThrow().status()).isEqualTo(Status.DENIED);
            assertThat(story.only().payload()).isInstanceOfSatisfying(ToolResult.class, r -> assertThat(r.status()).isEqualTo(ToolStatus.ERROR));
        }

        @ParameterizedTest
        @EnumSource(value = DecisionKind.class, names = {"MARK_DONE", "RETRY"})
        void markingItsOwnUnknownOutcomeDone_orRetryingIt_isForbidden(DecisionKind decision) {
            Story story = unknownOutcome();

            Verdict.Refused r = refused(decide(story, "c1", decision, null, "", AGENT_AND_APPROVER));

            assertThat(r.reason()).isEqualTo(Refusal.FORBIDDEN);
            assertThat(r.message()).contains("acme-agent").contains("another approver");
        }

        @Test
        void abandoningItsOwnUnknownOutcome_isAllowed_sinceNothingRunsAgain() {
            Story story = unknownOutcome();

            assertThat(append(decide(story, "c1", DecisionKind.ABANDON, null, "", AGENT_AND_APPROVER)).event().payload())
                    .isInstanceOf(ToolOutcomeResolved.class);
        }

        @ParameterizedTest
        @EnumSource(value = ApprovalScope.class)
        void aSelfGrantWrittenPastTheApi_authorizesNothing_installsNoGrant_andTheCallGetsAnError(ApprovalScope scope) {
            // a sequencer that did not know who asked for the call (a head before format 5) took a grant of an approver's own
            // call appended to the session-service directly: the fold refuses it here, as any decision it should have refused
            Story story = awaiting();

            story.append(new Actor(ActorKind.APPROVER, "acme-agent"), new ApprovalGranted("c1", scope,
                    scope == ApprovalScope.SESSION ? "edit_file" : null, null, "acme-agent", "fine by me"));

            assertThat(story.answers).noneMatch(e -> e.payload() instanceof ToolCallAuthorized);
            assertThat(story.only().payload()).isInstanceOfSatisfying(ToolResult.class, r -> {
                assertThat(r.status()).isEqualTo(ToolStatus.ERROR);
                assertThat(r.content()).contains("acme-agent").contains("asked for");
            });
            assertThat(story.state.grants()).isEmpty();
            assertThat(story.state.calls().get("c1").stage()).isEqualTo(Stage.CONFLICTED);
            assertThat(story.state.pendingItems()).isEmpty();
            assertThat(story.ambiguity).hasValueSatisfying(m -> assertThat(m).contains("fails closed").contains("acme-agent"));

            // a later session-scope use: nothing is covered
            story.acceptAnswers().append(asking(edit("c2", "src/Foo.java")));
            assertThat(story.only().payload()).isNotInstanceOf(ToolCallAuthorized.class);
        }

        @Test
        void aSelfDenialWrittenPastTheApi_isTakenAsAnyDenial() {
            Story story = awaiting();

            story.append(new Actor(ActorKind.APPROVER, "acme-agent"), ApprovalDenied.byApprover("c1", ApprovalScope.ONCE, null, null,
                    "acme-agent", "no"));

            assertThat(story.ambiguity).isEmpty();
            assertThat(story.state.item(3).orElseThrow().status()).isEqualTo(Status.DENIED);
        }
    }

    @Nested
    class EndedItems {

        @Test
        void aDecisionOnAPendingItemWhoseTurnWasInterrupted_isRefusedAsEnded_notAsDecided() {
            Story story = Story.started().append(asking(edit("c1", "src/Foo.java"))).acceptAnswers();
            story.append(new TurnInterrupted("", "stop"));

            Verdict.Refused r = refused(decide(story, "c1", DecisionKind.GRANT_ONCE, null, "", ALICE));

            assertThat(r.reason()).isEqualTo(Refusal.ENDED);
            assertThat(r.message()).contains("interrupted at seq 4").contains("without a decision");
        }

        @Test
        void aDecisionOnAnItemCancelledByAnInterruption_isRefusedAsEnded() {
            Story story = Story.started().append(asking(edit("c1", "src/Foo.java"))).acceptAnswers();
            long seq = story.pending("c1").seq();
            story.append(new TurnInterrupted("", "stop")).acceptAnswers();
            assertThat(story.state.item(seq).orElseThrow().status()).isEqualTo(Status.CANCELLED);

            Verdict.Refused r = refused(ApprovalMachine.decide(story.state, seq, new DecisionRequest(DecisionKind.DENY, null, null, "no"),
                    ALICE));

            assertThat(r.reason()).isEqualTo(Refusal.ENDED);
            assertThat(r.message()).contains("CANCELLED").contains("without a decision").contains("interrupted");
        }

        @Test
        void aDecisionOnAnExpiredItem_isRefusedAsEnded() {
            Story story = Story.started().append(asking(edit("c1", "src/Foo.java"))).acceptAnswers();
            long seq = story.pending("c1").seq();
            ApprovalMachine.Expiry expiry = ApprovalMachine.expire(story.state, story.at(seq).plus(java.time.Duration.ofHours(1)),
                    java.time.Duration.ofMinutes(10));
            story.state = expiry.state();
            expiry.events().forEach(story::accept);
            assertThat(story.state.item(seq).orElseThrow().status()).isEqualTo(Status.EXPIRED);

            Verdict.Refused r = refused(ApprovalMachine.decide(story.state, seq, new DecisionRequest(DecisionKind.GRANT_ONCE, null, null,
                    ""), ALICE));

            assertThat(r.reason()).isEqualTo(Refusal.ENDED);
            assertThat(r.message()).contains("EXPIRED").contains("without a decision").contains("no approver decided within");
        }

        @Test
        void aDecisionOnADecidedItem_isStillAConflict_namingWhoDecided() {
            Story story = Story.started().append(asking(edit("c1", "src/Foo.java"))).acceptAnswers();
            long seq = story.pending("c1").seq();
            story.accept(append(decide(story, "c1", DecisionKind.DENY, null, "no", ALICE)).event());

            Verdict.Refused r = refused(ApprovalMachine.decide(story.state, seq, new DecisionRequest(DecisionKind.GRANT_ONCE, null, null,
                    ""), Story.BOB));

            assertThat(r.reason()).isEqualTo(Refusal.CONFLICT);
            assertThat(r.message()).startsWith("already DENIED by alice at seq 4");
        }
    }
}
