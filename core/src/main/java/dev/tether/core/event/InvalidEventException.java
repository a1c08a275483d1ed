package dev.tether.core.event;

/**
 * An event, command or field that breaks the wire contract. {@link #field()} names the offending
 * field (a path such as {@code events[2].toolCalls[0].callId} once the caller prefixes it), so a
 * REST client gets a 400 that says what to fix. The message never contains the field's value:
 * values may hold secrets.
 */
public class InvalidEventException extends RuntimeException {

    /** The field name that stands for the object itself rather than one of its fields. */
    public static final String WHOLE = "(body)";

    private final String field;

    public InvalidEventException(String field, String message) {
        super(field + ": " + message);
        this.field = field;
    }

    /** The offending field. */
    public String field() {
        return field;
    }

    /** The same problem, with the field's path prefixed by {@code prefix} (e.g. {@code events[0].}). */
    public InvalidEventException under(String prefix) {
        String message = getMessage().substring(field.length() + 2);
        if (field.equals(WHOLE)) {
            return new InvalidEventException(prefix.endsWith(".") ? prefix.substring(0, prefix.length() - 1) : prefix, message);
        }
        return new InvalidEventException(prefix + field, message);
    }
}
