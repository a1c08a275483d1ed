package dev.tether.projector.domain;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tether.core.blob.BlobRef;
import dev.tether.core.event.Actor;
import dev.tether.core.event.ActorKind;
import dev.tether.core.event.ApprovalDenied;
import dev.tether.core.event.ApprovalGranted;
import dev.tether.core.event.ApprovalRequested;
import dev.tether.core.event.ApprovalScope;
import dev.tether.core.event.AssistantMessage;
import dev.tether.core.event.AuthorizationBasis;
import dev.tether.core.event.ContextCompacted;
import dev.tether.core.event.Event;
import dev.tether.core.event.EventPayload;
import dev.tether.core.event.FrameworkState;
import dev.tether.core.event.OutcomeResolution;
import dev.tether.core.event.PlanItem;
import dev.tether.core.event.PlanItemStatus;
import dev.tether.core.event.PlanUpdated;
import dev.tether.core.event.ResumeReason;
import dev.tether.core.event.SessionClaimed;
import dev.tether.core.event.SessionClosed;
import dev.tether.core.event.SessionForked;
import dev.tether.core.event.SessionMigrated;
import dev.tether.core.event.SessionResumed;
import dev.tether.core.event.SessionStarted;
import dev.tether.core.event.StepCompleted;
import dev.tether.core.event.SubagentResult;
import dev.tether.core.event.TokenUsage;
import dev.tether.core.event.ToolCall;
import dev.tether.core.event.ToolCallAuthorized;
import dev.tether.core.event.ToolMode;
import dev.tether.core.event.ToolOutcomeResolved;
import dev.tether.core.event.ToolResult;
import dev.tether.core.event.ToolStatus;
import dev.tether.core.event.TurnInterrupted;
import dev.tether.core.event.UnknownEvent;
import dev.tether.core.event.UserMessage;
import dev.tether.core.id.IdempotencyKey;
import dev.tether.projector.domain.SessionProjection.CallState;
import dev.tether.projector.domain.SessionProjection.Status;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The fold from events to checkpoint, over hand-written event lists; no infrastructure. */
class ProjectionTest {

    static final String SESSION = "s-1";
    static final Instant T0 = Instant.parse("2026-11-29T10:00:00Z");

    /** A session being written: append payloads, read the checkpoint after each. */
    static final class Script {
        final List<Event> events = new ArrayList<>();
        final List<SessionProjection> states = new ArrayList<>();
        SessionProjection state;

        Script add(EventPayload... payloads) {
            for (EventPayload p : payloads) {
                long seq = events.size() + 1;
                var e = new Event("e-" + seq, SESSION, "acme", seq, T0.plusSeconds(seq), new Actor(ActorKind.USER, "alice"), "v1", p);
                events.add(e);
                state = Projection.evolve(state, e, 3, 100 + seq);
                states.add(state);
            }
            return this;
        }

        static Script started() {
            return new Script().add(new SessionStarted("Rename Foo to Bar", "Be careful.", "model-x", "v1", ToolMode.WRITE,
                    List.of("keep tests green"), 1000L, null));
        }
    }

    static AssistantMessage asking(int in, int out, ToolCall... calls) {
        return new AssistantMessage("working", null, List.of(calls), new TokenUsage(in, out));
    }

    static ToolCall call(String id, String tool) {
        return new ToolCall(id, tool, "{\"path\":\"src/Foo.java\"}");
    }

    @Test
    void sessionStarted_pinsTheSession_andWaitsForAModelTurn() {
        SessionProjection s = Script.started().state;

        assertThat(s.lastSeq()).isEqualTo(1);
        assertThat(s.owner()).isEqualTo("alice");
        assertThat(s.objective()).isEqualTo("Rename Foo to Bar");
        assertThat(s.constraints()).containsExactly("keep tests green");
        assertThat(s.modelId()).isEqualTo("model-x");
        assertThat(s.harnessVersion()).isEqualTo("v1");
        assertThat(s.status()).isEqualTo(Status.ACTIVE);
        assertThat(s.pendingAction().kind().wireName()).isEqualTo("model_turn");
        assertThat(s.position()).isEqualTo(new SessionProjection.Position(3, 101, 101));
        assertThat(s.schemaVersion()).isEqualTo(SessionProjection.SCHEMA_VERSION);
    }

