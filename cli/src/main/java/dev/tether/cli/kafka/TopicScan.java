package dev.tether.cli.kafka;

import dev.tether.cli.CliException;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.RecordDeserializationException;

/**
 * Reads every partition of a topic from its beginning up to the end offsets it had when the scan
 * began (the last stable offsets, with {@code read_committed}), so a scan ends even while writers
 * go on. The consumer is assigned, not subscribed: no group, nothing committed.
 */
final class TopicScan<K, V> {

    /** How far a scan got: the share of the offsets between the beginning and the end offsets read, from 0 to 1. */
    interface Progress {
        void at(double fraction);
    }

    private final KafkaConsumer<K, V> consumer;
    private final String topic;
    private final List<TopicPartition> partitions;
    private final Map<TopicPartition, Long> begins;
    private final Map<TopicPartition, Long> ends;
    private final long total;

    TopicScan(KafkaConsumer<K, V> consumer, String topic, Duration timeout) {
        this.consumer = consumer;
        this.topic = topic;
        List<PartitionInfo> infos;
        try {
            infos = consumer.partitionsFor(topic, timeout);
        } catch (org.apache.kafka.common.errors.TimeoutException e) {
            throw new CliException("Kafka did not answer within " + dev.tether.cli.Durations.format(timeout) + " (is it running? see --bootstrap): "
                    + e.getMessage(), e);
        }
        if (infos == null || infos.isEmpty()) {
            throw new CliException("topic " + topic + " does not exist (check --topics-prefix; 'tether topics init' creates the topics)");
        }
        partitions = infos.stream().map(p -> new TopicPartition(topic, p.partition())).sorted(
                java.util.Comparator.comparingInt(TopicPartition::partition)).toList();
        consumer.assign(partitions);
        consumer.seekToBeginning(partitions);
        ends = new HashMap<>(consumer.endOffsets(partitions, timeout));
        begins = consumer.beginningOffsets(partitions, timeout);
        total = partitions.stream().mapToLong(p -> ends.get(p) - begins.get(p)).sum();
    }

    int partitions() {
        return partitions.size();
    }

    /** Hands every record to {@code each}, in offset order per partition; returns how many there were. */
    long forEach(Consumer<ConsumerRecord<K, V>> each, Progress progress) {
        long read = 0;
        var open = new java.util.HashSet<>(partitions);
        open.removeIf(p -> consumer.position(p) >= ends.get(p));
        while (!open.isEmpty()) {
            try {
                for (ConsumerRecord<K, V> record : consumer.poll(Duration.ofMillis(200))) {
                    TopicPartition p = new TopicPartition(record.topic(), record.partition());
                    if (record.offset() < ends.get(p)) {
                        each.accept(record);
                        read++;
                    }
                }
            } catch (RecordDeserializationException e) {
                throw new CliException("cannot read " + topic + "-" + e.topicPartition().partition() + " at offset " + e.offset() + ": "
                        + (e.getCause() == null ? e.getMessage() : e.getCause().getMessage()) + " (is the registry at --registry-url the one "
                        + "this cluster's producers use?)", e);
            }
            var done = open.stream().filter(p -> consumer.position(p) >= ends.get(p)).toList();
            done.forEach(open::remove);
            consumer.pause(done); // what comes after the end offsets was written after the scan began
            progress.at(total == 0 ? 1 : partitions.stream().mapToLong(p -> Math.min(consumer.position(p), ends.get(p)) - begins.get(p)).sum()
                    / (double) total);
        }
        return read;
    }
}
