package dev.tether.kit.service.rest;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads a {@code text/event-stream} as it arrives, in chunks cut anywhere (inside a line, between the two bytes of a
 * CRLF, inside a UTF-8 character), into its events, by the rules of the HTML standard's event-stream format: lines end
 * with CRLF, LF or CR; {@code id}, {@code event} and {@code data} fields (several data lines joined by LF); a comment
 * line starts with a colon; a blank line ends an event, and an event without data is not one. Not thread-safe: one per
 * stream.
 */
public final class SseReader {

    /**
     * One event of the stream.
     *
     * @param id    its {@code id} field, or null if it had none
     * @param event its {@code event} field (its name), or null
     * @param data  its data lines, joined by LF
     */
    public record Frame(String id, String event, String data) {}

    private final ByteArrayOutputStream line = new ByteArrayOutputStream();
    private boolean afterCr;
    private String id;
    private String event;
    private StringBuilder data;

    /** The events that {@code chunks}, the next bytes of the stream, complete; bytes of an event not complete are kept. */
    public List<Frame> read(List<ByteBuffer> chunks) {
        var frames = new ArrayList<Frame>();
        for (ByteBuffer chunk : chunks) {
            ByteBuffer bytes = chunk.duplicate();
            while (bytes.hasRemaining()) {
                byte b = bytes.get();
                if (afterCr && b == '\n') {
                    afterCr = false; // the LF of a CRLF: the line has ended already
                    continue;
                }
                afterCr = b == '\r';
                if (b == '\r' || b == '\n') {
                    endLine(frames);
                } else {
                    line.write(b);
                }
            }
        }
        return frames;
    }

    private void endLine(List<Frame> frames) {
        String text = line.toString(StandardCharsets.UTF_8); // a line ends on an ASCII byte, so never inside a character
        line.reset();
        if (text.isEmpty()) {
            if (data != null) {
                frames.add(new Frame(id, event, data.toString()));
            }
            id = null;
            event = null;
            data = null;
            return;
        }
        if (text.startsWith(":")) {
            return;
        }
        int colon = text.indexOf(':');
        String field = colon < 0 ? text : text.substring(0, colon);
        String value = colon < 0 ? "" : text.substring(colon + 1);
        if (value.startsWith(" ")) {
            value = value.substring(1);
        }
        switch (field) {
            case "id" -> id = value.indexOf('\0') < 0 ? value : id;
            case "event" -> event = value;
            case "data" -> data = data == null ? new StringBuilder(value) : data.append('\n').append(value);
            default -> { } // retry and unknown fields: nothing a relay passes on
        }
    }
}