    @Test
    void toolCalls_moveThroughTheCursor_keyedByTheEventThatAskedForThem() {
        Script script = Script.started().add(asking(100, 20, call("c1", "read_file"), call("c2", "edit_file")));
        SessionProjection s = script.state;
        assertThat(s.usedTokens()).isEqualTo(new TokenUsage(100, 20));
        assertThat(s.toolCursor()).extracting(SessionProjection.CallCursor::idempotencyKey).containsExactly("s-1/2/c1", "s-1/2/c2");
        assertThat(s.pendingAction()).isEqualTo(new SessionProjection.PendingAction(SessionProjection.PendingAction.Kind.TOOL_RESULT, "c1", 2));

        script.add(new ToolCallAuthorized("c1", AuthorizationBasis.POLICY),
                new ToolResult("c1", "s-1/2/c1", ToolStatus.OK, "class Foo {}", null));
        s = script.state;

        assertThat(s.toolCursor().get(0).state()).isEqualTo(CallState.OK);
        assertThat(s.toolCursor().get(0).resultSeq()).isEqualTo(4);
        assertThat(s.toolCursor().get(1).state()).isEqualTo(CallState.REQUESTED);
        assertThat(s.callCounts()).isEqualTo(new SessionProjection.CallCounts(1, 0, 0, 0));
        assertThat(s.pendingAction()).isEqualTo(new SessionProjection.PendingAction(SessionProjection.PendingAction.Kind.TOOL_RESULT, "c2", 2));
    }

    @Test
    void approvalRequested_awaitsTheApprover_andASessionGrantStaysInForce() {
        Script script = Script.started().add(asking(10, 5, call("c1", "edit_file")),
                new ApprovalRequested("c1", "edit_file", "--- a/Foo\n+++ b/Foo", null));
        assertThat(script.state.status()).isEqualTo(Status.AWAITING_APPROVAL);
        assertThat(script.state.pendingAction()).isEqualTo(new SessionProjection.PendingAction(SessionProjection.PendingAction.Kind.APPROVAL, "c1", 2));

        script.add(new ApprovalGranted("c1", ApprovalScope.SESSION, "edit_file", "src/**", "bob", "looks right"),
                new ToolCallAuthorized("c1", AuthorizationBasis.approval(4)));
        SessionProjection s = script.state;

        assertThat(s.status()).isEqualTo(Status.ACTIVE);
        assertThat(s.approvals()).containsExactly(new SessionProjection.Grant(4, "edit_file", "src/**", "bob"));
        assertThat(s.decisions()).singleElement().satisfies(d -> {
            assertThat(d.kind()).isEqualTo("approval_granted");
            assertThat(d.summary()).contains("SESSION").contains("bob").contains("looks right");
        });
        assertThat(s.toolCursor().get(0).state()).isEqualTo(CallState.AUTHORIZED);
    }

    @Test
    void denial_isRecordedAsADecision_andTheCallEndsWithItsErrorResult() {
        SessionProjection s = Script.started().add(asking(10, 5, call("c1", "run_command")),
                new ApprovalRequested("c1", "run_command", "rm -rf build", null),
                ApprovalDenied.byApprover("c1", ApprovalScope.ONCE, null, null, "bob", "not today"),
                new ToolResult("c1", "s-1/2/c1", ToolStatus.ERROR, "denied by bob: not today", null)).state;

        assertThat(s.decisions()).extracting(SessionProjection.Decision::kind).containsExactly("approval_denied");
        assertThat(s.toolCursor().get(0).state()).isEqualTo(CallState.ERROR);
        assertThat(s.status()).isEqualTo(Status.ACTIVE);
        assertThat(s.pendingAction().kind().wireName()).isEqualTo("model_turn");
    }

