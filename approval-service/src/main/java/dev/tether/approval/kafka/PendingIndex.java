package dev.tether.approval.kafka;

import dev.tether.approval.domain.ApprovalItem;
import java.time.Instant;

/**
 * Keys of the {@value ApprovalStores#PENDING} store: {@code tenantId NUL requestedAt NUL sessionId NUL seq}, with the
 * numbers zero-padded so that the byte order of keys is oldest first within a tenant.
 */
final class PendingIndex {

    static final char SEPARATOR = '\u0000';

    /** One entry, parsed back from its key. */
    record Entry(String tenantId, Instant requestedAt, String sessionId, long seq) {}

    private PendingIndex() {}

    static String key(ApprovalItem item) {
        return item.tenantId() + SEPARATOR + String.format("%019d", item.requestedAt().toEpochMilli()) + SEPARATOR + item.sessionId()
                + SEPARATOR + String.format("%019d", item.seq());
    }

    static String prefix(String tenantId) {
        return tenantId + SEPARATOR;
    }

    static Entry parse(String key) {
        String[] parts = key.split(String.valueOf(SEPARATOR), -1);
        return new Entry(parts[0], Instant.ofEpochMilli(Long.parseLong(parts[1])), parts[2], Long.parseLong(parts[3]));
    }
}
