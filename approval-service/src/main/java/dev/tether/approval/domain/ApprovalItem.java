package dev.tether.approval.domain;

import dev.tether.core.blob.BlobRef;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Comparator;
import java.util.Objects;

/**
 * One thing a human decides on: a gated tool call waiting for approval ({@link Kind#APPROVAL}, from its
 * {@code approval_requested}), or a call whose outcome the executor reported UNKNOWN ({@link Kind#UNKNOWN_OUTCOME},
 * from that {@code tool_result}). Identified by its session and the seq of the event that opened it, so a call that
 * is retried and comes back UNKNOWN again is a new item. Immutable.
 *
 * @param sessionId     the session
 * @param seq           the seq of the event that opened the item
 * @param kind          what is to be decided
 * @param status        where it stands
 * @param tenantId      the session's tenant: only its approvers see the item
 * @param callId        the tool call
 * @param tool          its tool
 * @param argumentsJson its arguments as the model wrote them
 * @param shown         exactly what the approver is shown (its preview when {@code shownRef} is set)
 * @param shownRef      the full text in the blob store when it was too large for the event; null otherwise
 * @param requestSeq    the seq of the assistant message that asked for the call
 * @param requestedAt   when the item was opened
 * @param modelId       the model the session is pinned to (the model that asked)
 * @param requestedBy   the principal that appended the assistant message
 * @param outcome       for UNKNOWN_OUTCOME: what the executor reported; null otherwise
 * @param decision      the human decision that closed it; null while pending or when it ended otherwise
 * @param endedBecause  why it ended without a human decision (expired, interrupted, closed); null otherwise
 * @param expiring      an expiry was sent for it and has not been seen in the log yet
 */
public record ApprovalItem(
        String sessionId,
        long seq,
        Kind kind,
        Status status,
        String tenantId,
        String callId,
        String tool,
        String argumentsJson,
        String shown,
        BlobRef shownRef,
        long requestSeq,
        Instant requestedAt,
        String modelId,
        String requestedBy,
        String outcome,
        Decision decision,
        String endedBecause,
        boolean expiring) {

    /** Separates the session id from the seq in an item's id; session ids never contain it. */
    public static final char ID_SEPARATOR = '~';

    public ApprovalItem {
        Objects.requireNonNull(sessionId, "sessionId");
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(status, "status");
        Objects.requireNonNull(callId, "callId");
    }

    public enum Kind { APPROVAL, UNKNOWN_OUTCOME }

    /** Oldest first: when the item was opened, then its session and seq, so that a list reads the same on every instance. */
    public static final Comparator<ApprovalItem> OLDEST_FIRST = Comparator.comparing(Place::of, Place.OLDEST_FIRST);

    /**
     * Where an item stands in a list: when it was opened, its session and seq. A page of a list ends at the place of
     * its last item, and the next page starts after it ({@link #text()} is the cursor).
     */
    public record Place(Instant requestedAt, String sessionId, long seq) {

        /** Oldest first, then by session and seq. */
        public static final Comparator<Place> OLDEST_FIRST = Comparator.comparing(Place::requestedAt)
                .thenComparing(Place::sessionId).thenComparingLong(Place::seq);

        public Place {
            Objects.requireNonNull(requestedAt, "requestedAt");
            Objects.requireNonNull(sessionId, "sessionId");
        }

        public static Place of(ApprovalItem item) {
            return new Place(item.requestedAt(), item.sessionId(), item.seq());
        }

        /**
         * The place {@link #text()} wrote: {@code <requestedAt>~<sessionId>~<seq>}, the time and the item's id.
         *
         * @throws IllegalArgumentException if {@code text} is not of that shape (the session id is not checked here)
         */
        public static Place parse(String text) {
            int first = text.indexOf(ID_SEPARATOR);
            int last = text.lastIndexOf(ID_SEPARATOR);
            if (first < 1 || last <= first + 1 || last == text.length() - 1) {
                throw new IllegalArgumentException("not <requestedAt>~<sessionId>~<seq>");
            }
            try {
                long seq = Long.parseLong(text.substring(last + 1));
                if (seq < 1) {
                    throw new IllegalArgumentException("not <requestedAt>~<sessionId>~<seq>: the seq is not a seq");
                }
                return new Place(Instant.parse(text.substring(0, first)), text.substring(first + 1, last), seq);
            } catch (NumberFormatException | DateTimeParseException e) {
                throw new IllegalArgumentException("not <requestedAt>~<sessionId>~<seq>", e);
            }
        }

        /** The cursor form: {@code <requestedAt>~<item id>}. */
        public String text() {
            return requestedAt + String.valueOf(ID_SEPARATOR) + id(sessionId, seq);
        }
    }

    /**
     * PENDING, then one final state: the first five for approvals; MARKED_DONE, RETRIED or ABANDONED for unknown outcomes,
     * or CANCELLED when their session is closed while they are pending.
     */
    public enum Status {
        PENDING, GRANTED, DENIED, EXPIRED, CANCELLED, MARKED_DONE, RETRIED, ABANDONED;

        public boolean pending() {
            return this == PENDING;
        }
    }

    /**
     * A human's decision, as the log recorded it.
     *
     * @param decision  GRANT_ONCE, GRANT_SESSION, DENY, MARK_DONE, RETRY or ABANDON
     * @param approver  who decided
     * @param reason    why, possibly empty
     * @param tool      for GRANT_SESSION: the tool the grant covers
     * @param pathGlob  for GRANT_SESSION: the paths it covers; null for any
     * @param seq       the seq of the decision's event
     * @param decidedAt when the sequencer accepted it
     */
    public record Decision(DecisionKind decision, String approver, String reason, String tool, String pathGlob, long seq,
                           Instant decidedAt) {}

    /** The item's id in the API: {@code <sessionId>~<seq>}. */
    public String id() {
        return id(sessionId, seq);
    }

    public static String id(String sessionId, long seq) {
        return sessionId + ID_SEPARATOR + seq;
    }

    ApprovalItem decided(Status next, Decision by) {
        return new ApprovalItem(sessionId, seq, kind, next, tenantId, callId, tool, argumentsJson, shown, shownRef, requestSeq,
                requestedAt, modelId, requestedBy, outcome, by, null, false);
    }

    ApprovalItem ended(Status next, String because) {
        return new ApprovalItem(sessionId, seq, kind, next, tenantId, callId, tool, argumentsJson, shown, shownRef, requestSeq,
                requestedAt, modelId, requestedBy, outcome, null, because, false);
    }

    ApprovalItem withExpiring() {
        return new ApprovalItem(sessionId, seq, kind, status, tenantId, callId, tool, argumentsJson, shown, shownRef, requestSeq,
                requestedAt, modelId, requestedBy, outcome, decision, endedBecause, true);
    }
}
