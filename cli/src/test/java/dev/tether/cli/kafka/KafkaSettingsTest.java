package dev.tether.cli.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tether.kit.kafka.TopicLayout;
import java.time.Duration;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.junit.jupiter.api.Test;

/** What the replay's clients ask of the cluster. */
class KafkaSettingsTest {

    private final KafkaSettings settings = new KafkaSettings("127.0.0.1:9092", "http://127.0.0.1:8085/apis/registry/v3",
            new TopicLayout("typo.", 6, (short) 1), Duration.ofSeconds(30));

    @Test
    void theReplaysConsumer_readsCommittedRecords_joinsNoGroup_andNeverHasATopicCreated() {
        var config = settings.consumer("tether-cli-replay");

        assertThat(config).containsEntry(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed")
                .containsEntry(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false)
                .doesNotContainKey(ConsumerConfig.GROUP_ID_CONFIG)
                // looking up typo.session-events must not create it (with cleanup.policy=delete) on a broker that auto-creates
                .containsEntry(ConsumerConfig.ALLOW_AUTO_CREATE_TOPICS_CONFIG, false);
    }

    @Test
    void theLongestTimeoutTaken_makesValidClientSettings_withNoTimeoutWrappedAroundToANegativeInt() {
        var longest = new KafkaSettings("127.0.0.1:9092", "http://127.0.0.1:8085/apis/registry/v3", TopicLayout.local(),
                dev.tether.cli.Durations.parse("596h"));

        var producer = longest.producer("tether-cli-replay-into");
        int request = (Integer) producer.get(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG);
        int delivery = (Integer) producer.get(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG);
        assertThat(request).isEqualTo(596 * 3_600_000);
        // Kafka refuses a delivery timeout below the request timeout plus linger.ms
        assertThat((long) delivery).isGreaterThanOrEqualTo((long) request + ((Number) producer.get(ProducerConfig.LINGER_MS_CONFIG)).longValue());
        assertThat((Integer) longest.consumer("c").get(ConsumerConfig.REQUEST_TIMEOUT_MS_CONFIG)).isPositive();
        assertThat((Integer) longest.admin().get(org.apache.kafka.clients.CommonClientConfigs.DEFAULT_API_TIMEOUT_MS_CONFIG)).isPositive();
    }
}