    @Test
    void unknownOutcome_waitsForAHumanDecision() {
        SessionProjection s = Script.started().add(asking(10, 5, call("c1", "http_fetch")),
                new ToolCallAuthorized("c1", AuthorizationBasis.POLICY),
                new ToolResult("c1", "s-1/2/c1", ToolStatus.UNKNOWN, "executor crashed mid-call", null)).state;

        assertThat(s.pendingAction()).isEqualTo(new SessionProjection.PendingAction(SessionProjection.PendingAction.Kind.HUMAN_DECISION, "c1", 4));
        assertThat(s.callCounts().unknown()).isEqualTo(1);
    }

    @ParameterizedTest
    @CsvSource({"MARK_DONE, OK, 1, 0", "ABANDON, CANCELLED, 0, 1"})
    void unknownOutcome_markedDoneOrAbandoned_endsTheCall_andTheWait(OutcomeResolution resolution, CallState state, int ok, int cancelled) {
        SessionProjection s = Script.started().add(asking(10, 5, call("c1", "http_fetch")),
                new ToolCallAuthorized("c1", AuthorizationBasis.POLICY),
                new ToolResult("c1", "s-1/2/c1", ToolStatus.UNKNOWN, "executor crashed mid-call", null),
                new ToolOutcomeResolved("c1", resolution, "bob", "checked the remote side")).state;

        assertThat(s.toolCursor().get(0).state()).isEqualTo(state);
        assertThat(s.toolCursor().get(0).resultSeq()).isEqualTo(5);
        assertThat(s.callCounts()).isEqualTo(new SessionProjection.CallCounts(ok, 0, cancelled, 0));
        assertThat(s.pendingAction().kind().wireName()).isEqualTo("model_turn");
        assertThat(s.decisions()).singleElement().satisfies(d -> {
            assertThat(d.kind()).isEqualTo("tool_outcome_resolved");
            assertThat(d.summary()).isEqualTo(resolution + " by bob: checked the remote side");
        });
    }

    @Test
    void unknownOutcome_retried_isAuthorizedAgain_underTheKeyOfTheRetryDecision() {
        SessionProjection s = Script.started().add(asking(10, 5, call("c1", "http_fetch")),
                new ToolCallAuthorized("c1", AuthorizationBasis.POLICY),
                new ToolResult("c1", "s-1/2/c1", ToolStatus.UNKNOWN, "executor crashed mid-call", null),
                new ToolOutcomeResolved("c1", OutcomeResolution.RETRY, "bob", "")).state;

        assertThat(s.toolCursor().get(0)).isEqualTo(new SessionProjection.CallCursor("c1", "http_fetch", 2,
                IdempotencyKey.of(s.sessionId(), 5, "c1"), CallState.AUTHORIZED, null, false));
        assertThat(s.callCounts().unknown()).isZero();
        assertThat(s.pendingAction()).isEqualTo(new SessionProjection.PendingAction(SessionProjection.PendingAction.Kind.TOOL_RESULT, "c1", 2));
    }

    @Test
    void interruption_thenAUserMessage_resumesActiveWork() {
        Script script = Script.started().add(asking(10, 5), new TurnInterrupted("I was about to", "user pressed stop"));
        assertThat(script.state.status()).isEqualTo(Status.INTERRUPTED);

        script.add(new UserMessage("carry on", null));
        assertThat(script.state.status()).isEqualTo(Status.ACTIVE);
    }

    @Test
    void claimAndResume_recordTheLease_andRecoverUntilTheNextModelTurn() {
        Script script = Script.started().add(new SessionClaimed("w-1", 1, "v1"), new SessionClaimed("w-2", 2, "v1"),
                new SessionResumed(ResumeReason.CRASH, 2, "no tool call in flight"));
        assertThat(script.state.lease()).isEqualTo(new SessionProjection.Lease("w-2", 2, "v1", T0.plusSeconds(3)));
        assertThat(script.state.status()).isEqualTo(Status.RECOVERING);

        script.add(asking(1, 1));
        assertThat(script.state.status()).isEqualTo(Status.ACTIVE);
    }

