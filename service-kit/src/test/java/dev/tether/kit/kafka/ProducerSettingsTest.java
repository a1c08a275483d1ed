package dev.tether.kit.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.junit.jupiter.api.Test;

class ProducerSettingsTest {

    @Test
    void reliable_waitsForEveryInSyncReplica_isIdempotent_andCompresses() {
        Map<String, Object> settings = ProducerSettings.reliable("broker:9092", "writer").toMap();

        assertThat(settings).containsExactlyInAnyOrderEntriesOf(Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, "broker:9092",
                ProducerConfig.CLIENT_ID_CONFIG, "writer",
                ProducerConfig.ACKS_CONFIG, "all",
                ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true,
                ProducerConfig.COMPRESSION_TYPE_CONFIG, "zstd"));
    }

    @Test
    void reliable_keepsTheClientsConnectionSettings_andOverridesItsDelivery() {
        Map<String, Object> client = Map.of(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, "broker:9092",
                CommonClientConfigs.SECURITY_PROTOCOL_CONFIG, "SSL", ProducerConfig.ACKS_CONFIG, "1");

        Map<String, Object> settings = ProducerSettings.reliable(client).toMap();

        assertThat(settings).containsEntry(CommonClientConfigs.SECURITY_PROTOCOL_CONFIG, "SSL")
                .containsEntry(ProducerConfig.ACKS_CONFIG, "all")
                .containsEntry(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
    }

    @Test
    void with_returnsACopy_andLeavesTheOriginalAsItWas() {
        ProducerSettings reliable = ProducerSettings.reliable("broker:9092", "writer");

        ProducerSettings tuned = reliable.lingerMs(20).partitionedBySession().with(ProducerConfig.BATCH_SIZE_CONFIG, 1024);

        assertThat(tuned.toMap()).containsEntry(ProducerConfig.LINGER_MS_CONFIG, 20)
                .containsEntry(ProducerConfig.PARTITIONER_CLASS_CONFIG, SessionPartitioner.class.getName())
                .containsEntry(ProducerConfig.BATCH_SIZE_CONFIG, 1024);
        assertThat(reliable.toMap()).doesNotContainKeys(ProducerConfig.LINGER_MS_CONFIG, ProducerConfig.PARTITIONER_CLASS_CONFIG,
                ProducerConfig.BATCH_SIZE_CONFIG);
    }

    @Test
    void toMap_isANewMapEachTime() {
        ProducerSettings reliable = ProducerSettings.reliable("broker:9092", "writer");

        reliable.toMap().put(ProducerConfig.ACKS_CONFIG, "0");

        assertThat(reliable.toMap()).containsEntry(ProducerConfig.ACKS_CONFIG, "all");
    }
}
