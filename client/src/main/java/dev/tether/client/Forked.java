package dev.tether.client;

import java.util.Objects;

/**
 * A new session that starts with {@code session_forked}: pinned to what the parent was pinned to at
 * {@code atSeq}, its context the parent's at that seq followed by its own events.
 *
 * @param sessionId       the new session
 * @param parentSessionId the session it was forked from
 * @param atSeq           the parent's seq it was forked at
 * @param seq             the seq of its {@code session_forked}: 1
 * @param harnessVersion  the harness version it is pinned to
 * @param modelId         the model it is pinned to
 */
public record Forked(String sessionId, String parentSessionId, long atSeq, long seq, String harnessVersion, String modelId)
        implements ForkResult {

    public Forked {
        Objects.requireNonNull(sessionId, "sessionId");
        Objects.requireNonNull(parentSessionId, "parentSessionId");
    }
}
