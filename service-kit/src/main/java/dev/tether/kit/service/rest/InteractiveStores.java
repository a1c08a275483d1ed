package dev.tether.kit.service.rest;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StoreQueryParameters;
import org.apache.kafka.streams.errors.InvalidStateStoreException;
import org.apache.kafka.streams.errors.InvalidStateStorePartitionException;
import org.apache.kafka.streams.state.QueryableStoreTypes;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;

/**
 * A Kafka Streams application's key-value stores for a REST read (interactive queries over this instance's
 * partitions). While the application is not RUNNING (starting, rebalancing, ...) or a store is still restoring, the
 * answer is 503 with {@code Retry-After: 1}, never stale or partial data: {@code {"error": "unavailable", "message":
 * "<what> is rebalancing; try again shortly"}}, or {@code "<what> is restoring; ..."}. Which instance holds a session
 * is {@link OwnerRouting}'s business. Thread-safe; the stores it returns are views to read right away, not to keep.
 */
public final class InteractiveStores {

    private final KafkaStreams streams;
    private final String what;

    /**
     * @param streams the application, never null
     * @param what    what its stores are called in a refusal, e.g. {@code "the projection"}
     */
    public InteractiveStores(KafkaStreams streams, String what) {
        this.streams = streams;
        this.what = what;
    }

    /**
     * The store {@code name} across this instance's partitions.
     *
     * @throws ApiException 503 with {@code Retry-After} while the application is not RUNNING or the store restores
     */
    public <K, V> ReadOnlyKeyValueStore<K, V> keyValue(String name) {
        KafkaStreams.State state = streams.state();
        if (state != KafkaStreams.State.RUNNING) {
            throw ApiException.unavailable(what + " is " + state.name().toLowerCase(Locale.ROOT) + "; try again shortly", 1);
        }
        try {
            return streams.store(StoreQueryParameters.fromNameAndType(name, QueryableStoreTypes.<K, V>keyValueStore()));
        } catch (InvalidStateStoreException e) {
            throw ApiException.unavailable(what + " is restoring; try again shortly", 1);
        }
    }

    /**
     * The store {@code name} of each of {@code partitions} partitions this instance holds, one store each, in partition
     * order: for a read that takes only the first keys of each partition's own sorted run, where {@link #keyValue} runs
     * through the partitions one after another and a range over it is sorted only within each.
     *
     * @throws ApiException 503 with {@code Retry-After} while the application is not RUNNING or a partition of the store
     *                      here restores
     */
    public <K, V> List<ReadOnlyKeyValueStore<K, V>> keyValueByPartition(String name, int partitions) {
        KafkaStreams.State state = streams.state();
        if (state != KafkaStreams.State.RUNNING) {
            throw ApiException.unavailable(what + " is " + state.name().toLowerCase(Locale.ROOT) + "; try again shortly", 1);
        }
        var held = new ArrayList<ReadOnlyKeyValueStore<K, V>>();
        for (int partition = 0; partition < partitions; partition++) {
            ReadOnlyKeyValueStore<K, V> store = streams.store(StoreQueryParameters.fromNameAndType(name,
                    QueryableStoreTypes.<K, V>keyValueStore()).withPartition(partition));
            try {
                store.approximateNumEntries(); // the handle is resolved lazily: touching it says whether the partition is here
                held.add(store);
            } catch (InvalidStateStorePartitionException e) {
                // another instance's partition
            } catch (InvalidStateStoreException e) {
                throw ApiException.unavailable(what + " is restoring; try again shortly", 1);
            }
        }
        return held;
    }

    /**
     * This instance's copy of partition {@code partition} of store {@code name}, whatever its task — a standby, or
     * active and restoring — and however far behind: for a read {@link OwnerRouting#serveLocallyOrForwardOrCopy}
     * found a warm copy for. Readable while the application runs or rebalances.
     *
     * @throws ApiException 503 with {@code Retry-After} when there is no such copy here (any more)
     */
    public <K, V> ReadOnlyKeyValueStore<K, V> copy(String name, int partition) {
        KafkaStreams.State state = streams.state();
        if (state != KafkaStreams.State.RUNNING && state != KafkaStreams.State.REBALANCING) {
            throw ApiException.unavailable(what + " is " + state.name().toLowerCase(Locale.ROOT) + "; try again shortly", 1);
        }
        try {
            return streams.store(StoreQueryParameters.fromNameAndType(name, QueryableStoreTypes.<K, V>keyValueStore())
                    .enableStaleStores().withPartition(partition));
        } catch (InvalidStateStoreException e) {
            throw ApiException.unavailable(what + " is being handed over; try again shortly", 1);
        }
    }
}
