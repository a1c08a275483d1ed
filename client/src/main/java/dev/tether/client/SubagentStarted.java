package dev.tether.client;

import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/**
 * The subagent's session exists and starts with {@code session_started} naming its parent (also when this was a retry
 * of a start that had already gone through).
 *
 * @param sessionId        the subagent's session
 * @param parentSessionId  its parent
 * @param seq              the seq of its {@code session_started}: 1
 * @param harnessVersion   the harness version it is pinned to: its parent's
 * @param modelId          the model it is pinned to: its parent's
 * @param toolMode         its tool mode
 * @param redactions       how many secrets were scrubbed from the request before it reached the log
 * @param sessionStartedAt when its {@code session_started} was accepted: which session of its id this is; empty from a
 *                         service of an earlier release
 */
public record SubagentStarted(String sessionId, String parentSessionId, long seq, String harnessVersion, String modelId, ToolMode toolMode,
                              int redactions, Optional<Instant> sessionStartedAt) implements SubagentStartResult {

    public SubagentStarted {
        Objects.requireNonNull(sessionId, "sessionId");
        Objects.requireNonNull(parentSessionId, "parentSessionId");
        Objects.requireNonNull(sessionStartedAt, "sessionStartedAt");
    }
}
