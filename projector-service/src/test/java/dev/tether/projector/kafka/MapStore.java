package dev.tether.projector.kafka;

import dev.tether.avro.SessionEvent;
import dev.tether.core.event.Event;
import dev.tether.kit.kafka.EventAvro;
import dev.tether.kit.kafka.SessionEventKey;
import java.util.Comparator;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;

/**
 * A store for reads without Kafka Streams: a sorted map, read as an interactive query reads a store (ranges inclusive at
 * both ends, in key order). For a store whose keys the test chooses, such as a message store that lacks some events.
 */
public final class MapStore<K, V> implements ReadOnlyKeyValueStore<K, V> {

    private final TreeMap<K, V> map;

    public MapStore(Comparator<K> order) {
        this.map = new TreeMap<>(order);
    }

    /** A message store ({@link ProjectorStores#MESSAGES}) holding {@code events}: by session, then seq. */
    public static MapStore<SessionEventKey, SessionEvent> messages(List<Event> events) {
        var store = new MapStore<SessionEventKey, SessionEvent>(
                Comparator.comparing(SessionEventKey::sessionId).thenComparingLong(SessionEventKey::seq));
        events.forEach(e -> store.put(new SessionEventKey(e.sessionId(), e.seq()), EventAvro.toAvro(e)));
        return store;
    }

    public MapStore<K, V> put(K key, V value) {
        map.put(key, value);
        return this;
    }

    @Override
    public V get(K key) {
        return map.get(key);
    }

    @Override
    public KeyValueIterator<K, V> range(K from, K to) {
        return iterator(map.subMap(from, true, to, true));
    }

    @Override
    public KeyValueIterator<K, V> all() {
        return iterator(map);
    }

    @Override
    public long approximateNumEntries() {
        return map.size();
    }

    private KeyValueIterator<K, V> iterator(Map<K, V> entries) {
        Iterator<Map.Entry<K, V>> it = List.copyOf(entries.entrySet()).iterator();
        return new KeyValueIterator<>() {
            @Override
            public boolean hasNext() {
                return it.hasNext();
            }

            @Override
            public KeyValue<K, V> next() {
                Map.Entry<K, V> e = it.next();
                return KeyValue.pair(e.getKey(), e.getValue());
            }

            @Override
            public void close() {}

            @Override
            public K peekNextKey() {
                throw new UnsupportedOperationException();
            }
        };
    }
}
