package dev.tether.projector.domain;

import dev.tether.core.event.CallRunner;
import dev.tether.core.event.HarnessTool;
import dev.tether.core.event.PlanItem;
import dev.tether.core.event.TokenUsage;
import dev.tether.core.event.ToolMode;
import dev.tether.core.event.WireNamed;
import java.time.Instant;
import java.util.List;

/**
 * The checkpoint of a session (docs/ARCHITECTURE.md §5): everything a worker needs to resume it, folded
 * from its log by {@link Projection}. Bounded: open tool calls plus the last
 * {@value Projection#FINISHED_CALLS_KEPT} finished ones, the last decisions and artifacts, counters;
 * its size does not grow with the session's length. Immutable.
 */
public record SessionProjection(
        String sessionId,
        String tenantId,
        int schemaVersion,
        long lastSeq,
        String owner,
        String objective,
        List<String> constraints,
        String modelId,
        String harnessVersion,
        ToolMode toolMode,
        Status status,
        int step,
        TokenUsage usedTokens,
        Long tokenBudget,
        PendingAction pendingAction,
        List<CallCursor> toolCursor,
        List<PlanItem> plan,
        Progress progress,
        List<Grant> approvals,
        Compaction compaction,
        Position position,
        Lease lease,
        List<Decision> decisions,
        List<Artifact> artifacts,
        CallCounts callCounts,
        Instant updatedAt,
        List<HarnessTool> harnessTools) {

    /**
     * The semantic version of a checkpoint's content; see {@code CheckpointMigrations}. 3: a call with an UNKNOWN
     * outcome stays in the tool cursor until resolved (2 trimmed it with the finished calls). 4: harness-run tools
     * (docs/ARCHITECTURE.md §6): the session's declaration, each call's runner, attempts and start epoch, and the state
     * STARTED; a version 3 projector could not read the declaration, so its checkpoints are rebuilt from the log.
     */
    public static final int SCHEMA_VERSION = 4;

    public SessionProjection {
        constraints = List.copyOf(constraints);
        toolCursor = List.copyOf(toolCursor);
        plan = List.copyOf(plan);
        approvals = List.copyOf(approvals);
        decisions = List.copyOf(decisions);
        artifacts = List.copyOf(artifacts);
        harnessTools = List.copyOf(harnessTools);
    }

    public enum Status { ACTIVE, AWAITING_APPROVAL, RECOVERING, INTERRUPTED, CLOSED }

    /**
     * Where one tool call stands. STARTED: a harness-run call recorded started ({@code tool_call_started}) with no result
     * yet: its outcome is unknown until its result or its reconciliation comes (the recovery report lists it as unknown).
     */
    public enum CallState { REQUESTED, AUTHORIZED, RUNNING, OK, ERROR, CANCELLED, UNKNOWN, STARTED;

        public boolean finished() {
            return this == OK || this == ERROR || this == CANCELLED || this == UNKNOWN;
        }
    }

    /** What the session waits for: {@code kind} for call {@code callId} (null for a model turn) since {@code sinceSeq}. */
    public record PendingAction(Kind kind, String callId, long sinceSeq) {

        /** What is awaited; in lower case on the wire (checkpoint, REST), as it always was: {@code tool_result}. */
        public enum Kind implements WireNamed {
            /** An approver's decision on a gated call. */
            APPROVAL,
            /** The result of a call that runs. */
            TOOL_RESULT,
            /** A human's decision on a call whose outcome is unknown. */
            HUMAN_DECISION,
            /** The model's next turn. */
            MODEL_TURN;

            /** @throws IllegalArgumentException for a name that is none of the four */
            public static Kind byWireName(String wireName) {
                return WireNamed.byWireName(Kind.class, wireName);
            }
        }
    }

    /**
     * One tool call: which assistant message asked for it, its idempotency key, its state, whether a human decision on it
     * is pending, who runs it, and for a harness-run call the attempts started and the epoch of the worker that started the
     * latest (null before the first).
     */
    public record CallCursor(String callId, String tool, long requestSeq, String idempotencyKey, CallState state, Long resultSeq,
                             boolean awaitingApproval, CallRunner runBy, int attempt, Long startedEpoch) {

        /** A call the tool-executor runs. */
        public CallCursor(String callId, String tool, long requestSeq, String idempotencyKey, CallState state, Long resultSeq,
                          boolean awaitingApproval) {
            this(callId, tool, requestSeq, idempotencyKey, state, resultSeq, awaitingApproval, CallRunner.EXECUTOR, 0, null);
        }

        /** This call in {@code next} state, the rest unchanged. */
        public CallCursor in(CallState next) {
            return new CallCursor(callId, tool, requestSeq, idempotencyKey, next, resultSeq, awaitingApproval, runBy, attempt,
                    startedEpoch);
        }
    }

    public record Progress(int lastVerifiedStep, int stepsCompleted, String lastNote) {}

    /** A session-scope grant in force. */
    public record Grant(long grantSeq, String tool, String pathGlob, String approver) {}

    /** The latest context compaction, with the facts block as it stood then. */
    public record Compaction(long throughSeq, long compactedAtSeq, String facts) {}

    /** Where the session's events lie in {@code session-events}. */
    public record Position(int partition, long firstOffset, long lastOffset) {}

    public record Lease(String workerId, long epoch, String harnessVersion, Instant claimedAt) {}

    public record Decision(long seq, String kind, String callId, String summary) {}

    public record Artifact(long seq, String uri, String sha256, long size, String label) {}

    public record CallCounts(int ok, int error, int cancelled, int unknown) {
        public static final CallCounts NONE = new CallCounts(0, 0, 0, 0);
    }
}
