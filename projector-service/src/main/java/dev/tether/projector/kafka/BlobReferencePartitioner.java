package dev.tether.projector.kafka;

import dev.tether.core.id.StoreKey;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import java.util.Set;
import org.apache.kafka.common.utils.Utils;
import org.apache.kafka.streams.processor.StreamPartitioner;

/**
 * Places a reference on {@code blob-references} ({@code tenantId NUL sha256 NUL sessionId}) by its blob, the key's
 * {@code tenantId NUL sha256}, as Kafka's default partitioner would place that key: every session's reference to one
 * blob lands on one partition. Stateless and thread-safe.
 */
final class BlobReferencePartitioner implements StreamPartitioner<Object, Object> {

    @Override
    public Optional<Set<Integer>> partitions(String topic, Object key, Object value, int numPartitions) {
        return Optional.of(Set.of(partition((String) key, numPartitions)));
    }

    static int partition(String referenceKey, int numPartitions) {
        String blob = referenceKey.substring(0, referenceKey.lastIndexOf(StoreKey.SEPARATOR));
        return Utils.toPositive(Utils.murmur2(blob.getBytes(StandardCharsets.UTF_8))) % numPartitions;
    }
}
