package dev.tether.kit.kafka;

import dev.tether.avro.BlobReference;
import dev.tether.avro.Checkpoint;
import dev.tether.avro.CommandReply;
import dev.tether.avro.HarnessVersion;
import dev.tether.avro.SessionCommand;
import dev.tether.avro.SessionEvent;
import dev.tether.avro.ToolOutcome;
import dev.tether.avro.ToolRequest;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.avro.Schema;
import org.apache.kafka.common.config.TopicConfig;

/**
 * Tether's topics, defined once (docs/ARCHITECTURE.md §3). The admin init ({@link TopicInitializer})
 * creates them from here, and the Strimzi {@code KafkaTopic} manifests in {@code deploy/} mirror
 * them.
 *
 * <table>
 * <caption>Topics</caption>
 * <tr><th>topic</th><th>key</th><th>value</th><th>cleanup</th></tr>
 * <tr><td>session-commands</td><td>sessionId</td><td>SessionCommand</td><td>delete, 7 days</td></tr>
 * <tr><td>session-events</td><td>(sessionId, seq)</td><td>SessionEvent</td><td>compact, never by time</td></tr>
 * <tr><td>session-checkpoints</td><td>sessionId</td><td>Checkpoint</td><td>compact</td></tr>
 * <tr><td>tool-requests</td><td>idempotency key (partitioned by its session)</td><td>ToolRequest</td><td>delete, 7 days</td></tr>
 * <tr><td>tool-outcomes</td><td>idempotency key (partitioned by its session)</td><td>ToolOutcome</td><td>compact, the writer's timestamps</td></tr>
 * <tr><td>harness-versions</td><td>version</td><td>HarnessVersion</td><td>compact</td></tr>
 * <tr><td>session-replies</td><td>instance id</td><td>CommandReply</td><td>delete, 1 hour</td></tr>
 * <tr><td>blob-references</td><td>tenantId NUL sha256 NUL sessionId (partitioned by tenantId NUL sha256)</td><td>BlobReference</td><td>compact</td></tr>
 * </table>
 */
public final class Topics {

    public static final String SESSION_COMMANDS = "session-commands";
    public static final String SESSION_EVENTS = "session-events";
    public static final String SESSION_CHECKPOINTS = "session-checkpoints";
    public static final String TOOL_REQUESTS = "tool-requests";
    public static final String TOOL_OUTCOMES = "tool-outcomes";
    public static final String HARNESS_VERSIONS = "harness-versions";
    /** The sequencer's verdicts, read by the REST instance that waits for them: the reply channel of docs/ARCHITECTURE.md §3. */
    public static final String SESSION_REPLIES = "session-replies";
    /** Which sessions refer to each blob, kept by the projector, so that a blob no session refers to any more is deleted. */
    public static final String BLOB_REFERENCES = "blob-references";

    /** How long commands and tool requests are kept: long enough to replay a week of work. */
    public static final Duration WORK_QUEUE_RETENTION = Duration.ofDays(7);
    /** How long verdicts are kept: a caller waits seconds; an hour leaves room to debug. */
    public static final Duration REPLY_RETENTION = Duration.ofHours(1);

    private Topics() {}

    /** Tether's topics under the given layout. */
    public static List<TopicSpec> all(TopicLayout layout) {
        return List.of(
                spec(layout, SESSION_COMMANDS, layout.partitions(), deleteAfter(WORK_QUEUE_RETENTION), SessionCommand.getClassSchema()),
                // every event has its own key, so compaction keeps them all; only tombstones erase
                spec(layout, SESSION_EVENTS, layout.partitions(), compactedForever(), SessionEvent.getClassSchema()),
                spec(layout, SESSION_CHECKPOINTS, layout.partitions(), compactedForever(), Checkpoint.getClassSchema()),
                spec(layout, TOOL_REQUESTS, layout.partitions(), deleteAfter(WORK_QUEUE_RETENTION), ToolRequest.getClassSchema()),
                // the executor's ledger finds a call's records by the timestamps it writes: the broker must keep them
                spec(layout, TOOL_OUTCOMES, layout.partitions(), withProducersTimestamps(compactedForever()), ToolOutcome.getClassSchema()),
                // a handful of records read whole by every instance
                spec(layout, HARNESS_VERSIONS, 1, compactedForever(), HarnessVersion.getClassSchema()),
                spec(layout, SESSION_REPLIES, layout.partitions(), deleteAfter(REPLY_RETENTION), CommandReply.getClassSchema()),
                // one key per (blob, session); a session's erasure tombstones its keys
                spec(layout, BLOB_REFERENCES, layout.partitions(), compactedForever(), BlobReference.getClassSchema()));
    }

    /** The spec of one topic under the given layout. */
    public static TopicSpec spec(TopicLayout layout, String topic) {
        return all(layout).stream()
                .filter(s -> s.name().equals(layout.name(topic)))
                .findFirst()
                .orElseThrow(() -> new IllegalArgumentException("not a Tether topic: " + topic));
    }

    private static TopicSpec spec(TopicLayout layout, String topic, int partitions, Map<String, String> configs, Schema valueSchema) {
        var all = new HashMap<>(configs);
        if (layout.replicationFactor() > 1) {
            all.put(TopicConfig.MIN_IN_SYNC_REPLICAS_CONFIG, Integer.toString(Math.min(2, layout.replicationFactor())));
        }
        return new TopicSpec(layout.name(topic), partitions, layout.replicationFactor(), all, valueSchema);
    }

    private static Map<String, String> deleteAfter(Duration retention) {
        return Map.of(
                TopicConfig.CLEANUP_POLICY_CONFIG, TopicConfig.CLEANUP_POLICY_DELETE,
                TopicConfig.RETENTION_MS_CONFIG, Long.toString(retention.toMillis()));
    }

    private static Map<String, String> withProducersTimestamps(Map<String, String> configs) {
        var all = new HashMap<>(configs);
        all.put(TopicConfig.MESSAGE_TIMESTAMP_TYPE_CONFIG, "CreateTime");
        return Map.copyOf(all);
    }

    private static Map<String, String> compactedForever() {
        return Map.of(
                TopicConfig.CLEANUP_POLICY_CONFIG, TopicConfig.CLEANUP_POLICY_COMPACT,
                TopicConfig.RETENTION_MS_CONFIG, "-1");
    }
}
