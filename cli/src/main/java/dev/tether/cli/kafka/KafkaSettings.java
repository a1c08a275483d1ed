package dev.tether.cli.kafka;

import dev.tether.kit.kafka.ProducerSettings;
import dev.tether.kit.kafka.RegistrySettings;
import dev.tether.kit.kafka.TopicLayout;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.ProducerConfig;

/**
 * Where Kafka and the schema registry are, the topics' layout, and how long a request may take.
 *
 * @param bootstrapServers the brokers, e.g. {@code 127.0.0.1:9092}
 * @param registryUrl      Apicurio Registry's v3 API, e.g. {@code http://127.0.0.1:8085/apis/registry/v3}
 * @param layout           topic prefix, partitions and replication factor
 * @param timeout          how long one request to Kafka or the registry may take
 */
public record KafkaSettings(String bootstrapServers, String registryUrl, TopicLayout layout, Duration timeout) {

    /**
     * The registry with the CLI's deadlines: connecting and each request may take {@code timeout} (a schema lookup
     * tries twice), so a registry that answers nothing fails the command instead of hanging it.
     */
    public RegistrySettings registry() {
        return new RegistrySettings(registryUrl, timeout, timeout);
    }

    /** Admin client settings. */
    public Map<String, Object> admin() {
        var config = new HashMap<String, Object>();
        config.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        config.put(CommonClientConfigs.CLIENT_ID_CONFIG, "tether-cli");
        config.put(CommonClientConfigs.REQUEST_TIMEOUT_MS_CONFIG, (int) timeout.toMillis());
        config.put(CommonClientConfigs.DEFAULT_API_TIMEOUT_MS_CONFIG, (int) timeout.toMillis());
        return config;
    }

    /**
     * A consumer that reads committed records only (the sequencer and the projector write in transactions), from
     * assigned partitions, with no group and no committed offsets: it leaves no trace on the cluster. Nor does it ask
     * the broker to create a topic it looks up (a broker's {@code auto.create.topics.enable} is true unless turned off):
     * a mistyped {@code --topics-prefix} is a missing topic, not a new one that deletes by time.
     */
    public Map<String, Object> consumer(String clientId) {
        var config = new HashMap<String, Object>();
        config.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        config.put(ConsumerConfig.CLIENT_ID_CONFIG, clientId);
        config.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        config.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        config.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        config.put(ConsumerConfig.ALLOW_AUTO_CREATE_TOPICS_CONFIG, false);
        config.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 2000);
        config.put(ConsumerConfig.REQUEST_TIMEOUT_MS_CONFIG, (int) timeout.toMillis());
        config.put(ConsumerConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, (int) timeout.toMillis());
        return config;
    }

    /** An idempotent producer that waits for every in-sync replica: a record is written once, or the write fails. */
    public Map<String, Object> producer(String clientId) {
        return ProducerSettings.reliable(bootstrapServers, clientId)
                .lingerMs(20)
                .with(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, (int) timeout.toMillis())
                .with(ProducerConfig.MAX_BLOCK_MS_CONFIG, timeout.toMillis())
                // twice the request timeout, at least Kafka's default; an int, so a long --timeout must not wrap around
                .with(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, (int) Math.min(Integer.MAX_VALUE, Math.max(timeout.toMillis() * 2, 120_000)))
                .toMap();
    }
}
