package dev.tether.core.event;

/** {@code session_resumed}: Work on the session continues after a crash, a deploy or by hand. Written only by the sequencer. */
public record SessionResumed(ResumeReason reason, long fromSeq, String reconciliation) implements EventPayload {

    public static final String TYPE = "session_resumed";

    public SessionResumed {
        Fields.required(reason, "reason");
        Fields.nonNegative(fromSeq, "fromSeq");
        reconciliation = reconciliation == null ? "" : reconciliation;
    }

    @Override
    public String type() {
        return TYPE;
    }
}
