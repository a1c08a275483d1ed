package dev.tether.approval.kafka;

import dev.tether.approval.domain.ApprovalItem;
import dev.tether.core.id.StoreKey;
import java.time.Instant;
import java.util.List;

/**
 * Keys of the {@value ApprovalStores#PENDING} store: the {@link StoreKey} {@code tenantId NUL requestedAt NUL sessionId
 * NUL seq}, with the numbers {@link StoreKey#sortable sortable} so that the byte order of keys is oldest first within a
 * tenant.
 */
final class PendingIndex {

    /** One entry, parsed back from its key. */
    record Entry(String tenantId, Instant requestedAt, String sessionId, long seq) {}

    private PendingIndex() {}

    static String key(ApprovalItem item) {
        return StoreKey.of(item.tenantId(), StoreKey.sortable(item.requestedAt().toEpochMilli()), item.sessionId(),
                StoreKey.sortable(item.seq()));
    }

    static String prefix(String tenantId) {
        return StoreKey.prefix(tenantId);
    }

    static Entry parse(String key) {
        List<String> parts = StoreKey.parts(key);
        return new Entry(parts.get(0), Instant.ofEpochMilli(Long.parseLong(parts.get(1))), parts.get(2), Long.parseLong(parts.get(3)));
    }
}
