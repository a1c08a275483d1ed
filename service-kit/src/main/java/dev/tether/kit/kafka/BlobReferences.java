package dev.tether.kit.kafka;

import dev.tether.core.id.StoreKey;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import java.util.Set;
import org.apache.kafka.common.utils.Utils;
import org.apache.kafka.streams.processor.StreamPartitioner;

/**
 * The keys of {@code blob-references} and where they go (docs/ARCHITECTURE.md §4, "Blobs"). A key is
 * {@code tenantId NUL sha256 NUL sessionId}: that the session refers to the tenant's blob while its value is there, no
 * longer once tombstoned. A tombstone of the key with an empty session id, which no session has, is a <em>nomination</em>:
 * the blob was just put, and is deleted after the grace unless a session refers to it by then (so content offloaded for
 * an append that was then refused does not stay for ever). Every key of one blob goes to one partition, the one Kafka's
 * default partitioner gives {@code tenantId NUL sha256}, so whether any session still refers to a blob is known there.
 * Stateless and thread-safe.
 */
public final class BlobReferences {

    private BlobReferences() {}

    /** The key of {@code sessionId}'s reference to the tenant's blob {@code sha256}. */
    public static String key(String tenantId, String sha256, String sessionId) {
        return StoreKey.of(tenantId, sha256, sessionId);
    }

    /** The key whose tombstone nominates the blob for deletion: no session's. */
    public static String nomination(String tenantId, String sha256) {
        return key(tenantId, sha256, "");
    }

    /** Whether {@code key} is a nomination's (no session's). */
    public static boolean isNomination(String key) {
        return key.endsWith(String.valueOf(StoreKey.SEPARATOR));
    }

    /** The blob of a key: {@code tenantId NUL sha256}. */
    public static String blobOf(String key) {
        return key.substring(0, key.lastIndexOf(StoreKey.SEPARATOR));
    }

    /** The partition of {@code key} among {@code numPartitions}: its blob's. */
    public static int partition(String key, int numPartitions) {
        return Utils.toPositive(Utils.murmur2(blobOf(key).getBytes(StandardCharsets.UTF_8))) % numPartitions;
    }

    /** {@link #partition} for Kafka Streams' sinks. */
    public static final class Partitioner implements StreamPartitioner<Object, Object> {

        @Override
        public Optional<Set<Integer>> partitions(String topic, Object key, Object value, int numPartitions) {
            return Optional.of(Set.of(partition((String) key, numPartitions)));
        }
    }
}
