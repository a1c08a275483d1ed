package dev.tether.kit.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

import java.lang.reflect.Proxy;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.processor.StateStore;
import org.apache.kafka.streams.processor.StateStoreContext;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.processor.internals.InternalProcessorContext;
import org.apache.kafka.streams.query.Position;
import org.apache.kafka.streams.query.PositionBound;
import org.apache.kafka.streams.query.Query;
import org.apache.kafka.streams.query.QueryConfig;
import org.apache.kafka.streams.query.QueryResult;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.StoreBuilder;
import org.apache.kafka.streams.state.Stores;
import org.apache.kafka.streams.test.TestRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The write-back store in a topology: a processor writes it (one input record is a script of writes), reads it back
 * before the commit, and {@link FlushForwarding} sends what the commit flushes to a topic. The test driver commits after
 * each input record, as Kafka Streams does at a commit interval.
 */
class WriteBackStoreTest {

    @TempDir
    Path stateDir;

    /** What the processor read from the store after running a script, before the commit: get and every iterator. */
    private final List<String> seen = new ArrayList<>();
    /** Values the store's serde encoded: a value is encoded once per commit, not once per write. */
    private final AtomicInteger encoded = new AtomicInteger();
    /** Values made of the lazily put ones. */
    private final AtomicInteger made = new AtomicInteger();

    @Test
    void writesToAKeyBetweenTwoCommits_areEncodedAndSentOnce_asTheLatestValue_withTheTimestampOfItsWriter() {
        try (var driver = driver()) {
            var scripts = driver.createInputTopic("scripts", Serdes.String().serializer(), Serdes.String().serializer());
            var flushed = driver.createOutputTopic("flushed", Serdes.String().deserializer(), Serdes.String().deserializer());

            scripts.pipeInput("r1", "put a=1;put a=2;put b=1;put a=3", 1_000L);

            List<TestRecord<String, String>> sent = flushed.readRecordsToList();
            assertThat(sent).extracting(TestRecord::key, TestRecord::value).containsExactlyInAnyOrder(
                    tuple("a", "3"), tuple("b", "1"));
            assertThat(sent).extracting(TestRecord::timestamp).containsOnly(1_000L);
            assertThat(encoded.get()).as("one encoding per key and commit for the store, none per put").isEqualTo(2);
            KeyValueStore<String, String> store = driver.getKeyValueStore("things");
            assertThat(store.get("a")).isEqualTo("3");
            assertThat(store.get("b")).isEqualTo("1");

            scripts.pipeInput("r2", "put b=2", 2_000L);

            assertThat(flushed.readRecordsToList()).extracting(TestRecord::key, TestRecord::value, TestRecord::timestamp)
                    .containsExactly(tuple("b", "2", 2_000L));
        }
    }

    @Test
    void readsBeforeTheCommit_seeThePendingWrites_mergedWithTheStoredOnesInKeyOrder() {
        try (var driver = driver()) {
            var scripts = driver.createInputTopic("scripts", Serdes.String().serializer(), Serdes.String().serializer());
            var flushed = driver.createOutputTopic("flushed", Serdes.String().deserializer(), Serdes.String().deserializer());
            scripts.pipeInput("r1", "put a=1;put c=1;put e=1;put ab=1");
            flushed.readRecordsToList();
            seen.clear();

            // pending: b new, c replaced, e deleted, ac new; stored: a, ab, c, e
            scripts.pipeInput("r2", "put b=2;put c=2;delete e;put ac=2;read");

            assertThat(seen).containsExactly(
                    "get a=1 b=2 c=2 e=null",
                    "all a=1 ab=1 ac=2 b=2 c=2",
                    "reverseAll c=2 b=2 ac=2 ab=1 a=1",
                    "range ab..b ab=1 ac=2 b=2",
                    "reverseRange ab..b b=2 ac=2 ab=1",
                    "prefix a a=1 ab=1 ac=2");
            assertThat(flushed.readRecordsToList()).extracting(TestRecord::key, TestRecord::value).containsExactlyInAnyOrder(
                    tuple("b", "2"), tuple("c", "2"),
                    tuple("e", null), tuple("ac", "2"));
            KeyValueStore<String, String> store = driver.getKeyValueStore("things");
            assertThat(contents(store.all())).isEqualTo("a=1 ab=1 ac=2 b=2 c=2");
        }
    }

