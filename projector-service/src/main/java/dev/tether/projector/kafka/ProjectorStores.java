package dev.tether.projector.kafka;

/** The projector's named state stores; their names fix the changelog topic names, so they never change. */
public final class ProjectorStores {

    /** (sessionId, seq) → event: {@code session-events} itself, restored from that topic (no changelog of its own). */
    public static final String MESSAGES = "session-messages";
    /** sessionId → latest checkpoint (Avro). */
    public static final String CHECKPOINTS = "session-checkpoint-store";
    /** sessionId NUL callId → {@link dev.tether.projector.domain.CallRecord}. */
    public static final String CALLS = "session-call-records";

    private ProjectorStores() {}
}
