package dev.tether.projector.domain;

import java.time.Instant;
import java.util.List;

/**
 * What changes with every event and therefore goes at the very end of a model context, so the
 * prefix before it stays byte-stable: position, counters, time, what the session waits for, the
 * work still open.
 *
 * @param lastSeq       the seq the context was built at
 * @param step          last completed step
 * @param inputTokens   input tokens used so far
 * @param outputTokens  output tokens used so far
 * @param status        the session's status (ACTIVE, AWAITING_APPROVAL, ...)
 * @param pendingAction what the session waits for, human-readable, or null
 * @param openWork      open plan items and tool calls, human-readable lines
 * @param asOf          occurredAt of the last event
 */
public record VolatileTail(long lastSeq, int step, long inputTokens, long outputTokens, String status, String pendingAction,
                           List<String> openWork, Instant asOf) {
    public VolatileTail {
        openWork = List.copyOf(openWork);
    }
}
