package dev.tether.projector.domain;

import dev.tether.projector.domain.SessionProjection.CallCursor;
import dev.tether.projector.domain.SessionProjection.CallState;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Comparator;
import java.util.Objects;

/**
 * What a list of sessions shows of one session (the session explorer's list, {@code GET /v1/sessions} of the
 * projector): its status, pins, holder, position, when it last moved, and what waits in it, all read from its checkpoint.
 *
 * @param status           the checkpoint's status
 * @param workerId         the worker holding the latest claim; null if none claimed it
 * @param epoch            that claim's epoch; 0 if none
 * @param lastActivity     when the sequencer accepted its latest event
 * @param openCalls        calls asked for that have no result yet (requested, awaiting approval, authorized, running,
 *                         started)
 * @param pendingApprovals calls waiting for an approver's decision
 * @param unknownOutcomes  calls whose outcome is unknown, waiting for a person to resolve them
 */
public record SessionOverview(String sessionId, String objective, SessionProjection.Status status, String harnessVersion,
                              String modelId, String owner, String workerId, long epoch, long lastSeq, Instant lastActivity,
                              int openCalls, int pendingApprovals, int unknownOutcomes) {

    /** Most recently active first, then by id, so that a list reads the same on every instance. */
    public static final Comparator<SessionOverview> LATEST_FIRST = Comparator.comparing(Place::of, Place.ORDER);

    /**
     * Where a session stands in a list, {@link #LATEST_FIRST}: when it last moved (null last) and its id. A page of the
     * list ends at the place of its last session, and the next page starts after it ({@link #text()} is the cursor).
     */
    public record Place(Instant lastActivity, String sessionId) {

        /** Most recently active first, then by id. */
        public static final Comparator<Place> ORDER = Comparator.comparing(Place::lastActivity,
                Comparator.nullsLast(Comparator.reverseOrder())).thenComparing(Place::sessionId);

        public Place {
            Objects.requireNonNull(sessionId, "sessionId");
        }

        public static Place of(SessionOverview overview) {
            return new Place(overview.lastActivity(), overview.sessionId());
        }

        /**
         * The place {@link #text()} wrote: {@code <lastActivity>~<sessionId>}, the time empty when unknown.
         *
         * @throws IllegalArgumentException if {@code text} is not of that shape (the id is not checked here)
         */
        public static Place parse(String text) {
            int tilde = text.indexOf('~');
            if (tilde < 0 || tilde == text.length() - 1) {
                throw new IllegalArgumentException("not <lastActivity>~<sessionId>");
            }
            try {
                return new Place(tilde == 0 ? null : Instant.parse(text.substring(0, tilde)), text.substring(tilde + 1));
            } catch (DateTimeParseException e) {
                throw new IllegalArgumentException("not <lastActivity>~<sessionId>: the time is not an ISO-8601 instant", e);
            }
        }

        /** The cursor form: {@code <lastActivity>~<sessionId>} (session ids never hold {@code ~}). */
        public String text() {
            return (lastActivity == null ? "" : lastActivity.toString()) + "~" + sessionId;
        }

        /** Whether {@code other} comes after this place in the list. */
        public boolean isBefore(Place other) {
            return ORDER.compare(this, other) < 0;
        }
    }

    /** The overview of the session whose checkpoint is {@code checkpoint}. */
    public static SessionOverview of(SessionProjection checkpoint) {
        int open = 0;
        int approvals = 0;
        int unknown = 0;
        for (CallCursor call : checkpoint.toolCursor()) {
            if (!call.state().finished()) {
                open++;
            }
            if (call.awaitingApproval() && !call.state().finished()) { // as the checkpoint's pending action reads it
                approvals++;
            }
            if (call.state() == CallState.UNKNOWN) {
                unknown++;
            }
        }
        SessionProjection.Lease lease = checkpoint.lease();
        return new SessionOverview(checkpoint.sessionId(), checkpoint.objective(), checkpoint.status(), checkpoint.harnessVersion(),
                checkpoint.modelId(), checkpoint.owner(), lease == null ? null : lease.workerId(), lease == null ? 0 : lease.epoch(),
                checkpoint.lastSeq(), checkpoint.updatedAt(), open, approvals, unknown);
    }
}
