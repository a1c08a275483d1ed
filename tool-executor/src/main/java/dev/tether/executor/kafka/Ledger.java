package dev.tether.executor.kafka;

import dev.tether.avro.OutcomeState;
import dev.tether.avro.ToolOutcome;
import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.common.TopicPartition;
import org.jboss.logging.Logger;

/**
 * The executor's view of the {@code tool-outcomes} ledger: the latest outcome of every call key of the partitions
 * this instance owns. It is loaded from the topic when partitions are assigned (the topic is compacted by key, so a
 * load reads one record per call, and the previous owner's writes are in it: it wrote them synchronously before it
 * gave the partition up), then kept current by the executor's own synchronous writes, which are the only ones for
 * those keys while it owns their partitions.
 *
 * <p>Thread-safe.
 */
final class Ledger {

    private static final Logger LOG = Logger.getLogger(Ledger.class);

    private final Map<String, ToolOutcome> outcomes = new ConcurrentHashMap<>();

    /** The latest outcome recorded for {@code key}, if any. */
    Optional<ToolOutcome> get(String key) {
        return Optional.ofNullable(outcomes.get(key));
    }

    /** Records {@code outcome}, once it is durably written. */
    void put(ToolOutcome outcome) {
        outcomes.put(outcome.getIdempotencyKey(), outcome);
    }

    int size() {
        return outcomes.size();
    }

    /**
     * Reads {@code partitions} of {@code tool-outcomes} from their beginning to their current end with
     * {@code consumer} (assigned here, not subscribed), replacing what is known of their keys.
     *
     * @return how many calls the partitions hold that were STARTED and never ended: unknown outcomes, reconciled when
     *     their requests come again
     */
    int load(Consumer<String, ToolOutcome> consumer, Collection<TopicPartition> partitions, Duration timeout) {
        if (partitions.isEmpty()) {
            return 0;
        }
        consumer.assign(partitions);
        consumer.seekToBeginning(partitions);
        Map<TopicPartition, Long> end = new HashMap<>(consumer.endOffsets(partitions, timeout));
        var loaded = new HashMap<String, ToolOutcome>();
        long deadline = System.nanoTime() + timeout.toNanos();
        while (end.entrySet().stream().anyMatch(e -> consumer.position(e.getKey(), timeout) < e.getValue())) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("could not read the ledger partitions " + partitions + " within " + timeout);
            }
            for (var record : consumer.poll(Duration.ofMillis(200))) {
                if (record.value() == null) {
                    loaded.remove(record.key()); // erased with its session
                    outcomes.remove(record.key());
                } else {
                    loaded.put(record.key(), record.value());
                }
            }
        }
        outcomes.putAll(loaded);
        int unfinished = (int) loaded.values().stream().filter(o -> o.getState() == OutcomeState.STARTED).count();
        LOG.infof("ledger: loaded %d calls from %s; %d STARTED without an end", loaded.size(), partitions, unfinished);
        return unfinished;
    }
}