    @Test
    void aLazilyPutValue_isMadeOnce_whenFirstReadOrFlushed_andOnlyTheLatestOfAKey() {
        try (var driver = driver()) {
            var scripts = driver.createInputTopic("scripts", Serdes.String().serializer(), Serdes.String().serializer());
            var flushed = driver.createOutputTopic("flushed", Serdes.String().deserializer(), Serdes.String().deserializer());

            scripts.pipeInput("r1", "lazy a=1;lazy a=2;lazy a=3");

            assertThat(made.get()).as("only the latest value of a, at the flush").isEqualTo(1);
            assertThat(flushed.readRecordsToList()).extracting(TestRecord::key, TestRecord::value).containsExactly(tuple("a", "3"));

            scripts.pipeInput("r2", "lazy b=1;read;lazy c=1");

            assertThat(seen).contains("get a=3 b=1 c=null e=null");
            assertThat(made.get()).as("b made by the read, not again by the flush; c by the flush").isEqualTo(3);
            assertThat(flushed.readRecordsToList()).extracting(TestRecord::key, TestRecord::value)
                    .containsExactlyInAnyOrder(tuple("b", "1"), tuple("c", "1"));
        }
    }

    @Test
    void aPlainStore_isNotAWriteBackStore() {
        try (var driver = driver()) {
            assertThatThrownBy(() -> WriteBackStore.of(driver.getKeyValueStore("plain")))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("plain is not a write-back store");
        }
    }

    /**
     * Kafka Streams commits a standby task's stores too, and a standby's context refuses {@code recordContext()}: a store
     * with nothing pending must commit without asking for it (it did, and a projector with standbys stopped at start).
     */
    @Test
    void aStoreWithNothingPending_commitsWithoutTheRecordContext_whichAStandbysContextRefuses() {
        var beneath = new MapStore();
        KeyValueStore<String, String> store = WriteBackStore.builder(new BuilderOf(beneath), new StringSerializer()).build();
        store.init(standbyContext(), store);

        store.commit(Map.of());

        assertThat(beneath.commits).isEqualTo(1);
        assertThatThrownBy(() -> store.put("a", "1")).as("a write asks for it: only an active task writes")
                .isInstanceOf(UnsupportedOperationException.class);
    }

    /** A context that refuses {@code recordContext()} as a standby task's does, and answers nothing else. */
    private static StateStoreContext standbyContext() {
        return (StateStoreContext) Proxy.newProxyInstance(WriteBackStoreTest.class.getClassLoader(),
                new Class<?>[] {InternalProcessorContext.class}, (proxy, method, args) -> {
                    throw new UnsupportedOperationException(method.getName() + "() is not supported in standby tasks");
                });
    }

    /** The store beneath: a map that counts its commits. */
    private static final class MapStore implements KeyValueStore<String, String> {
        final TreeMap<String, String> map = new TreeMap<>();
        int commits;
        boolean open;

        @Override
        public void init(StateStoreContext context, StateStore root) {
            open = true;
        }

        @Override
        public void commit(Map<TopicPartition, Long> changelogOffsets) {
            commits++;
        }

        @Override
        public void close() {
            open = false;
        }

        @Override
        public String name() {
            return "things";
        }

        @Override
        public boolean persistent() {
            return false;
        }

        @Override
        public boolean isOpen() {
            return open;
        }

        @Override
        public <R> QueryResult<R> query(Query<R> query, PositionBound bound, QueryConfig config) {
            throw new UnsupportedOperationException();
        }

        @Override
        public Position getPosition() {
            return Position.emptyPosition();
        }

        @Override
        public void put(String key, String value) {
            map.put(key, value);
        }

        @Override
        public String putIfAbsent(String key, String value) {
            return map.putIfAbsent(key, value);
        }

        @Override
        public void putAll(List<KeyValue<String, String>> entries) {
            entries.forEach(e -> map.put(e.key, e.value));
        }

        @Override
        public String delete(String key) {
            return map.remove(key);
        }

        @Override
        public String get(String key) {
            return map.get(key);
        }

        @Override
        public KeyValueIterator<String, String> range(String from, String to) {
            throw new UnsupportedOperationException();
        }

        @Override
        public KeyValueIterator<String, String> all() {
            throw new UnsupportedOperationException();
        }

        @Override
        public long approximateNumEntries() {
            return map.size();
        }
    }

