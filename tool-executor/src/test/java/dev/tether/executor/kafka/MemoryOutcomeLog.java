package dev.tether.executor.kafka;

import dev.tether.avro.ToolOutcome;
import dev.tether.kit.kafka.SessionPartitioner;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * {@code tool-outcomes} as lists, for tests without a broker: offsets from 0 per partition, timestamps as written,
 * {@link #compact} keeping the latest record of each key (offsets keep their values, as in Kafka), and
 * {@link #firstAtOrAfter} with the semantics of {@code offsetsForTimes}. Counts what is read.
 */
final class MemoryOutcomeLog implements OutcomeLog {

    record Entry(long offset, long timestamp, String key, ToolOutcome value) {}

    private final List<List<Entry>> partitions = new ArrayList<>();
    private final long[] next;
    long recordsRead;
    int timeLookups;
    /** While set, every look at the log throws it (the broker or the registry is away). */
    volatile RuntimeException failure;
    /** How many looks {@link #failure} failed. */
    final AtomicInteger failed = new AtomicInteger();
    /** Run each time where a partition ends is asked. */
    volatile Runnable atEnd = () -> {};

    MemoryOutcomeLog(int partitions) {
        for (int i = 0; i < partitions; i++) {
            this.partitions.add(new ArrayList<>());
        }
        this.next = new long[partitions];
    }

    /** Appends {@code value} on the partition of its session, stamped {@code timestamp}; returns its offset. */
    long append(ToolOutcome value, Instant timestamp) {
        return append(partitionOf(value.getIdempotencyKey()), value.getIdempotencyKey(), value, timestamp.toEpochMilli());
    }

    /** Appends an entry stamped with its own {@code startedAt}, as an executor writing STARTED would. */
    long append(ToolOutcome value) {
        return append(value, value.getStartedAt());
    }

    long append(int partition, String key, ToolOutcome value, long timestamp) {
        long offset = next[partition]++;
        partitions.get(partition).add(new Entry(offset, timestamp, key, value));
        return offset;
    }

    int partitionOf(String key) {
        return SessionPartitioner.partition(key.substring(0, key.indexOf('/')), partitions.size());
    }

    /** Removes every record that has a later one of the same key, as the log cleaner does. */
    void compact(int partition) {
        var latest = new HashMap<String, Long>();
        partitions.get(partition).forEach(e -> latest.put(e.key(), e.offset()));
        partitions.get(partition).removeIf(e -> latest.get(e.key()) != e.offset());
    }

    List<Entry> entries(int partition) {
        return List.copyOf(partitions.get(partition));
    }

    @Override
    public int partitions() {
        return partitions.size();
    }

    @Override
    public long end(int partition) {
        failIfAsked();
        atEnd.run();
        return next[partition];
    }

    @Override
    public OptionalLong firstAtOrAfter(int partition, Instant time) {
        failIfAsked();
        timeLookups++;
        return partitions.get(partition).stream().filter(e -> e.timestamp() >= time.toEpochMilli()).mapToLong(Entry::offset)
                .findFirst();
    }

    @Override
    public void read(int partition, long from, long to, Visitor visitor) {
        failIfAsked();
        for (Entry e : partitions.get(partition)) {
            if (e.offset() < from) {
                continue;
            }
            if (e.offset() >= to) {
                return;
            }
            recordsRead++;
            if (!visitor.visit(e.offset(), e.timestamp(), e.key(), e.value())) {
                return;
            }
        }
    }

    private void failIfAsked() {
        RuntimeException now = failure;
        if (now != null) {
            failed.incrementAndGet();
            throw now;
        }
    }
}
