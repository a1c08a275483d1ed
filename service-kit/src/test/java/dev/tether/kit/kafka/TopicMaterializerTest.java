package dev.tether.kit.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Properties;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.Stores;
import org.junit.jupiter.api.Test;

/** A store kept equal to its topic, as the sequencer's and the projector's read-only stores are. */
class TopicMaterializerTest {

    @Test
    void aValueIsPut_aNewerValueReplacesIt_andATombstoneDeletesIt() {
        var topology = new Topology();
        topology.addReadOnlyStateStore(
                Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore("things"), Serdes.String(), Serdes.String()).withLoggingDisabled(),
                "things-source", Serdes.String().deserializer(), Serdes.String().deserializer(), "things", "things-materializer",
                TopicMaterializer.into("things"));
        var props = new Properties();
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, "materializer-test");
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "unused:9092");

        try (var driver = new TopologyTestDriver(topology, props)) {
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
}
