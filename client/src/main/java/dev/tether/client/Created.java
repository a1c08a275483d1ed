package dev.tether.client;

import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/**
 * The session exists and starts with {@code session_started} (also when this was a retry of a
 * create that had already gone through).
 *
 * @param sessionId      the session's id (the one asked for, or the one the client chose)
 * @param seq            the seq of {@code session_started}: 1
 * @param harnessVersion the harness version the session is pinned to
 * @param modelId        the model the session is pinned to
 * @param redactions     how many secrets were scrubbed from the request before it reached the log
 * @param sessionStartedAt when its {@code session_started} was accepted: which session of its id this is (see
 *                       {@link AppendBatch#forSessionStartedAt}); empty from a service of an earlier release
 */
public record Created(String sessionId, long seq, String harnessVersion, String modelId, int redactions, Optional<Instant> sessionStartedAt)
        implements CreateResult {

    public Created {
        Objects.requireNonNull(sessionId, "sessionId");
        Objects.requireNonNull(sessionStartedAt, "sessionStartedAt");
    }

    /** A created session whose start is not known. */
    public Created(String sessionId, long seq, String harnessVersion, String modelId, int redactions) {
        this(sessionId, seq, harnessVersion, modelId, redactions, Optional.empty());
    }
}
