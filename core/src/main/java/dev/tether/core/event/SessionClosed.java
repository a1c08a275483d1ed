package dev.tether.core.event;

/** {@code session_closed}: The session is finished; nothing may be appended after it. */
public record SessionClosed(String outcome) implements EventPayload {

    public static final String TYPE = "session_closed";

    public SessionClosed {
        outcome = outcome == null ? "" : outcome;
    }

    @Override
    public String type() {
        return TYPE;
    }
}
