package dev.tether.client;

import dev.tether.client.kafka.SessionEventKeys;
import io.apicurio.registry.serde.avro.AvroKafkaDeserializer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.avro.generic.GenericRecord;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.utils.Utils;

/**
 * The client README's "straight from Kafka" snippet, as code the integration test runs: a plain
 * {@code KafkaConsumer} with Apicurio's Avro deserializer reads one session's events from
 * {@code session-events}, in seq order. Keep the two in step.
 */
final class PlainKafkaSessionReader {

    /** One event as read from the topic. */
    record Read(long seq, String eventId, String type, GenericRecord event) {}

    private PlainKafkaSessionReader() {}

    /** The session's events from {@code fromSeq} on, until {@code count} were read or {@code timeout} passed. */
    static List<Read> read(String bootstrapServers, String registryUrl, String topic, String sessionId, long fromSeq, int count,
                           Duration timeout) {
        Map<String, Object> config = Map.of(
                "bootstrap.servers", bootstrapServers,
                "isolation.level", "read_committed",                     // the sequencer writes in transactions
                "enable.auto.commit", false,
                "key.deserializer", ByteArrayDeserializer.class.getName(),
                "value.deserializer", AvroKafkaDeserializer.class.getName(),
                "apicurio.registry.url", registryUrl,                    // http://HOST:PORT/apis/registry/v3
                "apicurio.registry.use-id", "contentId",                 // Confluent wire format: magic byte, 4-byte id
                "apicurio.registry.headers.enabled", false);             // the id is in the value, not in headers
        var out = new ArrayList<Read>();
        try (var consumer = new KafkaConsumer<byte[], GenericRecord>(config)) {
            // every event of a session is on the partition Kafka's default partitioner gives its sessionId
            int partitions = consumer.partitionsFor(topic).size();
            var partition = new TopicPartition(topic, Utils.toPositive(Utils.murmur2(sessionId.getBytes(StandardCharsets.UTF_8))) % partitions);
            consumer.assign(List.of(partition));
            consumer.seekToBeginning(List.of(partition));
            long next = fromSeq;
            long deadline = System.nanoTime() + timeout.toNanos();
            while (out.size() < count && System.nanoTime() < deadline) {
                for (ConsumerRecord<byte[], GenericRecord> record : consumer.poll(Duration.ofMillis(500))) {
                    SessionEventKeys.Key key = SessionEventKeys.decode(record.key());
                    if (!key.sessionId().equals(sessionId) || record.value() == null || key.seq() < next) {
                        continue; // another session on the partition, an erasure's tombstone, or seen already
                    }
                    GenericRecord event = record.value();
                    out.add(new Read(key.seq(), event.get("eventId").toString(), event.get("type").toString(), event));
                    next = key.seq() + 1;
                }
            }
        }
        return out;
    }
}
