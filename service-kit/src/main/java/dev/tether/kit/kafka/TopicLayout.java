package dev.tether.kit.kafka;

/**
 * How Tether's topics are laid out on a cluster: an optional name prefix (several Tether
 * installations, or test runs, on one cluster), the partition count (which bounds the
 * parallelism of every service) and the replication factor.
 *
 * <p>{@code session-commands} and {@code session-events} always get the same partition count:
 * they are co-partitioned by sessionId. Changing the partition count of an existing
 * installation moves sessions to other partitions and is not supported.
 */
public record TopicLayout(String prefix, int partitions, short replicationFactor) {

    public static final int DEFAULT_PARTITIONS = 6;

    public TopicLayout {
        prefix = prefix == null ? "" : prefix;
        if (partitions < 1) {
            throw new IllegalArgumentException("partitions must be at least 1, not " + partitions);
        }
        if (replicationFactor < 1) {
            throw new IllegalArgumentException("replication factor must be at least 1, not " + replicationFactor);
        }
    }

    /** No prefix, {@value #DEFAULT_PARTITIONS} partitions, one replica: a single local broker. */
    public static TopicLayout local() {
        return new TopicLayout("", DEFAULT_PARTITIONS, (short) 1);
    }

    public TopicLayout withPrefix(String newPrefix) {
        return new TopicLayout(newPrefix, partitions, replicationFactor);
    }

    /** The full name of one of the {@link Topics} names under this layout. */
    public String name(String topic) {
        return prefix + topic;
    }
}
