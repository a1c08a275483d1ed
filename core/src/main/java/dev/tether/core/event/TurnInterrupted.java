package dev.tether.core.event;

/** {@code turn_interrupted}: The current turn was cut short; its partial text is kept. */
public record TurnInterrupted(String partialText, String reason) implements EventPayload {

    public static final String TYPE = "turn_interrupted";

    public TurnInterrupted {
        partialText = partialText == null ? "" : partialText;
        reason = reason == null ? "" : reason;
    }

    @Override
    public String type() {
        return TYPE;
    }
}
