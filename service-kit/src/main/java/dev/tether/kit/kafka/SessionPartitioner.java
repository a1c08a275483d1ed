package dev.tether.kit.kafka;

import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.kafka.clients.producer.Partitioner;
import org.apache.kafka.common.Cluster;
import org.apache.kafka.common.utils.Utils;
import org.apache.kafka.streams.processor.StreamPartitioner;

/**
 * Puts a record on the partition Kafka's default partitioner gives its plain sessionId key:
 * {@code toPositive(murmur2(utf8(sessionId))) % partitions}. So every event of a session
 * ({@link SessionEventKey}) lands on the partition of that session's commands (key sessionId),
 * and {@code session-commands} and {@code session-events} are co-partitioned.
 *
 * <p>Accepts {@link SessionEventKey} keys, plain sessionId keys, and tool idempotency keys
 * ({@code sessionId/seq/callId}, partitioned by their sessionId: a session's tool requests and
 * outcomes share the partition of its events, so one task sees all of a session). Usable by a producer
 * ({@code partitioner.class}) and by Kafka Streams ({@code Produced.withStreamPartitioner}).
 * Stateless and thread-safe.
 */
public final class SessionPartitioner implements Partitioner, StreamPartitioner<Object, Object> {

    /** The partition of {@code sessionId} among {@code numPartitions}. */
    public static int partition(String sessionId, int numPartitions) {
        return Utils.toPositive(Utils.murmur2(sessionId.getBytes(StandardCharsets.UTF_8))) % numPartitions;
    }

    @Override
    public Optional<Set<Integer>> partitions(String topic, Object key, Object value, int numPartitions) {
        return Optional.of(Set.of(partition(sessionIdOf(key), numPartitions)));
    }

    @Override
    public int partition(String topic, Object key, byte[] keyBytes, Object value, byte[] valueBytes, Cluster cluster) {
        return partition(sessionIdOf(key), cluster.partitionCountForTopic(topic));
    }

    private static String sessionIdOf(Object key) {
        if (key instanceof SessionEventKey k) {
            return k.sessionId();
        }
        if (key instanceof String text) {
            int slash = text.indexOf('/');
            return slash < 0 ? text : text.substring(0, slash); // a session id never holds a '/'
        }
        throw new IllegalArgumentException("SessionPartitioner needs a SessionEventKey or a sessionId key, got "
                + (key == null ? "null" : key.getClass().getName()));
    }

    @Override
    public void configure(Map<String, ?> configs) {}

    @Override
    public void close() {}
}
