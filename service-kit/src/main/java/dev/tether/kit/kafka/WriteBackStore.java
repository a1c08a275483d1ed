package dev.tether.kit.kafka;

import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Predicate;
import java.util.function.Supplier;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.Serializer;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.errors.InvalidStateStoreException;
import org.apache.kafka.streams.kstream.internals.Change;
import org.apache.kafka.streams.processor.StateStore;
import org.apache.kafka.streams.processor.StateStoreContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.processor.internals.InternalProcessorContext;
import org.apache.kafka.streams.processor.internals.ProcessorContextUtils;
import org.apache.kafka.streams.processor.internals.ProcessorRecordContext;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.StoreBuilder;
import org.apache.kafka.streams.state.internals.CacheFlushListener;
import org.apache.kafka.streams.state.internals.WrappedStateStore;

/**
 * A key-value store that keeps the values written since the last commit as the objects they were written as, and
 * writes each key's latest one to the store beneath it — encoded once, into RocksDB and the changelog — when Kafka
 * Streams flushes the store's cache before it commits the task: inside the exactly-once transaction that commits the
 * input offsets, as Kafka Streams' own record cache does ({@code withCachingEnabled()}). The difference is when a value
 * is encoded: the record cache holds bytes, so every {@code put} encodes the value (for a store written at every record,
 * such as the projector's checkpoints, once per event); this store encodes it once per commit, whatever the number of
 * writes to the key in between. {@link #putLazily} defers making the value too, until a read or the flush asks for it.
 *
 * <p>Reads — the stream thread's and interactive queries' on other threads — see the pending values first, then the
 * store beneath; iterators merge the two in the order of the serialized keys, as the store beneath orders them. A
 * {@linkplain #setFlushListener flush listener} gets each key's flushed value, with the timestamp and headers of the
 * record that wrote it ({@link FlushForwarding} sends them on to a sink, in the same transaction).
 *
 * <p>Pending values are dropped, not written, when Kafka Streams clears the task's caches (a task revived after an
 * error) or closes the store: under exactly-once a clean close commits first, and what was not committed belongs to an
 * aborted transaction. Holds one value per key written since the last commit, without bound: meant for stores whose
 * keys written per commit interval are few (a key per session or tool call the commit's records touch), not for
 * arbitrary keys. Uses Kafka Streams' internal cache hooks ({@code CachedStateStore}, the record context of
 * {@code InternalProcessorContext}), as the record cache does, and the store commit of Kafka Streams 4.3
 * ({@link #commit(Map)}, which replaced {@code flush()}): an upgrade of Kafka Streams must run
 * {@code WriteBackStoreTest}, which drives it through a real topology, and the projector's tests.
 */
public final class WriteBackStore<K, V> extends WrappedStateStore<KeyValueStore<K, V>, K, V> implements KeyValueStore<K, V> {

    /**
     * A value written since the last flush ({@code null}: a delete), made when first asked for, and the context of the
     * record that wrote it.
     */
    private static final class Pending<V> {
        private final ProcessorRecordContext context;
        private Supplier<V> make;
        private V value;

        Pending(Supplier<V> make, V value, ProcessorRecordContext context) {
            this.make = make;
            this.value = value;
            this.context = context;
        }

        synchronized V value() { // the stream thread flushes it while an interactive query may read it
            if (make != null) {
                value = make.get();
                make = null;
            }
            return value;
        }

        ProcessorRecordContext context() {
            return context;
        }
    }

    private final Serializer<K> keys;
    private final Map<K, Pending<V>> pending = new ConcurrentHashMap<>();
    private InternalProcessorContext<?, ?> context;
    private CacheFlushListener<K, V> listener;

    private WriteBackStore(KeyValueStore<K, V> store, Serializer<K> keys) {
        super(store);
        this.keys = keys;
    }

    /**
     * {@code store}'s builder, building it without Kafka Streams' record cache and wrapped in a write-back store.
     * {@code keys} must serialize keys as the store does: iterators order pending keys by those bytes.
     */
    public static <K, V> StoreBuilder<KeyValueStore<K, V>> builder(StoreBuilder<KeyValueStore<K, V>> store, Serializer<K> keys) {
        return new Builder<>(store.withCachingDisabled(), keys);
    }

    /**
     * The write-back store {@code store} is, or wraps: a processor gets a store from its context wrapped in a decorator,
     * which hides {@link #putLazily}.
     *
     * @throws IllegalArgumentException if it is not a write-back store
     */
    @SuppressWarnings("unchecked")
    public static <K, V> WriteBackStore<K, V> of(KeyValueStore<K, V> store) {
        StateStore found = store;
        while (!(found instanceof WriteBackStore<?, ?>) && found instanceof WrappedStateStore<?, ?, ?> wrapper) {
            found = wrapper.wrapped();
        }
        if (found instanceof WriteBackStore<?, ?> writeBack) {
            return (WriteBackStore<K, V>) writeBack;
        }
        throw new IllegalArgumentException("the store " + store.name() + " is not a write-back store");
    }