    @Test
    void stepsPlansAndMigration_areTracked() {
        SessionProjection s = Script.started().add(
                new PlanUpdated(List.of(new PlanItem("rename class", PlanItemStatus.DONE), new PlanItem("fix tests", PlanItemStatus.PENDING))),
                new StepCompleted(1, "renamed the class", true, "commit abc123"),
                new StepCompleted(2, "tests half done", false, null),
                new SessionMigrated("v1", "v2")).state;

        assertThat(s.step()).isEqualTo(2);
        assertThat(s.progress()).isEqualTo(new SessionProjection.Progress(1, 2, "tests half done"));
        assertThat(s.plan()).hasSize(2);
        assertThat(s.artifacts()).extracting(SessionProjection.Artifact::uri).containsExactly("commit abc123");
        assertThat(s.harnessVersion()).isEqualTo("v2");
        assertThat(Facts.openWork(s)).containsExactly("plan: fix tests (PENDING)");
    }

    @Test
    void compaction_capturesTheFactsFromTypedState_notFromTheSummary() {
        SessionProjection s = Script.started().add(asking(10, 5, call("c1", "edit_file")),
                new ApprovalRequested("c1", "edit_file", "diff", null),
                new ApprovalGranted("c1", ApprovalScope.ONCE, null, null, "bob", "ok"),
                new ContextCompacted(4, "The objective was done and there are no constraints.", null, List.of(1L, 2L, 3L, 4L))).state;

        assertThat(s.compaction().throughSeq()).isEqualTo(4);
        assertThat(s.compaction().compactedAtSeq()).isEqualTo(5);
        String facts = s.compaction().facts();
        assertThat(facts).contains("Objective: Rename Foo to Bar").contains("- keep tests green")
                .contains("approval_granted for call c1").contains("tool call c1 (edit_file): REQUESTED")
                .doesNotContain("objective was done");
    }

    @Test
    void offloadedContent_becomesAnArtifactHandle() {
        var ref = new BlobRef("blob://sha256/" + "a".repeat(64), "a".repeat(64), 70_000, "first lines");
        SessionProjection s = Script.started().add(new UserMessage("first lines", ref)).state;

        assertThat(s.artifacts()).singleElement().satisfies(a -> {
            assertThat(a.sha256()).isEqualTo("a".repeat(64));
            assertThat(a.size()).isEqualTo(70_000);
            assertThat(a.label()).isEqualTo("user_message content");
        });
    }

    @Test
    void checkpointSize_isBoundedWhateverTheSessionsLength() {
        Script script = Script.started();
        for (int i = 0; i < 500; i++) {
            String id = "c" + i;
            script.add(asking(1, 1, call(id, "read_file")), new ToolCallAuthorized(id, AuthorizationBasis.POLICY),
                    new ToolResult(id, "k", ToolStatus.OK, "ok", null), new StepCompleted(i + 1, "step " + i, true, "commit " + i),
                    new SubagentResult("child-" + i, "done"));
        }
        SessionProjection s = script.state;

        assertThat(s.toolCursor()).hasSize(Projection.FINISHED_CALLS_KEPT);
        assertThat(s.artifacts()).hasSize(Projection.RECENT_KEPT);
        assertThat(s.decisions()).hasSize(Projection.RECENT_KEPT);
        assertThat(s.callCounts().ok()).isEqualTo(500);
        assertThat(s.toolCursor().get(0).callId()).isEqualTo("c490");
    }

