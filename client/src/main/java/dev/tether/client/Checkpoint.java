package dev.tether.client;

import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * A session's checkpoint (docs/ARCHITECTURE.md §5): everything a worker needs to resume it, folded from its
 * log by the projector. The fields below are the ones a harness acts on; {@link #json()} holds the
 * whole answer (approvals in force, decisions, artifacts, compaction state, log position…).
 *
 * <p>States are strings, so a newer projector's values read too: status {@code ACTIVE},
 * {@code AWAITING_APPROVAL}, {@code RECOVERING}, {@code INTERRUPTED}, {@code CLOSED}; call states
 * {@code REQUESTED}, {@code AUTHORIZED}, {@code RUNNING}, {@code STARTED} (a harness-run call started with no result),
 * {@code OK}, {@code ERROR},
 * {@code CANCELLED}, {@code UNKNOWN}.
 *
 * @param sessionId      the session
 * @param tenantId       its tenant
 * @param schemaVersion  the checkpoint's semantic version
 * @param lastSeq        the last seq folded
 * @param owner          the principal that started the session
 * @param objective      the pinned objective
 * @param constraints    the session's constraints
 * @param modelId        the pinned model
 * @param harnessVersion the pinned harness version
 * @param toolMode       {@code READ_ONLY} or {@code WRITE}
 * @param status         where the session stands
 * @param step           the last step completed
 * @param usedTokens     tokens used by all model turns
 * @param tokenBudget    the session's budget, if it has one
 * @param pendingAction  what the session waits for, if anything
 * @param toolCursor     the open tool calls and the last finished ones
 * @param plan           the latest plan
 * @param progress       verified steps
 * @param lease          the latest claim, if any
 * @param updatedAt      when the checkpoint was last folded
 * @param json           the whole answer, as JSON text
 */
public record Checkpoint(String sessionId, String tenantId, int schemaVersion, long lastSeq, String owner, String objective,
                         List<String> constraints, String modelId, String harnessVersion, String toolMode, String status, int step,
                         TokenUsage usedTokens, OptionalLong tokenBudget, Optional<PendingAction> pendingAction, List<CallCursor> toolCursor,
                         List<PlanItem> plan, Progress progress, Optional<Lease> lease, Instant updatedAt, String json) {

    public Checkpoint {
        Objects.requireNonNull(sessionId, "sessionId");
        constraints = List.copyOf(constraints);
        toolCursor = List.copyOf(toolCursor);
        plan = List.copyOf(plan);
    }

    /** The call with this id, if the checkpoint still tracks it. */
    public Optional<CallCursor> call(String callId) {
        return toolCursor.stream().filter(c -> c.callId().equals(callId)).findFirst();
    }

    /**
     * What the session waits for.
     *
     * @param kind     {@code approval}, {@code tool_result}, {@code human_decision} or {@code model_turn}
     * @param callId   the call it concerns, if any
     * @param sinceSeq since when
     */
    public record PendingAction(String kind, Optional<String> callId, long sinceSeq) {}

    /**
     * One tool call and where it stands.
     *
     * @param callId           the call
     * @param tool             its tool
     * @param requestSeq       the assistant message that asked for it
     * @param idempotencyKey   the key the executor runs it under ({@code sessionId/seq/callId})
     * @param state            where it stands
     * @param resultSeq        its {@code tool_result}, once there is one
     * @param awaitingApproval true while a human decision on it is pending
     * @param runBy            who runs it: {@code EXECUTOR} (the tool-executor), {@code HARNESS} (the harness, with a start
     *                         step) or {@code RECORDED} (the harness, reporting only its result); EXECUTOR from older projectors
     * @param attempt          for a harness-run call, the attempts started (0 before the first)
     */
    public record CallCursor(String callId, String tool, long requestSeq, String idempotencyKey, String state, OptionalLong resultSeq,
                             boolean awaitingApproval, String runBy, int attempt) {

        /** True when the session's harness runs the call (with a start step or recorded-only). */
        public boolean harnessRun() {
            return !"EXECUTOR".equals(runBy);
        }
    }

    /**
     * @param lastVerifiedStep the last step recorded as verified
     * @param stepsCompleted   how many steps were completed
     * @param lastNote         the note of the last {@code step_completed}
     */
    public record Progress(int lastVerifiedStep, int stepsCompleted, Optional<String> lastNote) {}

    /**
     * The latest claim.
     *
     * @param workerId       the worker
     * @param epoch          its epoch
     * @param harnessVersion the version it runs
     * @param claimedAt      when
     */
    public record Lease(String workerId, long epoch, String harnessVersion, Instant claimedAt) {}
}
