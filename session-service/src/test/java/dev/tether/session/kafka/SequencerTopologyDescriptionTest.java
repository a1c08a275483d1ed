package dev.tether.session.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tether.avro.Checkpoint;
import dev.tether.avro.CommandReply;
import dev.tether.avro.HarnessVersion;
import dev.tether.avro.SessionCommand;
import dev.tether.avro.SessionEvent;
import dev.tether.kit.kafka.StoreSignals;
import dev.tether.kit.kafka.TopicLayout;
import dev.tether.kit.tracing.KafkaTracing;
import dev.tether.testing.PinnedText;
import dev.tether.testing.PlainAvroSerde;
import io.opentelemetry.api.OpenTelemetry;
import org.junit.jupiter.api.Test;

/**
 * The sequencer topology's nodes, stores and topics, as Kafka Streams describes them: a store or operator renamed by a
 * refactoring would move its changelog topic (and lose its state on upgrade), so the description is pinned. A
 * deliberate change updates {@code topology/sequencer.txt} along with the upgrade note it needs.
 */
class SequencerTopologyDescriptionTest {

    @Test
    void theDescription_isThePinnedOne() {
        var serdes = new SequencerTopology.TopicSerdes(new PlainAvroSerde<>(SessionCommand.getClassSchema()),
                new PlainAvroSerde<>(SessionEvent.getClassSchema()), new PlainAvroSerde<>(CommandReply.getClassSchema()),
                new PlainAvroSerde<>(Checkpoint.getClassSchema()), new PlainAvroSerde<>(HarnessVersion.getClassSchema()));

        String described = SequencerTopology.build(TopicLayout.local(), serdes, new KafkaTracing(OpenTelemetry.noop(), "test"),
                new StoreSignals())
                .describe().toString();

        // on a difference, the description is in target/topology/sequencer.txt for the diff
        assertThat(PinnedText.writeForDiff(described, "/topology/sequencer.txt")).isEqualTo(PinnedText.read("/topology/sequencer.txt"));
    }
}