    @Override
    public void init(StateStoreContext stateStoreContext, StateStore root) {
        context = ProcessorContextUtils.asInternalProcessorContext(stateStoreContext);
        pending.clear();
        super.init(stateStoreContext, root);
    }

    @Override
    public boolean setFlushListener(CacheFlushListener<K, V> listener, boolean sendOldValues) {
        if (sendOldValues) {
            return false; // the old value is not kept
        }
        this.listener = listener;
        return true;
    }

    /**
     * Writes every pending value to the store beneath and tells the flush listener, each with its writer's context. With
     * nothing pending it touches no context: a standby task's store (which nothing writes but the restore) is flushed
     * too, and a standby's context refuses {@code recordContext()}.
     */
    @Override
    public void flushCache() {
        if (pending.isEmpty()) {
            super.flushCache();
            return;
        }
        ProcessorRecordContext current = context.recordContext();
        try {
            for (Map.Entry<K, Pending<V>> entry : pending.entrySet()) {
                K key = entry.getKey();
                Pending<V> written = entry.getValue();
                V value = written.value();
                context.setRecordContext(written.context());
                if (value == null) {
                    wrapped().delete(key);
                } else {
                    wrapped().put(key, value);
                }
                if (listener != null) {
                    listener.apply(new Record<>(key, new Change<>(value, null), written.context().timestamp(), written.context().headers()));
                }
                pending.remove(key, written); // a reader that missed it here finds it in the store beneath
            }
        } finally {
            context.setRecordContext(current);
        }
        super.flushCache();
    }

    @Override
    public void clearCache() {
        pending.clear();
        super.clearCache();
    }

    /** Writes what is still pending (Kafka Streams flushes the caches before a task commits, so mostly nothing) first. */
    @Override
    public void commit(Map<TopicPartition, Long> changelogOffsets) {
        flushCache();
        super.commit(changelogOffsets);
    }

    @Override
    public void close() {
        pending.clear();
        super.close();
    }

    @Override
    public void put(K key, V value) {
        Objects.requireNonNull(key, "key cannot be null");
        requireOpen();
        pending.put(key, new Pending<>(null, value, context.recordContext()));
    }

    /**
     * Puts the value {@code value} makes, made when it is first needed — by a read, or when the store flushes it — and
     * at most once: for a value that costs to make (a conversion), written at every record and read far less often.
     * {@code value} may run on any thread that reads the store, so it must only compute.
     */
    public void putLazily(K key, Supplier<V> value) {
        Objects.requireNonNull(key, "key cannot be null");
        Objects.requireNonNull(value, "value cannot be null");
        requireOpen();
        pending.put(key, new Pending<>(value, null, context.recordContext()));
    }

    @Override
    public V putIfAbsent(K key, V value) {
        V current = get(key);
        if (current == null) {
            put(key, value);
        }
        return current;
    }

    @Override
    public void putAll(List<KeyValue<K, V>> entries) {
        entries.forEach(entry -> put(entry.key, entry.value));
    }

    @Override
    public V delete(K key) {
        V current = get(key);
        put(key, null);
        return current;
    }

    @Override
    public V get(K key) {
        Objects.requireNonNull(key, "key cannot be null");
        requireOpen();
        Pending<V> written = pending.get(key);
        return written != null ? written.value() : wrapped().get(key);
    }

    @Override
    public KeyValueIterator<K, V> range(K from, K to) {
        return new Merged(pendingBetween(from, to, false), wrapped().range(from, to), false);
    }

    @Override
    public KeyValueIterator<K, V> reverseRange(K from, K to) {
        return new Merged(pendingBetween(from, to, true), wrapped().reverseRange(from, to), true);
    }

    @Override
    public KeyValueIterator<K, V> all() {
        return new Merged(pendingWhere(key -> true, false), wrapped().all(), false);
    }

    @Override
    public KeyValueIterator<K, V> reverseAll() {
        return new Merged(pendingWhere(key -> true, true), wrapped().reverseAll(), true);
    }

    @Override
    public <PS extends Serializer<P>, P> KeyValueIterator<K, V> prefixScan(P prefix, PS prefixKeySerializer) {
        byte[] start = prefixKeySerializer.serialize(null, prefix);
        return new Merged(pendingWhere(key -> startsWith(key.get(), start), false), wrapped().prefixScan(prefix, prefixKeySerializer),
                false);
    }

    /** The store beneath's estimate: pending keys not yet in it are not counted. */
    @Override
    public long approximateNumEntries() {
        return wrapped().approximateNumEntries();
    }

    private NavigableMap<Bytes, KeyValue<K, Pending<V>>> pendingBetween(K from, K to, boolean reverse) {
        Bytes low = from == null ? null : bytes(from);
        Bytes high = to == null ? null : bytes(to);
        return pendingWhere(key -> (low == null || key.compareTo(low) >= 0) && (high == null || key.compareTo(high) <= 0), reverse);
    }

