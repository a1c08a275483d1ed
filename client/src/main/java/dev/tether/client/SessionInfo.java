package dev.tether.client;

import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/**
 * A session as a list shows it.
 *
 * @param sessionId       the session
 * @param tenantId        its tenant (always the caller's)
 * @param owner           the principal that started it
 * @param status          {@code open} or {@code closed}
 * @param lastSeq         its last seq
 * @param epoch           the epoch of its latest claim; 0 before any
 * @param workerId        the worker of its latest claim
 * @param modelId         the model it is pinned to
 * @param harnessVersion  the harness version it is pinned to
 * @param parentSessionId the parent, for a subagent's session
 * @param sessionStartedAt when it started: which session of its id this is, as
 *                        {@link TetherClient#subscribe(String, long, Instant, SessionEventListener)} names it; empty for
 *                        a session started before Tether recorded it, or from a service of an earlier release
 */
public record SessionInfo(String sessionId, String tenantId, String owner, String status, long lastSeq, long epoch,
                          Optional<String> workerId, String modelId, String harnessVersion, Optional<String> parentSessionId,
                          Optional<Instant> sessionStartedAt) {

    /** Which sessions a list shows. */
    public enum Status { OPEN, CLOSED }

    public SessionInfo {
        Objects.requireNonNull(sessionId, "sessionId");
        Objects.requireNonNull(workerId, "workerId");
        Objects.requireNonNull(parentSessionId, "parentSessionId");
        Objects.requireNonNull(sessionStartedAt, "sessionStartedAt");
    }

    public boolean isOpen() {
        return "open".equals(status);
    }
}
