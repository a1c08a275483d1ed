package dev.tether.kit.kafka;

import java.util.Objects;

/**
 * The key of a record in {@code session-events}: one per event, so log compaction keeps every
 * event, and erasing a session is a tombstone per key. Partitioned by {@code sessionId} alone
 * ({@link SessionPartitioner}), so a session's events stay on one partition, in order.
 *
 * @param sessionId the session, never null
 * @param seq       the event's position in the session, from 1
 */
public record SessionEventKey(String sessionId, long seq) {

    public SessionEventKey {
        Objects.requireNonNull(sessionId, "sessionId");
        if (seq < 1) {
            throw new IllegalArgumentException("seq starts at 1, got " + seq);
        }
    }

    @Override
    public String toString() {
        return sessionId + "/" + seq;
    }
}
