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

    /**
     * sessionId NUL tenantId NUL sha256 → "": the blobs each session refers to, so that its erasure tombstones its
     * references on {@code blob-references} ({@link SessionBlobs}).
     */
    public static final String SESSION_BLOBS = "session-blob-references";
    /**
     * tenantId NUL sha256 NUL sessionId → the reference: {@code blob-references} itself, restored from that topic (no
     * changelog of its own); every reference to a blob is on one partition ({@link BlobSweeper}).
     */
    public static final String BLOB_REFERENCES = "blob-references-store";
    /** tenantId NUL sha256 → "": the blobs of this partition of {@code blob-references} no session refers to any more. */
    public static final String UNREFERENCED = "blob-unreferenced";

    private ProjectorStores() {}
}
