package dev.tether.kit.kafka;

import dev.tether.core.id.StoreKey;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;
import org.apache.kafka.streams.state.StoreBuilder;
import org.apache.kafka.streams.state.Stores;
import org.jboss.logging.Logger;

/**
 * A keys-only state store of each tenant's sessions ({@code tenantId NUL sessionId} → ""), beside a store keyed by
 * session: a tenant's list reads its own sessions' keys and then their values, never every tenant's. Its processor
 * {@link #add}s a session when it first keeps state for it and {@link #remove}s it when it drops that state (an
 * erasure). A partition whose state was written before the index existed is indexed from that state once, when its task
 * first runs ({@link #fillOnce}), and its key {@link #FILLED} says so; the keys of a tenant never start with NUL.
 * Used by one processor's task at a time, like the store itself.
 */
public final class TenantIndex {

    /** The key that marks a partition's index as filled. */
    public static final String FILLED = "\u0000filled";

    private static final Logger LOG = Logger.getLogger(TenantIndex.class);

    private final KeyValueStore<String, String> store;

    private TenantIndex(KeyValueStore<String, String> store) {
        this.store = store;
    }

    /** The index's store: persistent, changelogged, string keys and empty values. */
    public static StoreBuilder<KeyValueStore<String, String>> builder(String name) {
        return Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(name), Serdes.String(), Serdes.String());
    }

    /**
     * The index in store {@code name} of {@code context}'s task, filled from {@code byId} (the store keyed by session;
     * {@code tenantOf} reads a value's tenant) by a punctuation as soon as the task runs, unless it was filled before.
     */
    public static <V> TenantIndex open(ProcessorContext<?, ?> context, String name, KeyValueStore<String, V> byId,
                                       Function<V, String> tenantOf) {
        var index = new TenantIndex(context.getStateStore(name));
        RunOnce.whenRunning(context, now -> {
            long indexed = index.fillOnce(byId, tenantOf);
            if (indexed > 0) {
                LOG.infof("indexed the %d sessions of %s partition %d by tenant", indexed, name, context.taskId().partition());
            }
        });
        return index;
    }

    public void add(String tenantId, String sessionId) {
        store.put(StoreKey.of(tenantId, sessionId), "");
    }

    public void remove(String tenantId, String sessionId) {
        store.delete(StoreKey.of(tenantId, sessionId));
    }

    /** Indexes every entry of {@code byId} unless the index was filled before; returns how many it indexed. */
    <V> long fillOnce(KeyValueStore<String, V> byId, Function<V, String> tenantOf) {
        if (store.get(FILLED) != null) {
            return 0;
        }
        long indexed = 0;
        try (var all = byId.all()) {
            while (all.hasNext()) {
                var entry = all.next();
                add(tenantOf.apply(entry.value), entry.key);
                indexed++;
            }
        }
        store.put(FILLED, "");
        return indexed;
    }

    /** The ids of {@code tenantId}'s sessions in {@code index} (this instance's partitions), in id order per partition. */
    public static List<String> sessionIds(ReadOnlyKeyValueStore<String, String> index, String tenantId) {
        var ids = new ArrayList<String>();
        try (var keys = index.prefixScan(StoreKey.prefix(tenantId), new StringSerializer())) {
            keys.forEachRemaining(kv -> ids.add(StoreKey.parts(kv.key).get(1)));
        }
        return ids;
    }
}
