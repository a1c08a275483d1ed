package dev.tether.approval.kafka;

/** The names of the approval-service's state stores; their changelog topics are named after them. */
public final class ApprovalStores {

    /** sessionId → {@link dev.tether.approval.domain.SessionApprovals}, as JSON. */
    public static final String SESSIONS = "approval-sessions";

    /**
     * The pending items, oldest first per tenant: {@code tenantId NUL requestedAt NUL sessionId NUL seq} → item id.
     * Lists and the expiry sweep read it instead of every session.
     */
    public static final String PENDING = "approval-pending";

    /**
     * {@code tenantId NUL sessionId} → "" ({@link dev.tether.kit.kafka.TenantIndex}): each tenant's sessions, so that the
     * lists that read every session of a tenant (grants, finished items) read its own, not every tenant's.
     */
    public static final String BY_TENANT = "approval-sessions-by-tenant";

    private ApprovalStores() {}
}
