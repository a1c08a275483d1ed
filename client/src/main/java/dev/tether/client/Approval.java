package dev.tether.client;

import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * One thing a human decides on, as the approval-service shows it: a gated tool call waiting for
 * approval (kind {@code APPROVAL}), or a call whose outcome the executor reported UNKNOWN (kind
 * {@code UNKNOWN_OUTCOME}). Its id is {@code <sessionId>~<seq>}, the seq of the event that opened it.
 *
 * <p>Kinds and statuses are strings so that an older client reads what a newer service adds; the
 * values known today are in {@link ApprovalFilter.Status} and {@link ApprovalFilter.Kind}.
 *
 * @param id                the item's id, {@code <sessionId>~<seq>}
 * @param kind              {@code APPROVAL} or {@code UNKNOWN_OUTCOME}
 * @param status            {@code PENDING}, then {@code GRANTED}, {@code DENIED}, {@code EXPIRED}, {@code CANCELLED},
 *                          {@code MARKED_DONE}, {@code RETRIED} or {@code ABANDONED}
 * @param sessionId         the session
 * @param callId            the tool call
 * @param tool              its tool
 * @param argumentsJson     its arguments, as JSON text
 * @param shown             exactly what the approver is shown: the command, or the diff
 * @param seq               the seq of the event that opened the item
 * @param requestSeq        the seq of the assistant message that asked for the call
 * @param requestedAt       when the item was opened
 * @param requestedBy       the principal whose assistant message asked for the call
 * @param modelId           the model that asked
 * @param expiresAt         when a pending approval expires (and is denied in the service's name); empty otherwise
 * @param outcome           for an unknown outcome: what the executor reported
 * @param decisions         the decisions it takes while pending (e.g. GRANT_ONCE, GRANT_SESSION, DENY); empty once ended
 * @param suggestedPathGlob a path glob a session grant for "this directory" would use, when the call has a path
 * @param runBy             while pending: who runs the call, {@code EXECUTOR} or {@code HARNESS} (the session's harness,
 *                          on no workspace path Tether knows: a session grant of it takes no path glob)
 * @param decision          the human decision that ended it
 * @param endedBecause      why it ended without a human decision (expired, interrupted, closed)
 * @param json              the whole item as the service returned it, as JSON text
 */
public record Approval(String id, String kind, String status, String sessionId, String callId, String tool, String argumentsJson,
                       String shown, long seq, long requestSeq, Instant requestedAt, String requestedBy, String modelId,
                       Optional<Instant> expiresAt, Optional<String> outcome, List<String> decisions, Optional<String> suggestedPathGlob,
                       Optional<String> runBy, Optional<Decision> decision, Optional<String> endedBecause, String json) {

    public Approval {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(status, "status");
        decisions = List.copyOf(decisions);
    }

    /** True while nobody has decided and it has not ended otherwise. */
    public boolean isPending() {
        return "PENDING".equals(status);
    }

    /**
     * A human's decision, as the log recorded it.
     *
     * @param decision  GRANT_ONCE, GRANT_SESSION, DENY, MARK_DONE, RETRY or ABANDON
     * @param approver  who decided
     * @param reason    why, possibly empty
     * @param tool      for GRANT_SESSION: the tool the grant covers
     * @param pathGlob  for GRANT_SESSION: the paths it covers; empty for any
     * @param seq       the seq of the decision's event
     * @param decidedAt when the sequencer accepted it
     */
    public record Decision(String decision, String approver, String reason, Optional<String> tool, Optional<String> pathGlob, long seq,
                           Instant decidedAt) {}
}
