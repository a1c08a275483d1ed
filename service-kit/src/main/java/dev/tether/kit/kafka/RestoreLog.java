package dev.tether.kit.kafka;

import java.util.Collections;
import java.util.Locale;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.stream.Collectors;
import java.util.function.LongSupplier;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.streams.processor.StateRestoreListener;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Says in the log how long the application's stores took to restore, and how many records that read: a service that
 * starts on an empty state directory, or after a crash under exactly-once (which wipes the stores of the tasks it ran),
 * serves those partitions only once they are restored. One line when a restore begins — the first store partition of
 * a wave of restores — and one when the last store partition restoring ends:
 * <pre>restored 1,002,345 records into 24 store partitions (checkpoints 2,345, messages 1,000,000) in 4,512 ms: 222,150 records/s</pre>
 * Restores that overlap are one wave; a store partition that begins after the others ended starts the next. A restore
 * suspended (its task moved away before it finished) ends with the records it had read. Standby replicas' updates are
 * not restores and are not counted here.
 *
 * <p>Registered with Kafka Streams as its global {@link StateRestoreListener} (the Quarkus extension does that for the
 * bean of that type). Called by the threads that restore (Kafka Streams' state updaters); thread-safe.
 */
public final class RestoreLog implements StateRestoreListener {

    private static final Logger LOG = LoggerFactory.getLogger(RestoreLog.class);

    /** A wave's summary, as the log line says it: the records restored into each store, by name (in name order). */
    public record Wave(int storePartitions, Map<String, Long> recordsByStore, long millis) {

        public Wave {
            recordsByStore = Collections.unmodifiableSortedMap(new TreeMap<>(recordsByStore));
        }

        /** Records restored into all the stores. */
        public long records() {
            return recordsByStore.values().stream().mapToLong(Long::longValue).sum();
        }

        /** Records restored per second of the wave. */
        public double recordsPerSecond() {
            return millis == 0 ? records() * 1000.0 : records() * 1000.0 / millis;
        }

        @Override
        public String toString() {
            return String.format(Locale.ROOT, "restored %,d records into %d store partitions (%s) in %,d ms: %,.0f records/s", records(),
                    storePartitions, byStore(recordsByStore), millis, recordsPerSecond());
        }
    }

    /** Records by store as the log line gives them: {@code checkpoints 2,345, messages 1,000,000}, in name order. */
    public static String byStore(Map<String, Long> recordsByStore) {
        return new TreeMap<>(recordsByStore).entrySet().stream()
                .map(e -> String.format(Locale.ROOT, "%s %,d", e.getKey(), e.getValue())).collect(Collectors.joining(", "));
    }

    private final LongSupplier nanoClock;
    private int restoring;
    private long startNanos;
    private long offsetsToRestore;
    private int storePartitions;
    private final SortedMap<String, Long> recordsByStore = new TreeMap<>();
    private Wave last;

    public RestoreLog() {
        this(System::nanoTime);
    }

    RestoreLog(LongSupplier nanoClock) {
        this.nanoClock = nanoClock;
    }

    @Override
    public synchronized void onRestoreStart(TopicPartition partition, String storeName, long startingOffset, long endingOffset) {
        if (restoring++ == 0) {
            startNanos = nanoClock.getAsLong();
            offsetsToRestore = 0;
            storePartitions = 0;
            recordsByStore.clear();
            LOG.info("restoring {} from {} (offsets {} to {}), and any store that joins before the restore ends", storeName, partition,
                    startingOffset, endingOffset);
        }
        storePartitions++;
        offsetsToRestore += Math.max(0, endingOffset - startingOffset);
        recordsByStore.putIfAbsent(storeName, 0L);
    }

    @Override
    public void onBatchRestored(TopicPartition partition, String storeName, long batchEndOffset, long numRestored) {
        // the wave is summed at each store partition's end
    }

    @Override
    public synchronized void onRestoreEnd(TopicPartition partition, String storeName, long totalRestored) {
        ended(storeName, totalRestored);
    }

    @Override
    public synchronized void onRestoreSuspended(TopicPartition partition, String storeName, long totalRestored) {
        ended(storeName, totalRestored);
    }

    /** The last wave that ended; null before the first. */
    public synchronized Wave lastWave() {
        return last;
    }

    private void ended(String storeName, long totalRestored) {
        if (restoring == 0) {
            return; // an end without its start: a listener registered mid-restore
        }
        recordsByStore.merge(storeName, totalRestored, Long::sum);
        if (--restoring == 0) {
            last = new Wave(storePartitions, recordsByStore, (nanoClock.getAsLong() - startNanos) / 1_000_000);
            LOG.info("{} ({} offsets to read, transaction markers included)", last, offsetsToRestore);
        }
    }
}
