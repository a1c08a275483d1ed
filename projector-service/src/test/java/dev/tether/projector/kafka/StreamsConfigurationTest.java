package dev.tether.projector.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tether.testing.ServiceConfiguration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * What the Kafka Streams application of the projector-service starts with when nothing is overridden: the settings service-kit
 * gives every Tether Streams application, and the projector-service's own.
 */
class StreamsConfigurationTest {

    @Test
    void theStreamsSettings_areTheDefaultsOfServiceKitAndTheServicesOwn() {
        assertThat(ServiceConfiguration.properties("kafka-streams.", "quarkus.kafka-streams.")).containsExactlyInAnyOrderEntriesOf(Map.ofEntries(
                Map.entry("quarkus.kafka-streams.bootstrap-servers", "127.0.0.1:9092"),
                Map.entry("quarkus.kafka-streams.application-id", "tether-projector-service"),
                Map.entry("quarkus.kafka-streams.topics", "session-events,tool-outcomes"),
                Map.entry("quarkus.kafka-streams.application-server", "127.0.0.1:8081"),
                Map.entry("kafka-streams.processing.guarantee", "exactly_once_v2"),
                Map.entry("kafka-streams.commit.interval.ms", "100"),
                Map.entry("kafka-streams.state.dir", ".tether/state/projector-service"),
                Map.entry("kafka-streams.group.instance.id", "projector-service-localhost-8081"),
                Map.entry("kafka-streams.session.timeout.ms", "15000"),
                Map.entry("kafka-streams.replication.factor", "1")));
    }
}
