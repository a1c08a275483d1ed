package dev.tether.kit.kafka;

import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.kafka.clients.producer.ProducerConfig;

/**
 * Producer settings, starting from the ones every Tether producer writes with ({@link #reliable}): each record is
 * acknowledged by every in-sync replica ({@code acks=all}) and the producer is idempotent, so a record the broker
 * acknowledged is written exactly once, never lost and never doubled by a retry; batches are compressed with zstd, as
 * the services' Kafka Streams applications write theirs. What a producer adds to that (its
 * linger, its partitioner, its timeouts) it adds with {@link #with}.
 *
 * <p>Immutable and thread-safe: every {@code with…} returns a copy.
 */
public final class ProducerSettings {

    private final Map<String, Object> values;

    private ProducerSettings(Map<String, Object> values) {
        this.values = values;
    }

    /** The reliable settings of a producer {@code clientId} of the brokers {@code bootstrapServers}. */
    public static ProducerSettings reliable(String bootstrapServers, String clientId) {
        return reliable(Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers, ProducerConfig.CLIENT_ID_CONFIG, clientId));
    }

    /** The reliable settings on top of {@code clientConfig} (how to reach the cluster: brokers, security). */
    public static ProducerSettings reliable(Map<String, ?> clientConfig) {
        var values = new LinkedHashMap<String, Object>(clientConfig);
        values.put(ProducerConfig.ACKS_CONFIG, "all");
        values.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        values.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, "zstd");
        return new ProducerSettings(values);
    }

    /** These settings with {@code key} set to {@code value} (a {@link ProducerConfig} name). */
    public ProducerSettings with(String key, Object value) {
        var copy = new LinkedHashMap<>(values);
        copy.put(key, value);
        return new ProducerSettings(copy);
    }

    /** How long a batch may wait for more records ({@code linger.ms}). */
    public ProducerSettings lingerMs(int millis) {
        return with(ProducerConfig.LINGER_MS_CONFIG, millis);
    }

    /** Records go to their session's partition ({@link SessionPartitioner}), whatever the key's form. */
    public ProducerSettings partitionedBySession() {
        return with(ProducerConfig.PARTITIONER_CLASS_CONFIG, SessionPartitioner.class.getName());
    }

    /** The settings, for {@code new KafkaProducer<>(…)}: a new mutable map each time. */
    public Map<String, Object> toMap() {
        return new LinkedHashMap<>(values);
    }
}
