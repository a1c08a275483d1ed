package dev.tether.client.internal;

import java.util.Optional;

/**
 * Reads a {@code text/event-stream} line by line, as the HTML Living Standard's "event stream
 * interpretation" says: {@code field: value} lines (one optional space after the colon), comments
 * starting with {@code :}, a blank line dispatching the event; {@code data} lines join with
 * {@code \n}; the last {@code id} is kept across events. Not part of the API. Not thread-safe: one
 * parser per stream.
 */
public final class SseParser {

    /**
     * One dispatched event.
     *
     * @param id    the last event id seen on the stream (the seq, for Tether); empty before any
     * @param event the event type ({@code message} when none was given)
     * @param data  the data lines, joined with {@code \n}
     */
    public record Message(Optional<String> id, String event, String data) {}

    private final StringBuilder data = new StringBuilder();
    private String event;
    private String lastId;
    private boolean hasData;

    /** Feeds one line (without its line ending); returns the event a blank line dispatches. */
    public Optional<Message> line(String line) {
        if (line.isEmpty()) {
            return dispatch();
        }
        if (line.charAt(0) == ':') {
            return Optional.empty(); // a comment, e.g. a keep-alive
        }
        int colon = line.indexOf(':');
        String field = colon < 0 ? line : line.substring(0, colon);
        String value = colon < 0 ? "" : line.substring(colon + 1);
        if (value.startsWith(" ")) {
            value = value.substring(1);
        }
        switch (field) {
            case "event" -> event = value;
            case "data" -> {
                if (hasData) {
                    data.append('\n');
                }
                data.append(value);
                hasData = true;
            }
            case "id" -> {
                if (value.indexOf('\0') < 0) {
                    lastId = value;
                }
            }
            default -> {
                // "retry" and unknown fields: the subscription has its own backoff
            }
        }
        return Optional.empty();
    }

    private Optional<Message> dispatch() {
        if (!hasData) {
            event = null;
            return Optional.empty();
        }
        var message = new Message(Optional.ofNullable(lastId), event == null || event.isEmpty() ? "message" : event, data.toString());
        data.setLength(0);
        hasData = false;
        event = null;
        return Optional.of(message);
    }
}
