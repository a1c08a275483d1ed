package dev.tether.bench;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;

/**
 * Watches a consumer group (the projector's Kafka Streams application) work through a pre-filled topic:
 * from the first commit that moves its offsets to the commit that reaches the end. The start-up, the
 * group join and the restore of its stores are before the first commit, so they do not count.
 */
final class ProjectionCatchUp {

    /**
     * @param offsets      offsets the group committed between the first progress and the end
     * @param seconds      time between those two commits, as seen by polling every {@code pollMs}
     * @param eventsPerSec offsets per second, scaled by the share of offsets that are records (not transaction markers)
     * @param startupMs    from the call until the first progress: process start, join, restore
     */
    record CatchUp(long offsets, double seconds, double eventsPerSec, double startupMs) {
    }

    private final Admin admin;

    ProjectionCatchUp(Admin admin) {
        this.admin = admin;
    }

    /** Sum of end offsets of {@code topic} (read_uncommitted: markers included). */
    long endOffsets(String topic) throws Exception {
        return endOffsetsByPartition(topic).values().stream().mapToLong(Long::longValue).sum();
    }

    /**
     * Waits until {@code group} has committed the end of every partition of {@code topic}.
     *
     * @param recordShare     records per offset in the topic (the rest are transaction markers)
     * @param atFirstProgress run when the first progress is seen, where the measured catch-up begins
     */
    CatchUp await(String group, String topic, double recordShare, Duration timeout, long pollMs, Runnable atFirstProgress)
            throws Exception {
        long called = System.nanoTime();
        Map<TopicPartition, Long> end = endOffsetsByPartition(topic);
        long endSum = end.values().stream().mapToLong(Long::longValue).sum();
        long deadline = called + timeout.toNanos();
        long firstAt = -1;
        long firstCommitted = 0;
        long lastCommitted = -1;
        while (System.nanoTime() < deadline) {
            long committed = committed(group, topic);
            long now = System.nanoTime();
            if (firstAt < 0 && committed > 0) {
                firstAt = now;
                firstCommitted = committed;
                atFirstProgress.run();
            }
            if (committed >= endSum) {
                if (firstAt < 0 || now == firstAt) {
                    throw new IllegalStateException("the group had already caught up when first seen; nothing measured");
                }
                double seconds = (now - firstAt) / 1e9;
                long offsets = committed - firstCommitted;
                return new CatchUp(offsets, seconds, offsets * recordShare / seconds, (firstAt - called) / 1e6);
            }
            lastCommitted = committed;
            Thread.sleep(pollMs);
        }
        throw new IllegalStateException("the group " + group + " did not reach the end of " + topic + " within " + timeout
                + " (committed " + lastCommitted + " of " + endSum + ")");
    }

    /** Waits until {@code group} has committed the current end of every partition of {@code topic}; returns when it saw that. */
    long awaitCaughtUp(String group, String topic, Duration timeout, long pollMs) throws Exception {
        long endSum = endOffsets(topic);
        long deadline = System.nanoTime() + timeout.toNanos();
        long committed = -1;
        while (System.nanoTime() < deadline) {
            committed = committed(group, topic);
            if (committed >= endSum) {
                return System.nanoTime();
            }
            Thread.sleep(pollMs);
        }
        throw new IllegalStateException("the group " + group + " did not reach the end of " + topic + " within " + timeout
                + " (committed " + committed + " of " + endSum + ")");
    }

    /** The sum of the offsets {@code group} has committed in {@code topic}. */
    long committed(String group, String topic) throws Exception {
        Map<TopicPartition, OffsetAndMetadata> offsets = admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata()
                .get(10, TimeUnit.SECONDS);
        return offsets.entrySet().stream().filter(e -> e.getKey().topic().equals(topic) && e.getValue() != null)
                .mapToLong(e -> e.getValue().offset()).sum();
    }

    /** The partitions of {@code topic}. */
    int partitions(String topic) throws Exception {
        return admin.describeTopics(java.util.List.of(topic)).allTopicNames().get(10, TimeUnit.SECONDS).get(topic).partitions().size();
    }

    private Map<TopicPartition, Long> endOffsetsByPartition(String topic) throws Exception {
        int partitions = admin.describeTopics(java.util.List.of(topic)).allTopicNames().get(10, TimeUnit.SECONDS).get(topic)
                .partitions().size();
        var request = new HashMap<TopicPartition, OffsetSpec>();
        for (int p = 0; p < partitions; p++) {
            request.put(new TopicPartition(topic, p), OffsetSpec.latest());
        }
        return admin.listOffsets(request, new ListOffsetsOptions(IsolationLevel.READ_UNCOMMITTED)).all().get(10, TimeUnit.SECONDS)
                .entrySet().stream().collect(Collectors.toMap(Map.Entry::getKey, e -> e.getValue().offset()));
    }
}
