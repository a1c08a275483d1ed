package dev.tether.session.kafka;

/**
 * The sequencer's named state stores; their names fix the changelog topic names, so they never change. Composite keys
 * ("a NUL b") are {@link dev.tether.core.id.StoreKey}s.
 */
public final class StoreNames {

    /** sessionId → {@link dev.tether.session.domain.SessionHead}. */
    public static final String HEADS = "session-heads";
    /** sessionId NUL eventId → seq: every eventId ever appended, so a re-sent one is recognized. */
    public static final String EVENT_IDS = "session-event-ids";
    /** sessionId NUL callId → seq of the assistant message that asked for it. */
    public static final String CALL_IDS = "session-call-ids";
    /** tenantId NUL sessionId → {@link dev.tether.session.domain.SessionSummary}. */
    public static final String SESSIONS_BY_TENANT = "sessions-by-tenant";
    /** harness version → number of open sessions pinned to it (this instance's partitions). */
    public static final String OPEN_BY_VERSION = "open-sessions-by-version";
    /** (sessionId, seq) → event: session-events itself, restored from that topic (no changelog of its own). */
    public static final String EVENTS = "session-events-by-seq";
    /** version → harness version entry: the whole harness-versions topic on every instance. */
    public static final String HARNESS_VERSIONS = "harness-versions-store";

    private StoreNames() {}
}
