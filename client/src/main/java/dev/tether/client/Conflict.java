package dev.tether.client;

import java.util.Objects;

/**
 * The batch's {@code expectedSeq} is not the session's last seq: someone appended in between
 * (another writer, the executor's {@code tool_result}, an approval). Nothing was appended; re-read
 * from {@code lastSeq} and decide again.
 *
 * @param lastSeq the session's last seq now
 * @param message the service's explanation; never null
 */
public record Conflict(long lastSeq, String message) implements AppendResult {

    public Conflict {
        Objects.requireNonNull(message, "message");
    }
}
