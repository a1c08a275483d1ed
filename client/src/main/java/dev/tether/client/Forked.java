package dev.tether.client;

import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;

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
 * @param tokenBudget     the most tokens it may use: what its parent had left at {@code atSeq}; empty when unbounded (and
 *                        from a service of an earlier release)
 * @param sessionStartedAt when its {@code session_forked} was accepted: which session of its id this is; empty from a
 *                        service of an earlier release
 */
public record Forked(String sessionId, String parentSessionId, long atSeq, long seq, String harnessVersion, String modelId,
                     OptionalLong tokenBudget, Optional<Instant> sessionStartedAt) implements ForkResult {

    public Forked {
        Objects.requireNonNull(sessionId, "sessionId");
        Objects.requireNonNull(parentSessionId, "parentSessionId");
        Objects.requireNonNull(tokenBudget, "tokenBudget");
        Objects.requireNonNull(sessionStartedAt, "sessionStartedAt");
    }

    /** A fork whose budget and start are not known. */
    public Forked(String sessionId, String parentSessionId, long atSeq, long seq, String harnessVersion, String modelId) {
        this(sessionId, parentSessionId, atSeq, seq, harnessVersion, modelId, OptionalLong.empty(), Optional.empty());
    }
}
