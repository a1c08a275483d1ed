package dev.tether.client;

import java.util.Objects;

/**
 * The session is gone: a tombstone was written for each of its events and for its checkpoint.
 *
 * @param sessionId the erased session
 * @param events    how many events it had
 */
public record Erased(String sessionId, long events) implements EraseResult {

    public Erased {
        Objects.requireNonNull(sessionId, "sessionId");
    }
}
