package dev.tether.common.event;

/** {@code session_forked}: The first event of a session forked from another one. */
public record SessionForked(String parentSessionId, long atSeq) implements EventPayload {

    public static final String TYPE = "session_forked";

    public SessionForked {
        Fields.nonBlank(parentSessionId, "parentSessionId");
        Fields.positive(atSeq, "atSeq");
    }

    @Override
    public String type() {
        return TYPE;
    }
}
