package dev.tether.core.event;

/**
 * An event of a type this reader does not know: written by a newer version (the schema stays
 * FULL compatible, so older readers still read it). Folds treat it as a no-op; nothing writes it.
 */
public record UnknownEvent(String type) implements EventPayload {
    public UnknownEvent {
        Fields.nonBlank(type, "type");
    }
}
