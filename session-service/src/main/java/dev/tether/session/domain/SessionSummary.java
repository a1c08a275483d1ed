package dev.tether.session.domain;

/** What a session list shows of one session; kept per tenant so a tenant lists only its own. */
public record SessionSummary(String sessionId, String tenantId, String owner, String status, long lastSeq, long epoch,
                             String workerId, String modelId, String harnessVersion, String parentSessionId) {

    public static final String OPEN = "open";
    public static final String CLOSED = "closed";

    public static SessionSummary of(SessionHead head) {
        return new SessionSummary(head.sessionId(), head.tenantId(), head.owner(), head.closed() ? CLOSED : OPEN, head.lastSeq(),
                head.epoch(), head.workerId(), head.modelId(), head.harnessVersion(), head.parentSessionId());
    }
}
