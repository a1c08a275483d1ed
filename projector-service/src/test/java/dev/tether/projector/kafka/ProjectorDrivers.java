package dev.tether.projector.kafka;

import dev.tether.avro.BlobReference;
import dev.tether.avro.Checkpoint;
import dev.tether.avro.SessionEvent;
import dev.tether.avro.ToolOutcome;
import dev.tether.avro.ToolRequest;
import dev.tether.kit.kafka.StoreSignals;
import dev.tether.kit.kafka.TopicLayout;
import dev.tether.kit.tracing.KafkaTracing;
import dev.tether.testing.PlainAvroSerde;
import java.nio.file.Path;
import java.util.Properties;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TopologyTestDriver;

/** The whole projector topology in a {@link TopologyTestDriver}, with plain Avro serdes: what its topology tests share. */
final class ProjectorDrivers {

    static final TopicLayout LAYOUT = TopicLayout.local();

    private ProjectorDrivers() {}

    static ProjectorTopology.TopicSerdes serdes() {
        return new ProjectorTopology.TopicSerdes(new PlainAvroSerde<>(SessionEvent.getClassSchema()),
                new PlainAvroSerde<>(Checkpoint.getClassSchema()), new PlainAvroSerde<>(ToolRequest.getClassSchema()),
                new PlainAvroSerde<>(ToolOutcome.getClassSchema()), new PlainAvroSerde<>(BlobReference.getClassSchema()));
    }

    /** The driver of the topology over {@code serdes}, its stores in {@code stateDir} (the test's own). */
    static TopologyTestDriver start(String applicationId, Path stateDir, ProjectorTopology.TopicSerdes serdes, KafkaTracing tracing,
                                    StoreSignals signals) {
        return start(applicationId, stateDir, serdes, tracing, signals, null);
    }

    /** As {@link #start(String, Path, ProjectorTopology.TopicSerdes, KafkaTracing, StoreSignals)}, deleting blobs as {@code sweeping} says. */
    static TopologyTestDriver start(String applicationId, Path stateDir, ProjectorTopology.TopicSerdes serdes, KafkaTracing tracing,
                                    StoreSignals signals, BlobSweeper.Sweeping sweeping) {
        var props = new Properties();
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, applicationId);
        props.put(StreamsConfig.STATE_DIR_CONFIG, stateDir.toString());
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "unused:9092");
        return new TopologyTestDriver(ProjectorTopology.build(LAYOUT, serdes, tracing, signals, sweeping), props);
    }
}
