package dev.tether.bench;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.TopicPartition;

/**
 * What the broker writes per appended event (issue 20 §3): for each of the run's Tether topics, the records it took —
 * its end offsets' growth, so the transaction markers of the session-service's commits count too, each takes an offset
 * — and the bytes its logs grew by, over a window of appends in which nothing but the session-service writes (before
 * the projector starts), divided by the events the window appended (records of {@code session-events}, read).
 * The raw producer it is compared with writes one record per record.
 */
final class BrokerWrites {

    /**
     * @param events         events appended in the window (committed records of {@code session-events})
     * @param records        offsets taken per appended event, all topics (data records and transaction markers)
     * @param bytes          bytes stored per appended event, all topics
     * @param recordsByTopic offsets taken per appended event, by topic (without the run's prefix)
     * @param bytesByTopic   bytes stored per appended event, by topic
     */
    record PerEvent(String window, long events, double records, double bytes, Map<String, Double> recordsByTopic,
            Map<String, Double> bytesByTopic) {
    }

    /** Every Tether topic's end offset (summed over partitions) and bytes on disk, and the events in its log. */
    record Snapshot(Map<String, Long> offsets, Map<String, Long> bytes, long events) {
    }

    private final Admin admin;
    private final Map<String, Object> clientConfig;
    private final String prefix;
    private final StoreSizes sizes;

    BrokerWrites(Admin admin, Map<String, Object> clientConfig, String prefix) {
        this.admin = admin;
        this.clientConfig = clientConfig;
        this.prefix = prefix;
        this.sizes = new StoreSizes(admin);
    }

    Snapshot snapshot() throws Exception {
        List<String> topics = admin.listTopics().names().get(10, TimeUnit.SECONDS).stream()
                .filter(topic -> StoreSizes.isTether(prefix, topic)).sorted().toList();
        Map<String, TopicDescription> described = admin.describeTopics(topics).allTopicNames().get(10, TimeUnit.SECONDS);
        Map<TopicPartition, OffsetSpec> latest = described.values().stream()
                .flatMap(d -> d.partitions().stream().map(p -> new TopicPartition(d.name(), p.partition())))
                .collect(Collectors.toMap(tp -> tp, tp -> OffsetSpec.latest()));
        Map<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> ends = admin.listOffsets(latest).all().get(30, TimeUnit.SECONDS);
        var offsets = new TreeMap<String, Long>();
        ends.forEach((tp, end) -> offsets.merge(tp.topic().substring(prefix.length()), end.offset(), Long::sum));
        return new Snapshot(offsets, sizes.tetherBytes(prefix), TopicCount.records(clientConfig, prefix + "session-events"));
    }

    /** The writes between {@code before} and {@code after}, per event appended between them. */
    static PerEvent between(String window, Snapshot before, Snapshot after) {
        long events = after.events() - before.events();
        if (events <= 0) {
            throw new IllegalStateException("no event was appended in the window " + window);
        }
        Map<String, Double> records = perEvent(StoreSizes.delta(before.offsets(), after.offsets()), events);
        Map<String, Double> bytes = perEvent(StoreSizes.delta(before.bytes(), after.bytes()), events);
        return new PerEvent(window, events, sum(records), sum(bytes), records, bytes);
    }

    private static Map<String, Double> perEvent(Map<String, Long> grown, long events) {
        var per = new TreeMap<String, Double>();
        grown.forEach((topic, n) -> {
            if (n != 0) {
                per.put(topic, (double) n / events);
            }
        });
        return per;
    }

    private static double sum(Map<String, Double> values) {
        return values.values().stream().mapToDouble(Double::doubleValue).sum();
    }
}
