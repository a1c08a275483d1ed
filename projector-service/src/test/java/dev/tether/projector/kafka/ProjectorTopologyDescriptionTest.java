package dev.tether.projector.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tether.avro.BlobReference;
import dev.tether.avro.Checkpoint;
import dev.tether.avro.SessionEvent;
import dev.tether.avro.ToolOutcome;
import dev.tether.avro.ToolRequest;
import dev.tether.kit.kafka.StoreSignals;
import dev.tether.kit.kafka.TopicLayout;
import dev.tether.kit.tracing.KafkaTracing;
import dev.tether.testing.PinnedText;
import dev.tether.testing.PlainAvroSerde;
import io.opentelemetry.api.OpenTelemetry;
import org.junit.jupiter.api.Test;

/**
 * The projector topology's nodes, stores and topics, as Kafka Streams describes them: a store or operator renamed by a
 * refactoring would move its changelog topic (and lose its state on upgrade), so the description is pinned. A
 * deliberate change updates {@code topology/projector.txt} along with the upgrade note it needs.
 */
class ProjectorTopologyDescriptionTest {

    @Test
    void theDescription_isThePinnedOne() {
        var serdes = new ProjectorTopology.TopicSerdes(new PlainAvroSerde<>(SessionEvent.getClassSchema()),
                new PlainAvroSerde<>(Checkpoint.getClassSchema()), new PlainAvroSerde<>(ToolRequest.getClassSchema()),
                new PlainAvroSerde<>(ToolOutcome.getClassSchema()), new PlainAvroSerde<>(BlobReference.getClassSchema()));

        String described = ProjectorTopology.build(TopicLayout.local(), serdes, new KafkaTracing(OpenTelemetry.noop(), "test"),
                new StoreSignals())
                .describe().toString();

        // on a difference, the description is in target/topology/projector.txt for the diff
        assertThat(PinnedText.writeForDiff(described, "/topology/projector.txt")).isEqualTo(PinnedText.read("/topology/projector.txt"));
    }
}
