package dev.tether.client;

import java.util.Objects;

/**
 * The session exists and starts with {@code session_started} (also when this was a retry of a
 * create that had already gone through).
 *
 * @param sessionId      the session's id (the one asked for, or the one the client chose)
 * @param seq            the seq of {@code session_started}: 1
 * @param harnessVersion the harness version the session is pinned to
 * @param modelId        the model the session is pinned to
 * @param redactions     how many secrets were scrubbed from the request before it reached the log
 */
public record Created(String sessionId, long seq, String harnessVersion, String modelId, int redactions) implements CreateResult {

    public Created {
        Objects.requireNonNull(sessionId, "sessionId");
    }
}
