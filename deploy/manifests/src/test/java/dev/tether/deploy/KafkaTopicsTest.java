package dev.tether.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tether.deploy.Manifests.Doc;
import dev.tether.kit.kafka.TopicLayout;
import dev.tether.kit.kafka.TopicSpec;
import dev.tether.kit.kafka.Topics;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.apache.kafka.common.config.TopicConfig;
import org.junit.jupiter.api.Test;

/**
 * The Strimzi KafkaTopics are the topics as code (Topics.all) under the production layout that the
 * tether-config ConfigMap gives the services, and the cluster can hold them.
 */
class KafkaTopicsTest {

    /** The layout the services run with in Kubernetes: what they verify the topics against. */
    static TopicLayout productionLayout() {
        Map<String, String> config = Yaml.strings(Yaml.map(configMap().root(), "data"));
        return new TopicLayout(
                config.getOrDefault("TETHER_TOPICS_PREFIX", ""),
                Integer.parseInt(config.get("TETHER_TOPICS_PARTITIONS")),
                Short.parseShort(config.get("TETHER_TOPICS_REPLICATION_FACTOR")));
    }

    static Doc configMap() {
        return Manifests.ofKind(Manifests.base(), "ConfigMap").stream()
                .filter(d -> "tether-config".equals(d.name()))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no ConfigMap tether-config in deploy/k8s/base"));
    }

    static Doc kafka() {
        List<Doc> clusters = Manifests.ofKind(Manifests.base(), "Kafka");
        assertThat(clusters).as("Kafka clusters in deploy/k8s/base").hasSize(1);
        return clusters.get(0);
    }

    @Test
    void kafkaTopics_equalTheTopicsAsCode_underTheProductionLayout() {
        TopicLayout layout = productionLayout();
        Map<String, TopicSpec> expected = Topics.all(layout).stream()
                .collect(Collectors.toMap(TopicSpec::name, Function.identity()));
        List<Doc> topics = Manifests.ofKind(Manifests.base(), "KafkaTopic");

        assertThat(topics).extracting(KafkaTopicsTest::topicName).containsExactlyInAnyOrderElementsOf(expected.keySet());
        for (Doc topic : topics) {
            TopicSpec spec = expected.get(topicName(topic));
            assertThat(Yaml.integer(topic.spec(), "partitions")).as(topic.where() + " partitions").isEqualTo(spec.partitions());
            assertThat(Yaml.integer(topic.spec(), "replicas")).as(topic.where() + " replicas").isEqualTo(spec.replicationFactor());
            // every key and value, as the admin client would write them: nothing more, nothing less
            assertThat(new TreeMap<>(Yaml.strings(Yaml.mapOrEmpty(topic.spec(), "config")))).as(topic.where() + " config")
                    .isEqualTo(new TreeMap<>(spec.configs()));
        }
    }

    @Test
    void productionLayout_replicatesThreeTimes_andKeepsTwoInSync() {
        TopicLayout layout = productionLayout();

        assertThat(layout.replicationFactor()).isEqualTo((short) 3);
        assertThat(layout.partitions()).isGreaterThanOrEqualTo(TopicLayout.DEFAULT_PARTITIONS);
        assertThat(Topics.spec(layout, Topics.SESSION_EVENTS).configs()).containsEntry(TopicConfig.MIN_IN_SYNC_REPLICAS_CONFIG, "2");
    }

    @Test
    void everyKafkaTopic_belongsToTheTetherCluster_underItsOwnName() {
        String cluster = kafka().name();

        for (Doc topic : Manifests.ofKind(Manifests.base(), "KafkaTopic")) {
            assertThat(Yaml.string(topic.root(), "metadata", "labels", "strimzi.io/cluster")).as(topic.where()).isEqualTo(cluster);
            assertThat(topic.name()).as(topic.where() + ": metadata.name is the topic, so two KafkaTopics never claim one topic")
                    .isEqualTo(topicName(topic));
        }
    }

    @Test
    void cluster_runsTheProjectsKafka_inKraft_withEnoughBrokersForTheLayout() {
        Doc kafka = kafka();
        Map<String, String> config = Yaml.strings(Yaml.map(kafka.spec(), "kafka", "config"));
        List<Doc> pools = Manifests.ofKind(Manifests.base(), "KafkaNodePool");
        int brokers = pools.stream()
                .filter(p -> Yaml.list(p.spec(), "roles").contains("broker"))
                .mapToInt(p -> Yaml.integer(p.spec(), "replicas"))
                .sum();
        int controllers = pools.stream()
                .filter(p -> Yaml.list(p.spec(), "roles").contains("controller"))
                .mapToInt(p -> Yaml.integer(p.spec(), "replicas"))
                .sum();

        assertThat(Yaml.string(kafka.spec(), "kafka", "version")).isEqualTo(Repo.kafkaVersion());
        assertThat(Yaml.string(kafka.spec(), "kafka", "metadataVersion")).startsWith(minorOf(Repo.kafkaVersion()) + "-");
        assertThat(kafka.spec()).as("KRaft: no ZooKeeper").doesNotContainKey("zookeeper");
        assertThat(pools).allSatisfy(p -> assertThat(Yaml.string(p.root(), "metadata", "labels", "strimzi.io/cluster")).isEqualTo(kafka.name()));
        assertThat(controllers).as("controllers, an odd quorum").isOdd();
        assertThat(brokers).as("brokers").isGreaterThanOrEqualTo(productionLayout().replicationFactor());
        // exactly-once Streams needs its transaction log writable with a broker down
        assertThat(Integer.parseInt(config.get("transaction.state.log.replication.factor"))).isLessThanOrEqualTo(brokers);
        assertThat(Integer.parseInt(config.get("transaction.state.log.min.isr")))
                .isLessThan(Integer.parseInt(config.get("transaction.state.log.replication.factor")));
        assertThat(Integer.parseInt(config.get("min.insync.replicas"))).isLessThan(brokers);
        assertThat(config).containsEntry("auto.create.topics.enable", "false");
        assertThat(Yaml.mapOrEmpty(kafka.spec(), "entityOperator")).as("the topic operator reconciles the KafkaTopics")
                .containsKey("topicOperator");
    }

    @Test
    void services_onlyVerifyTheTopics_thatTheTopicOperatorCreates() {
        Map<String, String> config = Yaml.strings(Yaml.map(configMap().root(), "data"));

        assertThat(config).containsEntry("TETHER_TOPICS_INIT", "verify");
        assertThat(config.get("TETHER_KAFKA_BOOTSTRAP")).isEqualTo(kafka().name() + "-kafka-bootstrap:9092");
    }

    private static String topicName(Doc topic) {
        String name = Yaml.stringOrNull(topic.spec(), "topicName");
        return name != null ? name : topic.name();
    }

    private static String minorOf(String version) {
        String[] parts = version.split("\\.");
        return parts[0] + "." + parts[1];
    }
}
