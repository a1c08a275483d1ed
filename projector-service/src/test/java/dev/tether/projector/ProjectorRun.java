package dev.tether.projector;

import dev.tether.kit.kafka.AvroSerdes;
import dev.tether.kit.kafka.StoreSignals;
import dev.tether.kit.kafka.TopicInitializer;
import dev.tether.kit.kafka.TopicLayout;
import dev.tether.kit.tracing.KafkaTracing;
import dev.tether.projector.kafka.ProjectorTopology;
import dev.tether.testing.TetherStack;
import io.opentelemetry.api.OpenTelemetry;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.Properties;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsConfig;

/**
 * The projector's topology as a plain Kafka Streams application in the test JVM, exactly-once,
 * against the real broker and registry: for tests that need several projections side by side (a
 * live one and a rebuild) or to measure one. Closing it stops it and deletes its state.
 */
final class ProjectorRun implements AutoCloseable {

    private final KafkaStreams streams;
    private final Path stateDir;

    ProjectorRun(String applicationId, TopicLayout input, TopicLayout output) throws IOException {
        TetherStack stack = TetherStack.shared();
        try (Admin admin = Admin.create(stack.clientConfig())) {
            var topics = new TopicInitializer(admin, Duration.ofSeconds(30));
            topics.init(input);
            topics.init(output);
        }
        stateDir = Files.createTempDirectory("projector-run-");
        var props = new Properties();
        props.putAll(stack.clientConfig());
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, applicationId);
        props.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);
        props.put(StreamsConfig.STATE_DIR_CONFIG, stateDir.toString());
        props.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, 100);
        String registry = stack.registryUrl();
        var serdes = new ProjectorTopology.TopicSerdes(AvroSerdes.valueSerde(registry), AvroSerdes.valueSerde(registry),
                AvroSerdes.valueSerde(registry), AvroSerdes.valueSerde(registry), AvroSerdes.valueSerde(registry));
        streams = new KafkaStreams(ProjectorTopology.build(input, output, serdes, new KafkaTracing(OpenTelemetry.noop(), "test"),
                new StoreSignals()), props);
        streams.start();
    }

    KafkaStreams streams() {
        return streams;
    }

    @Override
    public void close() throws IOException {
        streams.close(Duration.ofSeconds(30));
        try (var paths = Files.walk(stateDir)) {
            paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }
}
