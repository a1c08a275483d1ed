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
     * tenantId NUL sessionId → "" (keys only): the sessions of each tenant this projector holds, so that a tenant's list
     * reads its own checkpoints, not every tenant's. Its key {@link #BY_TENANT_FILLED} says it holds every session of the
     * partition (filled from the checkpoints once, for sessions projected before it existed).
     */
    public static final String BY_TENANT = "sessions-by-tenant";
    /** The key of {@link #BY_TENANT} that marks a partition's index as filled; no tenant's key starts with NUL. */
    public static final String BY_TENANT_FILLED = "\u0000filled";

    private ProjectorStores() {}
}
