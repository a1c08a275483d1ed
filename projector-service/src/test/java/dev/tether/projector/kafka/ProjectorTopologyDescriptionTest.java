package dev.tether.projector.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tether.avro.Checkpoint;
import dev.tether.avro.SessionEvent;
import dev.tether.avro.ToolOutcome;
import dev.tether.avro.ToolRequest;
import dev.tether.kit.kafka.StoreSignals;
import dev.tether.kit.kafka.TopicLayout;
import dev.tether.kit.tracing.KafkaTracing;
import dev.tether.testing.PlainAvroSerde;
import io.opentelemetry.api.OpenTelemetry;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * The projector topology's nodes, stores and topics, as Kafka Streams describes them: a store or operator renamed by a
 * refactoring would move its changelog topic (and lose its state on upgrade), so the description is pinned. A
 * deliberate change updates {@code topology/projector.txt} along with the upgrade note it needs.
 */
class ProjectorTopologyDescriptionTest {

    @Test
    void theDescription_isThePinnedOne() throws IOException {
        var serdes = new ProjectorTopology.TopicSerdes(new PlainAvroSerde<>(SessionEvent.getClassSchema()),
                new PlainAvroSerde<>(Checkpoint.getClassSchema()), new PlainAvroSerde<>(ToolRequest.getClassSchema()),
                new PlainAvroSerde<>(ToolOutcome.getClassSchema()));

        String described = ProjectorTopology.build(TopicLayout.local(), serdes, new KafkaTracing(OpenTelemetry.noop(), "test"),
                new StoreSignals())
                .describe().toString();

        String pinned = pinned("/topology/projector.txt");
        if (!described.equals(pinned)) {
            // for the diff: target/topology/projector.txt
            Files.createDirectories(Path.of("target/topology"));
            Files.writeString(Path.of("target/topology/projector.txt"), described);
        }
        assertThat(described).isEqualTo(pinned);
    }

    private static String pinned(String resource) throws IOException {
        try (InputStream in = ProjectorTopologyDescriptionTest.class.getResourceAsStream(resource)) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }
}
