package dev.tether.testing;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/** Reads whole topics as raw records, committed data only. */
public final class TopicReader {

    private TopicReader() {}

    /** Every committed record of {@code topic}, partition by partition, in offset order. */
    public static List<ConsumerRecord<byte[], byte[]>> readAll(String topic) {
        var config = new HashMap<>(TetherStack.shared().clientConfig());
        config.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        var records = new ArrayList<ConsumerRecord<byte[], byte[]>>();
        try (var consumer = new KafkaConsumer<>(config, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            var partitions = consumer.partitionsFor(topic).stream().map(p -> new TopicPartition(topic, p.partition())).toList();
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            Map<TopicPartition, Long> end = consumer.endOffsets(partitions);
            while (partitions.stream().anyMatch(p -> consumer.position(p) < end.get(p))) {
                consumer.poll(Duration.ofMillis(200)).forEach(records::add);
            }
        }
        records.sort(java.util.Comparator.<ConsumerRecord<byte[], byte[]>>comparingInt(ConsumerRecord::partition)
                .thenComparingLong(ConsumerRecord::offset));
        return records;
    }

    /** The latest value of each key (as text), for a compacted topic read as a table. */
    public static Map<String, byte[]> latestByKey(String topic) {
        var latest = new java.util.TreeMap<String, byte[]>();
        for (var r : readAll(topic)) {
            String key = new String(r.key(), java.nio.charset.StandardCharsets.UTF_8);
            if (r.value() == null) {
                latest.remove(key);
            } else {
                latest.put(key, r.value());
            }
        }
        return latest;
    }
}
