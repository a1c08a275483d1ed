package dev.tether.bench;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/** Counts the committed records of a topic with a plain consumer (no group): the denominator of per-event figures. */
final class TopicCount {

    private TopicCount() {
    }

    static long records(Map<String, Object> clientConfig, String topic) {
        var props = new Properties();
        props.putAll(clientConfig);
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        props.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 5000);
        try (var consumer = new KafkaConsumer<>(props, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            List<TopicPartition> partitions = consumer.partitionsFor(topic, Duration.ofSeconds(10)).stream()
                    .map(p -> new TopicPartition(topic, p.partition())).toList();
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            Map<TopicPartition, Long> end = new HashMap<>(consumer.endOffsets(partitions, Duration.ofSeconds(10)));
            long count = 0;
            long deadline = System.nanoTime() + Duration.ofMinutes(5).toNanos();
            while (partitions.stream().anyMatch(tp -> consumer.position(tp, Duration.ofSeconds(10)) < end.get(tp))) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("could not read " + topic + " to its end within 5 minutes");
                }
                count += consumer.poll(Duration.ofMillis(500)).count();
            }
            return count;
        }
    }
}
