package dev.tether.kit.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.processor.api.ProcessorSupplier;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.Stores;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A store kept equal to its topic, as the sequencer's and the projector's read-only stores are, and its readers woken. */
class TopicMaterializerTest {

    /** The stores' directory, this test's own: under the fixed default two builds running the test at once collide. */
    @TempDir
    Path stateDir;

    @Test
    void aValueIsPut_aNewerValueReplacesIt_andATombstoneDeletesIt() {
        try (var driver = new TopologyTestDriver(topology(TopicMaterializer.into("things")), properties())) {
            var things = driver.createInputTopic("things", Serdes.String().serializer(), Serdes.String().serializer());
            KeyValueStore<String, String> store = driver.getKeyValueStore("things");

            things.pipeInput("a", "1");
            things.pipeInput("b", "2");
            things.pipeInput("a", "3");
            things.pipeInput("b", (String) null);

            var contents = new ArrayList<KeyValue<String, String>>();
            try (var all = store.all()) {
                all.forEachRemaining(contents::add);
            }
            assertThat(contents).containsExactly(KeyValue.pair("a", "3"));
        }
    }

    @Test
    void aSignallingMaterializer_wakesTheReadersOfTheKeyItWrote_afterTheWrite() throws Exception {
        var signals = new StoreSignals();
        var looks = new AtomicInteger();
        try (var driver = new TopologyTestDriver(topology(TopicMaterializer.<String, String>into("things", signals, key -> "key-" + key)),
                properties())) {
            var things = driver.createInputTopic("things", Serdes.String().serializer(), Serdes.String().serializer());
            KeyValueStore<String, String> store = driver.getKeyValueStore("things");
            // the reader looks at once (nothing), then only when woken (the driver's store is read on the test thread only)
            var reader = CompletableFuture.supplyAsync(() -> {
                try {
                    return signals.await("things", "key-a", Duration.ofSeconds(30),
                            () -> looks.incrementAndGet() == 1 ? Optional.empty() : Optional.of("woken"));
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
            });
            await().atMost(Duration.ofSeconds(5)).until(() -> looks.get() == 1);

            things.pipeInput("a", "1");

            assertThat(reader.get(5, TimeUnit.SECONDS)).contains("woken");
            assertThat(store.get("a")).isEqualTo("1");
            assertThat(looks.get()).isEqualTo(2);
        }
    }

    private static Topology topology(ProcessorSupplier<String, String, Void, Void> materializer) {
        var topology = new Topology();
        topology.addReadOnlyStateStore(
                Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore("things"), Serdes.String(), Serdes.String()).withLoggingDisabled(),
                "things-source", Serdes.String().deserializer(), Serdes.String().deserializer(), "things", "things-materializer",
                materializer);
        return topology;
    }

    private Properties properties() {
        var props = new Properties();
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, "materializer-test");
        props.put(StreamsConfig.STATE_DIR_CONFIG, stateDir.toString());
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "unused:9092");
        return props;
    }
}