    @Test
    void timeTravel_foldingAPrefix_givesTheCheckpointAsItWasThen() {
        Script script = Script.started().add(asking(10, 5, call("c1", "read_file")), new ToolCallAuthorized("c1", AuthorizationBasis.POLICY),
                new UserMessage("and?", null), new ToolResult("c1", "k", ToolStatus.OK, "x", null), new SessionClosed("done"));

        for (int k = 1; k <= script.events.size(); k++) {
            SessionProjection folded = null;
            for (Event e : script.events.subList(0, k)) {
                folded = Projection.evolve(folded, e, 3, 100 + e.seq());
            }
            assertThat(folded).as("at seq %d", k).isEqualTo(script.states.get(k - 1));
        }
        assertThat(script.state.status()).isEqualTo(Status.CLOSED);
        assertThat(script.state.pendingAction()).isNull();
    }

    @Test
    void aFork_startsPinnedToWhatItsFirstEventCarries() {
        var e = new Event("e-1", "fork-1", "acme", 1, T0, new Actor(ActorKind.USER, "alice"), "v1",
                new SessionForked(SESSION, 5, "Rename Foo to Bar", "Be careful.", "model-x", "v1", ToolMode.READ_ONLY, List.of("c"),
                        List.of(), null, null, 700L));

        SessionProjection s = Projection.evolve(null, e, 0, 7);

        assertThat(s.objective()).isEqualTo("Rename Foo to Bar");
        assertThat(s.toolMode()).isEqualTo(ToolMode.READ_ONLY);
        assertThat(s.constraints()).containsExactly("c");
        assertThat(s.tokenBudget()).isEqualTo(700);
    }

    @Test
    void unknownEventTypes_onlyMoveThePosition() {
        Script script = Script.started();
        SessionProjection before = script.state;
        script.add(new UnknownEvent("from_the_future"));

        assertThat(script.state.lastSeq()).isEqualTo(2);
        assertThat(script.state.objective()).isEqualTo(before.objective());
        assertThat(script.state.toolCursor()).isEqualTo(before.toolCursor());
    }

    @Test
    void frameworkState_inlineOrOffloaded_onlyMovesThePosition_andIsNoArtifact() {
        Script script = Script.started().add(asking(10, 5, call("c1", "read_file")), new ToolCallAuthorized("c1", AuthorizationBasis.POLICY),
                new PlanUpdated(List.of(new PlanItem("rename", PlanItemStatus.IN_PROGRESS))));
        SessionProjection before = script.state;
        var ref = BlobRef.of("f".repeat(64), 90_000, "{\"v\":1,\"channel_values\":");

        script.add(new FrameworkState("langgraph", "checkpoint", "[\"\",\"cp-1\"]", "{\"v\":1,\"versions_seen\":{}}"),
                new FrameworkState("langgraph", "writes", "[\"\",\"cp-1\",\"task-1\"]", "{\"v\":1,\"channel_values\":", ref));

        assertThat(script.state.lastSeq()).isEqualTo(before.lastSeq() + 2);
        assertThat(script.state.position().lastOffset()).isEqualTo(100 + before.lastSeq() + 2);
        assertThat(script.state).usingRecursiveComparison().ignoringFields("lastSeq", "updatedAt", "position").isEqualTo(before);
        assertThat(script.state.artifacts()).isEmpty();
        assertThat(script.state.pendingAction()).isEqualTo(before.pendingAction());
    }

    @Test
    void everyEventType_isHandled() {
        for (Class<?> type : EventPayload.class.getPermittedSubclasses()) {
            assertThat(type.getSimpleName()).as("a new event type needs a rule in Projection.evolve and a test here")
                    .isIn("SessionStarted", "UserMessage", "AssistantMessage", "ApprovalRequested", "ApprovalGranted", "ApprovalDenied",
                            "ToolCallAuthorized", "ToolResult", "TurnInterrupted", "ContextCompacted", "PlanUpdated", "StepCompleted",
                            "SessionClaimed", "SessionResumed", "SessionMigrated", "SessionForked", "SubagentResult", "SessionClosed",
                            "ToolOutcomeResolved", "ToolCallStarted", "FrameworkState", "UnknownEvent");
        }
    }
}
