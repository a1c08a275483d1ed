package dev.tether.bench;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.LogDirDescription;
import org.apache.kafka.clients.admin.ReplicaInfo;
import org.apache.kafka.common.Node;

/** Bytes the broker keeps on disk per topic (every segment of every partition, as {@code describeLogDirs} reports them). */
final class StoreSizes {

    private final Admin admin;

    StoreSizes(Admin admin) {
        this.admin = admin;
    }

    /** Bytes on disk of each topic that {@code topics} accepts, by topic name. */
    Map<String, Long> bytes(Predicate<String> topics) throws Exception {
        List<Integer> brokers = admin.describeCluster().nodes().get(10, TimeUnit.SECONDS).stream().map(Node::id).toList();
        var sizes = new TreeMap<String, Long>();
        for (Map<String, LogDirDescription> dirs : admin.describeLogDirs(brokers).allDescriptions().get(30, TimeUnit.SECONDS).values()) {
            for (LogDirDescription dir : dirs.values()) {
                for (Map.Entry<org.apache.kafka.common.TopicPartition, ReplicaInfo> replica : dir.replicaInfos().entrySet()) {
                    String topic = replica.getKey().topic();
                    if (topics.test(topic)) {
                        sizes.merge(topic, replica.getValue().size(), Long::sum);
                    }
                }
            }
        }
        return sizes;
    }

    /** Bytes on disk of every Tether topic of the run with topic prefix {@code prefix} (not the raw ceiling's), by name without the prefix. */
    Map<String, Long> tetherBytes(String prefix) throws Exception {
        var named = new TreeMap<String, Long>();
        bytes(topic -> isTether(prefix, topic)).forEach((topic, bytes) -> named.put(topic.substring(prefix.length()), bytes));
        return named;
    }

    /** Whether {@code topic} is one of Tether's topics in the run with prefix {@code prefix}: not the raw ceiling's. */
    static boolean isTether(String prefix, String topic) {
        return topic.startsWith(prefix) && !topic.equals(prefix + "raw");
    }

    /** {@code after - before}, per topic; topics new in {@code after} count from zero. */
    static Map<String, Long> delta(Map<String, Long> before, Map<String, Long> after) {
        var d = new TreeMap<String, Long>();
        after.forEach((topic, bytes) -> d.put(topic, bytes - before.getOrDefault(topic, 0L)));
        return d;
    }

    static long sum(Map<String, Long> sizes) {
        return sizes.values().stream().mapToLong(Long::longValue).sum();
    }
}