    /** Builds {@code store}, whatever it is asked to cache or log. */
    private record BuilderOf(KeyValueStore<String, String> store) implements StoreBuilder<KeyValueStore<String, String>> {
        @Override
        public StoreBuilder<KeyValueStore<String, String>> withCachingEnabled() {
            return this;
        }

        @Override
        public StoreBuilder<KeyValueStore<String, String>> withCachingDisabled() {
            return this;
        }

        @Override
        public StoreBuilder<KeyValueStore<String, String>> withLoggingEnabled(Map<String, String> config) {
            return this;
        }

        @Override
        public StoreBuilder<KeyValueStore<String, String>> withLoggingDisabled() {
            return this;
        }

        @Override
        public KeyValueStore<String, String> build() {
            return store;
        }

        @Override
        public Map<String, String> logConfig() {
            return Map.of();
        }

        @Override
        public boolean loggingEnabled() {
            return false;
        }

        @Override
        public String name() {
            return store.name();
        }
    }

    @Test
    void aWriteBackStore_isItsOwnCache() {
        var builder = WriteBackStore.builder(Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore("things"), Serdes.String(),
                Serdes.String()), new StringSerializer());

        assertThatThrownBy(builder::withCachingEnabled).isInstanceOf(UnsupportedOperationException.class)
                .hasMessageContaining("its own cache");
        assertThat(builder.name()).isEqualTo("things");
        assertThat(builder.loggingEnabled()).isTrue();
    }

    private TopologyTestDriver driver() {
        var topology = new Topology();
        topology.addSource("scripts-source", Serdes.String().deserializer(), Serdes.String().deserializer(), "scripts");
        topology.addProcessor("writer", Writer::new, "scripts-source");
        topology.addStateStore(WriteBackStore.builder(Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore("things"),
                Serdes.String(), counting(Serdes.String())), new StringSerializer()), "writer");
        topology.addStateStore(Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore("plain"), Serdes.String(), Serdes.String()),
                "writer");
        topology.addSink("flushed-sink", "flushed", Serdes.String().serializer(), Serdes.String().serializer(), "writer");
        var props = new Properties();
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, "write-back-test");
        props.put(StreamsConfig.STATE_DIR_CONFIG, stateDir.toString());
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "unused:9092");
        props.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);
        return new TopologyTestDriver(topology, props);
    }

    private Serde<String> counting(Serde<String> serde) {
        return Serdes.serdeFrom((topic, value) -> {
            encoded.incrementAndGet();
            return serde.serializer().serialize(topic, value);
        }, serde.deserializer());
    }

    private static String contents(KeyValueIterator<String, String> iterator) {
        var found = new ArrayList<String>();
        try (iterator) {
            iterator.forEachRemaining(kv -> found.add(kv.key + "=" + kv.value));
        }
        return String.join(" ", found);
    }

    /** Runs an input record's script of {@code put k=v}, {@code delete k} and {@code read} against the store. */
    private final class Writer implements Processor<String, String, Object, Object> {

        private KeyValueStore<String, String> store;

        @Override
        public void init(ProcessorContext<Object, Object> context) {
            store = context.getStateStore("things");
            FlushForwarding.install(context, store, "flushed-sink");
        }

        @Override
        public void process(Record<String, String> record) {
            for (String step : record.value().split(";")) {
                String[] words = step.split("[ =]");
                switch (words[0]) {
                    case "put" -> store.put(words[1], words[2]);
                    case "lazy" -> WriteBackStore.of(store).putLazily(words[1], () -> {
                        made.incrementAndGet();
                        return words[2];
                    });
                    case "delete" -> store.delete(words[1]);
                    case "read" -> read();
                    default -> throw new IllegalArgumentException(step);
                }
            }
        }

        private void read() {
            var values = new ArrayList<String>();
            for (String key : List.of("a", "b", "c", "e")) {
                values.add(key + "=" + store.get(key));
            }
            seen.add("get " + String.join(" ", values));
            seen.add("all " + contents(store.all()));
            seen.add("reverseAll " + contents(store.reverseAll()));
            seen.add("range ab..b " + contents(store.range("ab", "b")));
            seen.add("reverseRange ab..b " + contents(store.reverseRange("ab", "b")));
            seen.add("prefix a " + contents(store.prefixScan("a", new StringSerializer())));
        }
    }
}
