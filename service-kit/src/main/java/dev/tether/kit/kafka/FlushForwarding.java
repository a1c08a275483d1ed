package dev.tether.kit.kafka;

import org.apache.kafka.streams.kstream.internals.Change;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.processor.internals.InternalProcessorContext;
import org.apache.kafka.streams.processor.internals.ProcessorNode;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.internals.CacheFlushListener;
import org.apache.kafka.streams.state.internals.CachedStateStore;

/**
 * Forwards the writes of a cached key-value store to a sink as the store's cache flushes them (Kafka Streams' record cache,
 * or a {@link WriteBackStore}'s pending values), the way a
 * KTable's changes go downstream: the latest value of each key written since the last flush (a delete as a
 * tombstone), once. Kafka Streams flushes the cache when it commits a task, inside the exactly-once transaction that
 * commits the input offsets and the changelog writes (and earlier, for a key the full cache evicts), so every value the
 * store's changelog commits reaches the sink in the same transaction, and a key written many times between two
 * commits is sent once. The record sent carries the timestamp and headers of the input record that wrote the value.
 *
 * <p>The Processor API has no public hook for this; the DSL's KTables use the same internal one
 * ({@code CachedStateStore.setFlushListener}, with the context's current node set to the forwarding processor while it
 * forwards, as {@code TimestampedCacheFlushListener} does). Pinned by the Kafka Streams version of the Quarkus BOM;
 * {@code WriteBackStoreTest}, {@code ProjectorTopologyTest} and the projector's ITs fail if it stops forwarding.
 */
public final class FlushForwarding<K, V> implements CacheFlushListener<K, V> {

    private final InternalProcessorContext<Object, Object> context;
    private final ProcessorNode<?, ?, ?, ?> node;
    private final String sink;

    private FlushForwarding(InternalProcessorContext<Object, Object> context, String sink) {
        this.context = context;
        this.node = context.currentNode();
        this.sink = sink;
    }

    /**
     * Sends what {@code store} flushes to the child {@code sink} of the processor whose {@code init} this is called from.
     *
     * @throws IllegalStateException if the store has no cache that flushes ({@code withCachingEnabled()}, or a write-back
     *         store): nothing would be sent
     */
    @SuppressWarnings("unchecked")
    public static <K, V> void install(ProcessorContext<Object, Object> context, KeyValueStore<K, V> store, String sink) {
        var forwarding = new FlushForwarding<K, V>((InternalProcessorContext<Object, Object>) context, sink);
        if (!(store instanceof CachedStateStore<?, ?> cached) || !((CachedStateStore<K, V>) cached).setFlushListener(forwarding, false)) {
            throw new IllegalStateException("the store " + store.name() + " has no record cache: its writes would never be forwarded to "
                    + sink);
        }
    }

    @Override
    public void apply(Record<K, Change<V>> record) {
        ProcessorNode<?, ?, ?, ?> previous = context.currentNode();
        context.setCurrentNode(node);
        try {
            context.forward(new Record<Object, Object>(record.key(), record.value().newValue, record.timestamp(), record.headers()), sink);
        } finally {
            context.setCurrentNode(previous);
        }
    }
}
