package dev.tether.core.event;

/** {@code session_claimed}: A worker took over the session; its epoch fences every earlier worker. Written only by the sequencer. */
public record SessionClaimed(String workerId, long epoch, String harnessVersion) implements EventPayload {

    public static final String TYPE = "session_claimed";

    public SessionClaimed {
        Fields.nonBlank(workerId, "workerId");
        Fields.positive(epoch, "epoch");
        Fields.nonBlank(harnessVersion, "harnessVersion");
    }

    @Override
    public String type() {
        return TYPE;
    }
}
