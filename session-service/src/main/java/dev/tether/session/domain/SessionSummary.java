package dev.tether.session.domain;

/**
 * What a session list shows of one session; kept per tenant so a tenant lists only its own. The sequencer writes it again
 * only when more than {@code lastSeq} changes ({@link #listsAs}); the list takes {@code lastSeq} from the session's head.
 */
public record SessionSummary(String sessionId, String tenantId, String owner, String status, long lastSeq, long epoch,
                             String workerId, String modelId, String harnessVersion, String parentSessionId) {

    public static final String OPEN = "open";
    public static final String CLOSED = "closed";

    public static SessionSummary of(SessionHead head) {
        return new SessionSummary(head.sessionId(), head.tenantId(), head.owner(), head.closed() ? CLOSED : OPEN, head.lastSeq(),
                head.epoch(), head.workerId(), head.modelId(), head.harnessVersion(), head.parentSessionId());
    }

    public SessionSummary withLastSeq(long seq) {
        return new SessionSummary(sessionId, tenantId, owner, status, seq, epoch, workerId, modelId, harnessVersion, parentSessionId);
    }

    /** Whether a list shows {@code other} as this, its {@code lastSeq} (which the list reads from the head) aside. */
    public boolean listsAs(SessionSummary other) {
        return equals(other.withLastSeq(lastSeq));
    }
}
