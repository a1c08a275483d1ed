package dev.tether.projector.kafka;

/** The projector's named state stores; their names fix the changelog topic names, so they never change. */
public final class ProjectorStores {

    /** (sessionId, seq) → event: {@code session-events} itself, restored from that topic (no changelog of its own). */
    public static final String MESSAGES = "session-messages";
    /** sessionId → latest checkpoint (Avro). */
    public static final String CHECKPOINTS = "session-checkpoint-store";
    /** sessionId NUL callId → {@link dev.tether.projector.domain.CallRecord}. */
    public static final String CALLS = "session-call-records";
    /**
     * tenantId NUL sessionId → "" ({@link dev.tether.kit.kafka.TenantIndex}): the sessions of each tenant this projector
     * holds, so that a tenant's list reads its own checkpoints, not every tenant's.
     */
    public static final String BY_TENANT = "sessions-by-tenant";

    private ProjectorStores() {}
}
