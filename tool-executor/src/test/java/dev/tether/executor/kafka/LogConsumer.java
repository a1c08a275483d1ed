package dev.tether.executor.kafka;

import dev.tether.kit.kafka.RegistryUnavailableException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.consumer.OffsetAndTimestamp;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.RecordDeserializationException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.record.TimestampType;

/**
 * A consumer of a topic held in memory, for tests without a broker: Kafka's {@link MockConsumer} plus what a test of a
 * loop's failure paths needs from a real consumer.
 * <ul>
 * <li>Records stay in the log once returned, so a seek back (a batch rewound) reads them again; a poll returns the
 *     records from the position on, as a real consumer does.</li>
 * <li>While {@link #registryAway} is set, a poll that has a record to return fails as a real consumer does when its
 *     value deserializer cannot get the record's schema from the registry: a {@link RecordDeserializationException} at
 *     that record whose cause is a {@link RegistryUnavailableException}, the position left on the record (counted in
 *     {@link #registryFailures}).</li>
 * <li>A record {@link #undecodable} fails the same way with a definite error (a schema id the registry does not know),
 *     once the position reaches it.</li>
 * <li>End offsets and offsets for times come from the log; {@link #endOffsetsTimeouts} look-ups of the ends time out
 *     first.</li>
 * <li>A poll with nothing to return waits 10 ms, as a real one waits for data, so a loop that polls does not spin.</li>
 * </ul>
 * Thread-safe as {@link MockConsumer} is (its methods lock the consumer).
 */
final class LogConsumer<K, V> extends MockConsumer<K, V> {

    static final String REGISTRY = "http://127.0.0.1:1/apis/registry/v3";

    private final Map<TopicPartition, List<ConsumerRecord<K, V>>> log = new HashMap<>();
    private final Set<ConsumerRecord<K, V>> undecodable = new HashSet<>();
    volatile boolean registryAway;
    final AtomicInteger registryFailures = new AtomicInteger();
    int endOffsetsTimeouts;
    /** Every commitSync, as asked, whether the mock took it or not. */
    final List<Map<TopicPartition, OffsetAndMetadata>> commits = new CopyOnWriteArrayList<>();

    /** A consumer of {@code topic}'s {@code partitions} partitions, each empty, that starts at the beginning. */
    LogConsumer(String topic, int partitions) {
        super("earliest");
        var infos = new ArrayList<PartitionInfo>();
        var beginnings = new HashMap<TopicPartition, Long>();
        for (int p = 0; p < partitions; p++) {
            infos.add(new PartitionInfo(topic, p, null, null, null));
            beginnings.put(new TopicPartition(topic, p), 0L);
            log.put(new TopicPartition(topic, p), new ArrayList<>());
        }
        updatePartitions(topic, infos);
        updateBeginningOffsets(beginnings);
    }

    /** Appends a record, stamped now; returns it. */
    synchronized ConsumerRecord<K, V> append(TopicPartition partition, K key, V value) {
        return append(partition, key, value, System.currentTimeMillis());
    }

    /** Appends a record stamped {@code timestamp}; returns it. */
    synchronized ConsumerRecord<K, V> append(TopicPartition partition, K key, V value, long timestamp) {
        List<ConsumerRecord<K, V>> records = log.get(partition);
        var record = new ConsumerRecord<>(partition.topic(), partition.partition(), records.size(), timestamp,
                TimestampType.CREATE_TIME, 0, 0, key, value, new RecordHeaders(), Optional.empty());
        records.add(record);
        return record;
    }

    /** Appends a record that no deserializer can ever decode (not for want of the registry). */
    synchronized void appendUndecodable(TopicPartition partition, K key) {
        undecodable.add(append(partition, key, null));
    }

    @Override
    public ConsumerRecords<K, V> poll(Duration timeout) {
        ConsumerRecords<K, V> records = fetch(timeout);
        if (records.isEmpty()) {
            try {
                Thread.sleep(10);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        return records;
    }

    /**
     * Kept here rather than by {@link MockConsumer}, whose poll throws for it only after this class has handed it the
     * records: those would stay buffered ahead of what a seek back hands it next.
     */
    private volatile boolean wakeup;

    @Override
    public synchronized void commitSync(Map<TopicPartition, OffsetAndMetadata> offsets) {
        commits.add(Map.copyOf(offsets));
        super.commitSync(offsets);
    }

    @Override
    public void wakeup() {
        wakeup = true;
    }

    private synchronized ConsumerRecords<K, V> fetch(Duration timeout) {
        if (wakeup) {
            wakeup = false;
            throw new org.apache.kafka.common.errors.WakeupException();
        }
        for (TopicPartition partition : assignment()) {
            if (paused().contains(partition)) {
                continue;
            }
            long position = position(partition);
            for (ConsumerRecord<K, V> record : log.get(partition)) {
                if (record.offset() < position) {
                    continue;
                }
                if (registryAway) {
                    registryFailures.incrementAndGet();
                    throw deserializationFailure(record, new RegistryUnavailableException(REGISTRY, "did not answer within 3000 ms", null));
                }
                if (undecodable.contains(record)) {
                    if (record.offset() == position) {
                        throw deserializationFailure(record, new IllegalArgumentException("no schema with id 999999"));
                    }
                    break; // what comes before it is returned first
                }
                addRecord(record);
            }
        }
        return super.poll(timeout);
    }

    private static RecordDeserializationException deserializationFailure(ConsumerRecord<?, ?> record, Throwable cause) {
        var partition = new TopicPartition(record.topic(), record.partition());
        return new RecordDeserializationException(RecordDeserializationException.DeserializationExceptionOrigin.VALUE, partition,
                record.offset(), record.timestamp(), record.timestampType(), null, null, record.headers(),
                "Error deserializing VALUE for partition " + partition + " at offset " + record.offset(), cause);
    }

    @Override
    public synchronized Map<TopicPartition, Long> endOffsets(Collection<TopicPartition> partitions) {
        if (endOffsetsTimeouts > 0) {
            endOffsetsTimeouts--;
            throw new TimeoutException("Failed to get offsets by times in 5000ms");
        }
        var ends = new HashMap<TopicPartition, Long>();
        partitions.forEach(p -> ends.put(p, (long) log.get(p).size()));
        return ends;
    }

    @Override
    public Map<TopicPartition, Long> endOffsets(Collection<TopicPartition> partitions, Duration timeout) {
        return endOffsets(partitions);
    }

    @Override
    public synchronized Map<TopicPartition, OffsetAndTimestamp> offsetsForTimes(Map<TopicPartition, Long> timestamps) {
        timestamps.forEach((partition, time) -> {
            if (time < 0) { // as KafkaConsumer refuses it
                throw new IllegalArgumentException("The target time for partition " + partition + " is " + time
                        + ". The target time cannot be negative.");
            }
        });
        var found = new HashMap<TopicPartition, OffsetAndTimestamp>();
        timestamps.forEach((partition, time) -> log.get(partition).stream().filter(r -> r.timestamp() >= time).findFirst()
                .ifPresentOrElse(r -> found.put(partition, new OffsetAndTimestamp(r.offset(), r.timestamp())),
                        () -> found.put(partition, null)));
        return found;
    }

    @Override
    public Map<TopicPartition, OffsetAndTimestamp> offsetsForTimes(Map<TopicPartition, Long> timestamps, Duration timeout) {
        return offsetsForTimes(timestamps);
    }
}
