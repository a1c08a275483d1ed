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

    private ApprovalStores() {}
}
