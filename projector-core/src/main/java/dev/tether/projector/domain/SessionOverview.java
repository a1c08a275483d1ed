package dev.tether.projector.domain;

import dev.tether.projector.domain.SessionProjection.CallCursor;
import dev.tether.projector.domain.SessionProjection.CallState;
import java.time.Instant;
import java.util.Comparator;

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
    public static final Comparator<SessionOverview> LATEST_FIRST = Comparator.comparing(SessionOverview::lastActivity,
            Comparator.nullsLast(Comparator.reverseOrder())).thenComparing(SessionOverview::sessionId);

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
