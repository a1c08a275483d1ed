package dev.tether.kit.kafka;

import java.util.Map;
import org.apache.avro.Schema;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.config.TopicConfig;

/**
 * One topic as Tether needs it: its name, size and the configs it must have.
 *
 * @param name              the full topic name (with the layout's prefix, if any)
 * @param partitions        partitions to create it with
 * @param replicationFactor replicas to create it with
 * @param configs           topic-level configs; {@code cleanup.policy} is always present
 * @param valueSchema       the Avro schema of its values (subject {@code <name>-value} in the registry)
 */
public record TopicSpec(String name, int partitions, short replicationFactor, Map<String, String> configs, Schema valueSchema) {

    public TopicSpec {
        configs = Map.copyOf(configs);
        if (!configs.containsKey(TopicConfig.CLEANUP_POLICY_CONFIG)) {
            throw new IllegalArgumentException(name + ": a topic spec must say its cleanup.policy");
        }
    }

    public String cleanupPolicy() {
        return configs.get(TopicConfig.CLEANUP_POLICY_CONFIG);
    }

    /** The registry subject of the topic's values (Confluent's and Apicurio's TopicIdStrategy). */
    public String valueSubject() {
        return name + "-value";
    }

    NewTopic toNewTopic() {
        return new NewTopic(name, partitions, replicationFactor).configs(configs);
    }
}
