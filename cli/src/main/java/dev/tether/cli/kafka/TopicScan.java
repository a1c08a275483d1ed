package dev.tether.cli.kafka;

import dev.tether.cli.CliException;
import dev.tether.cli.Durations;
import java.time.Duration;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.RecordDeserializationException;
import org.apache.kafka.common.errors.TimeoutException;

/**
 * Reads every partition of a topic from its beginning up to the end offsets it had when the scan
 * began (the last stable offsets, with {@code read_committed}), so a scan ends even while writers
 * go on. The consumer is assigned, not subscribed: no group, nothing committed. A scan that gets no
 * further for the timeout (the broker went away, say) fails rather than waiting for ever.
 */
final class TopicScan<K, V> {

    /** How far a scan got: the share of the offsets between the beginning and the end offsets read, from 0 to 1. */
    interface Progress {
        void at(double fraction);
    }

    private final Consumer<K, V> consumer;
    private final String topic;
    private final Duration timeout;
    private final List<TopicPartition> partitions;
    private final Map<TopicPartition, Long> begins;
    private final Map<TopicPartition, Long> ends;
    private final long total;

    TopicScan(Consumer<K, V> consumer, String topic, Duration timeout) {
        this.consumer = consumer;
        this.topic = topic;
        this.timeout = timeout;
        try {
            List<PartitionInfo> infos = consumer.partitionsFor(topic, timeout);
            if (infos == null || infos.isEmpty()) {
                throw new CliException("topic " + topic + " does not exist (check --topics-prefix; 'tether topics init' creates the topics)");
            }
            partitions = infos.stream().map(p -> new TopicPartition(topic, p.partition()))
                    .sorted(Comparator.comparingInt(TopicPartition::partition)).toList();
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            ends = new HashMap<>(consumer.endOffsets(partitions, timeout));
            begins = consumer.beginningOffsets(partitions, timeout);
        } catch (TimeoutException e) {
            throw unanswered(e);
        }
        total = partitions.stream().mapToLong(p -> ends.get(p) - begins.get(p)).sum();
    }

    int partitions() {
        return partitions.size();
    }

    /** Hands every record to {@code each}, in offset order per partition; returns how many there were. */
    long forEach(java.util.function.Consumer<ConsumerRecord<K, V>> each, Progress progress) {
        long read = 0;
        try {
            var open = new HashSet<>(partitions);
            var empty = open.stream().filter(p -> consumer.position(p) >= ends.get(p)).toList();
            empty.forEach(open::remove);
            consumer.pause(empty); // nothing to read there: what comes was written after the scan began
            long reached = reached(open);
            int stillOpen = open.size();
            long movedAt = System.nanoTime();
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
                long now = reached(open);
                if (now > reached || open.size() < stillOpen) {
                    reached = now;
                    stillOpen = open.size();
                    movedAt = System.nanoTime();
                } else if (!open.isEmpty() && System.nanoTime() - movedAt > timeout.toNanos()) {
                    throw new CliException("reading " + topic + " got no further for " + Durations.format(timeout) + ": " + open.stream()
                            .sorted(Comparator.comparingInt(TopicPartition::partition))
                            .map(p -> "partition " + p.partition() + " at offset " + consumer.position(p) + " of " + ends.get(p))
                            .collect(Collectors.joining(", ")) + " (is Kafka still running? see --bootstrap and --timeout)");
                }
            }
        } catch (TimeoutException e) {
            throw unanswered(e);
        }
        return read;
    }

    /** How far the scan has got in the partitions still open: the sum of their positions, which grows as they are read. */
    private long reached(java.util.Set<TopicPartition> open) {
        return open.stream().mapToLong(consumer::position).sum();
    }

    private CliException unanswered(TimeoutException e) {
        return new CliException("Kafka did not answer within " + Durations.format(timeout) + " (is it running? see --bootstrap): "
                + e.getMessage(), e);
    }
}
