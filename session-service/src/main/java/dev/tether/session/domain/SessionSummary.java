package dev.tether.session.domain;

import java.time.Instant;

/**
 * What a session list shows of one session; kept per tenant so a tenant lists only its own. The sequencer writes it again
 * only when more than {@code lastSeq} changes ({@link #listsAs}); the list takes {@code lastSeq} and {@code sessionStartedAt}
 * from the session's head, so the stored summary does not keep the start ({@code null} there).
 *
 * @param sessionStartedAt when the session started ({@link SessionHead#startedAt()}): which session of its id this is, as a
 *                         subscription names it ({@code sessionStartedAt}) to be refused one made under the id since; null
 *                         for a session started before Tether recorded it
 */
public record SessionSummary(String sessionId, String tenantId, String owner, String status, long lastSeq, long epoch,
                             String workerId, String modelId, String harnessVersion, String parentSessionId,
                             Instant sessionStartedAt) {

    public static final String OPEN = "open";
    public static final String CLOSED = "closed";

    public static SessionSummary of(SessionHead head) {
        return new SessionSummary(head.sessionId(), head.tenantId(), head.owner(), head.closed() ? CLOSED : OPEN, head.lastSeq(),
                head.epoch(), head.workerId(), head.modelId(), head.harnessVersion(), head.parentSessionId(), head.startedAt());
    }

    /** This summary with what the list takes from the session's head. */
    public SessionSummary withHead(long seq, Instant startedAt) {
        return new SessionSummary(sessionId, tenantId, owner, status, seq, epoch, workerId, modelId, harnessVersion, parentSessionId,
                startedAt);
    }

    /** Whether a list shows {@code other} as this, what it takes from the head ({@code lastSeq}, the start) aside. */
    public boolean listsAs(SessionSummary other) {
        return equals(other.withHead(lastSeq, sessionStartedAt));
    }
}