    /** A snapshot of the pending keys whose serialized form {@code include} accepts, in the order of the iteration. */
    private NavigableMap<Bytes, KeyValue<K, Pending<V>>> pendingWhere(Predicate<Bytes> include, boolean reverse) {
        requireOpen();
        var selected = new TreeMap<Bytes, KeyValue<K, Pending<V>>>();
        pending.forEach((key, value) -> {
            Bytes serialized = bytes(key);
            if (include.test(serialized)) {
                selected.put(serialized, KeyValue.pair(key, value));
            }
        });
        return reverse ? selected.descendingMap() : selected;
    }

    private void requireOpen() {
        if (!isOpen()) {
            throw new InvalidStateStoreException("Store " + name() + " is currently closed.");
        }
    }

    private Bytes bytes(K key) {
        return Bytes.wrap(keys.serialize(name(), key));
    }

    private static boolean startsWith(byte[] bytes, byte[] prefix) {
        return bytes.length >= prefix.length && Arrays.equals(bytes, 0, prefix.length, prefix, 0, prefix.length);
    }

    /**
     * The pending entries merged into an iterator of the store beneath, both in the same order of serialized keys: a
     * pending value replaces the stored one of its key, a pending delete hides it.
     */
    private final class Merged implements KeyValueIterator<K, V> {

        private final Iterator<Map.Entry<Bytes, KeyValue<K, Pending<V>>>> written;
        private final KeyValueIterator<K, V> stored;
        private final int direction;
        private Map.Entry<Bytes, KeyValue<K, Pending<V>>> nextWritten;
        private KeyValue<K, V> nextStored;
        private Bytes nextStoredBytes;
        private KeyValue<K, V> next;

        Merged(NavigableMap<Bytes, KeyValue<K, Pending<V>>> written, KeyValueIterator<K, V> stored, boolean reverse) {
            this.written = written.entrySet().iterator();
            this.stored = stored;
            this.direction = reverse ? -1 : 1;
            advanceWritten();
            advanceStored();
        }

        @Override
        public boolean hasNext() {
            while (next == null && (nextWritten != null || nextStored != null)) {
                int order = nextWritten == null ? 1 : nextStored == null ? -1 : direction * nextWritten.getKey().compareTo(nextStoredBytes);
                if (order > 0) {
                    next = nextStored;
                    advanceStored();
                } else {
                    KeyValue<K, Pending<V>> entry = nextWritten.getValue();
                    if (order == 0) {
                        advanceStored(); // replaced or deleted by the pending write
                    }
                    advanceWritten();
                    if (entry.value.value() != null) {
                        next = KeyValue.pair(entry.key, entry.value.value());
                    }
                }
            }
            return next != null;
        }

        @Override
        public KeyValue<K, V> next() {
            if (!hasNext()) {
                throw new NoSuchElementException();
            }
            KeyValue<K, V> answer = next;
            next = null;
            return answer;
        }

        @Override
        public K peekNextKey() {
            if (!hasNext()) {
                throw new NoSuchElementException();
            }
            return next.key;
        }

        @Override
        public void close() {
            stored.close();
        }

        private void advanceWritten() {
            nextWritten = written.hasNext() ? written.next() : null;
        }

        private void advanceStored() {
            nextStored = stored.hasNext() ? stored.next() : null;
            nextStoredBytes = nextStored == null ? null : bytes(nextStored.key);
        }
    }

    /** Builds the store beneath with its builder and wraps it. */
    private static final class Builder<K, V> implements StoreBuilder<KeyValueStore<K, V>> {

        private final StoreBuilder<KeyValueStore<K, V>> store;
        private final Serializer<K> keys;

        Builder(StoreBuilder<KeyValueStore<K, V>> store, Serializer<K> keys) {
            this.store = store;
            this.keys = keys;
        }

        @Override
        public StoreBuilder<KeyValueStore<K, V>> withCachingEnabled() {
            throw new UnsupportedOperationException("a write-back store is its own cache: Kafka Streams' record cache beneath it"
                    + " would only encode every write again");
        }

        @Override
        public StoreBuilder<KeyValueStore<K, V>> withCachingDisabled() {
            return this;
        }

        @Override
        public StoreBuilder<KeyValueStore<K, V>> withLoggingEnabled(Map<String, String> config) {
            store.withLoggingEnabled(config);
            return this;
        }

        @Override
        public StoreBuilder<KeyValueStore<K, V>> withLoggingDisabled() {
            store.withLoggingDisabled();
            return this;
        }

        @Override
        public KeyValueStore<K, V> build() {
            return new WriteBackStore<>(store.build(), keys);
        }

        @Override
        public Map<String, String> logConfig() {
            return store.logConfig();
        }

        @Override
        public boolean loggingEnabled() {
            return store.loggingEnabled();
        }

        @Override
        public String name() {
            return store.name();
        }
    }
}
