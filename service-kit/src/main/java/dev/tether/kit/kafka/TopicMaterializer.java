package dev.tether.kit.kafka;

import java.util.function.Consumer;
import java.util.function.Function;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.ProcessorSupplier;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * Keeps a key-value store equal to a topic: a value is put, a tombstone deletes, and then, for a store requests wait
 * on, the readers of the key are woken ({@link StoreSignals}). The state-update processor of a store restored from its
 * source topic itself ({@code Topology.addReadOnlyStateStore}, {@code addGlobalStore}), so keeping the store costs no
 * write of its own. One instance per task; it holds only its store and what it signals.
 */
public final class TopicMaterializer<K, V> implements Processor<K, V, Void, Void> {

    private final String storeName;
    private final Consumer<K> written;
    private KeyValueStore<K, V> store;

    private TopicMaterializer(String storeName, Consumer<K> written) {
        this.storeName = storeName;
        this.written = written;
    }

    /** Materializers of the store {@code storeName}, one per task, for a store no request waits on. */
    public static <K, V> ProcessorSupplier<K, V, Void, Void> into(String storeName) {
        return () -> new TopicMaterializer<K, V>(storeName, key -> { });
    }

    /**
     * Materializers of the store {@code storeName}, one per task, that signal {@code signals} after each write, under the
     * key's {@code signalKey} (the session id of an event key, say).
     */
    public static <K, V> ProcessorSupplier<K, V, Void, Void> into(String storeName, StoreSignals signals, Function<K, String> signalKey) {
        return () -> new TopicMaterializer<K, V>(storeName, key -> signals.changed(storeName, signalKey.apply(key)));
    }

    @Override
    public void init(ProcessorContext<Void, Void> context) {
        store = context.getStateStore(storeName);
    }

    @Override
    public void process(Record<K, V> record) {
        if (record.value() == null) {
            store.delete(record.key());
        } else {
            store.put(record.key(), record.value());
        }
        written.accept(record.key());
    }
}
