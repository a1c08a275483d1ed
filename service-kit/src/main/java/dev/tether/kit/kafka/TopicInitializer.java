package dev.tether.kit.kafka;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.errors.RetriableException;
import org.apache.kafka.common.errors.TopicExistsException;

/**
 * The idempotent admin {@code init}: creates the topics that are missing and verifies the ones
 * that exist. Safe to run from every service at start-up and concurrently (a topic another
 * instance created a moment ago is verified like any other).
 *
 * <p>Fails with {@link TopicMisconfiguredException} rather than run on a topic that would lose
 * or misplace events: a {@code cleanup.policy} other than the one required (for example
 * {@code delete} on {@code session-events}, which would drop events by time), time-based
 * retention on a compacted topic, {@code tool-outcomes} with the broker's timestamps instead of its
 * writer's ({@code message.timestamp.type}), or {@code session-commands}, {@code session-events}, {@code tool-requests}
 * and {@code tool-outcomes} with different partition counts (they must be co-partitioned: the executor reads a call's
 * ledger at its request's partition number, and the projector reads events and outcomes in one task).
 */
public final class TopicInitializer {

    /** What an init run did. */
    public record Report(List<String> created, List<String> verified, List<String> warnings) {}

    private final Admin admin;
    private final Duration timeout;

    public TopicInitializer(Admin admin, Duration timeout) {
        this.admin = admin;
        this.timeout = timeout;
    }

    /** Creates the missing topics of {@code layout} and verifies all of them. */
    public Report init(TopicLayout layout) {
        return init(Topics.all(layout), layout);
    }

    /** Verifies the topics of {@code layout} without creating any; a missing topic is a problem. */
    public Report verify(TopicLayout layout) {
        List<TopicSpec> specs = Topics.all(layout);
        Set<String> existing = await(admin.listTopics().names());
        var missing = specs.stream().map(TopicSpec::name).filter(n -> !existing.contains(n)).toList();
        if (!missing.isEmpty()) {
            throw new TopicMisconfiguredException(missing.stream()
                    .map(n -> "topic '" + n + "' does not exist (create it, or start with tether.topics.init=create)").toList());
        }
        var warnings = new ArrayList<String>();
        verify(specs, layout, warnings);
        return new Report(List.of(), specs.stream().map(TopicSpec::name).toList(), List.copyOf(warnings));
    }

    Report init(List<TopicSpec> specs, TopicLayout layout) {
        Set<String> existing = await(admin.listTopics().names());
        var created = new ArrayList<String>();
        for (TopicSpec spec : specs) {
            if (!existing.contains(spec.name())) {
                try {
                    await(admin.createTopics(List.of(spec.toNewTopic())).all());
                    created.add(spec.name());
                } catch (TopicExistsException raced) {
                    // another instance created it in the meantime: verified below like any other
                }
            }
        }
        var verified = specs.stream().map(TopicSpec::name).filter(n -> !created.contains(n)).toList();
        var warnings = new ArrayList<String>();
        verify(specs, layout, warnings);
        return new Report(List.copyOf(created), verified, List.copyOf(warnings));
    }

    private void verify(List<TopicSpec> specs, TopicLayout layout, List<String> warnings) {
        Collection<String> names = specs.stream().map(TopicSpec::name).toList();
        Map<String, TopicDescription> descriptions = awaitUsable(names);
        var resources = names.stream()
                .map(n -> new ConfigResource(ConfigResource.Type.TOPIC, n))
                .collect(Collectors.toList());
        Map<ConfigResource, Config> configs = await(admin.describeConfigs(resources).all());

        var problems = new ArrayList<String>();
        for (TopicSpec spec : specs) {
            Config actual = configs.get(new ConfigResource(ConfigResource.Type.TOPIC, spec.name()));
            String policy = value(actual, TopicConfig.CLEANUP_POLICY_CONFIG);
            if (!spec.cleanupPolicy().equals(policy)) {
                problems.add("topic '%s' has cleanup.policy=%s but must have cleanup.policy=%s%s".formatted(
                        spec.name(), policy, spec.cleanupPolicy(),
                        spec.cleanupPolicy().equals(TopicConfig.CLEANUP_POLICY_COMPACT)
                                ? " (with 'delete' Kafka would drop records by time)" : ""));
            }
            String retention = value(actual, TopicConfig.RETENTION_MS_CONFIG);
            String wantedRetention = spec.configs().get(TopicConfig.RETENTION_MS_CONFIG);
            if (wantedRetention != null && !wantedRetention.equals(retention)) {
                String message = "topic '%s' has retention.ms=%s, expected %s".formatted(spec.name(), retention, wantedRetention);
                if ("-1".equals(wantedRetention)) {
                    problems.add(message + " (its records must never expire by time)");
                } else {
                    warnings.add(message);
                }
            }
            String timestamps = spec.configs().get(TopicConfig.MESSAGE_TIMESTAMP_TYPE_CONFIG);
            if (timestamps != null && !timestamps.equals(value(actual, TopicConfig.MESSAGE_TIMESTAMP_TYPE_CONFIG))) {
                problems.add("topic '%s' has message.timestamp.type=%s but must have %s (the tool-executor's ledger finds a call's records by the timestamps it writes)"
                        .formatted(spec.name(), value(actual, TopicConfig.MESSAGE_TIMESTAMP_TYPE_CONFIG), timestamps));
            }
            TopicDescription description = descriptions.get(spec.name());
            int partitions = description.partitions().size();
            if (partitions != spec.partitions()) {
                warnings.add("topic '%s' has %d partitions, the layout asks for %d; kept as is (changing it would move sessions)"
                        .formatted(spec.name(), partitions, spec.partitions()));
            }
            int replicas = description.partitions().get(0).replicas().size();
            if (replicas < spec.replicationFactor()) {
                warnings.add("topic '%s' has %d replicas, the layout asks for %d".formatted(spec.name(), replicas, spec.replicationFactor()));
            }
        }
        // a session's commands, events, tool requests and outcomes are handled by the task (or the executor's ledger read) of
        // one partition number: the topics partitioned by sessionId must agree on the count
        var bySession = new LinkedHashMap<String, Integer>();
        for (String topic : List.of(Topics.SESSION_COMMANDS, Topics.SESSION_EVENTS, Topics.TOOL_REQUESTS, Topics.TOOL_OUTCOMES)) {
            TopicDescription description = descriptions.get(layout.name(topic));
            if (description != null) {
                bySession.put(layout.name(topic), description.partitions().size());
            }
        }
        if (bySession.values().stream().distinct().count() > 1) {
            problems.add("topics %s must have the same partition count: all are partitioned by sessionId"
                    .formatted(bySession.entrySet().stream().map(t -> "'%s' (%d partitions)".formatted(t.getKey(), t.getValue()))
                            .collect(Collectors.joining(", "))));
        }
        if (!problems.isEmpty()) {
            throw new TopicMisconfiguredException(problems);
        }
    }

    /**
     * Creates topics that are not Tether's own (tests, tools) and returns once they are usable,
     * like {@link #init} does for Tether's.
     */
    public void create(Collection<NewTopic> topics) {
        await(admin.createTopics(topics).all());
        awaitUsable(topics.stream().map(NewTopic::name).toList());
    }

    /**
     * Describes the topics once every partition has a leader that serves it. Right after a
     * topic is created the controller already names leaders while the broker does not host the
     * partitions yet; a producer starting then gets NOT_LEADER_OR_FOLLOWER and, if its first
     * batch fails while later ones succeed, out-of-order sequence errors. Listing the offsets of
     * every partition asks the leaders themselves.
     */
    private Map<String, TopicDescription> awaitUsable(Collection<String> names) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            try {
                Map<String, TopicDescription> descriptions = await(admin.describeTopics(names).allTopicNames());
                var partitions = new HashMap<TopicPartition, OffsetSpec>();
                descriptions.values().forEach(d -> d.partitions().forEach(
                        p -> partitions.put(new TopicPartition(d.name(), p.partition()), OffsetSpec.latest())));
                await(admin.listOffsets(partitions).all());
                return descriptions;
            } catch (IllegalStateException e) {
                if (!(e.getCause() instanceof RetriableException)) {
                    throw e;
                }
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("topics " + names + " are not served by their leaders after " + timeout);
            }
            sleep(100);
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for Kafka", e);
        }
    }

    private static String value(Config config, String name) {
        ConfigEntry entry = config.get(name);
        return entry == null ? null : entry.value();
    }

    private <T> T await(KafkaFuture<T> future) {
        try {
            return future.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof TopicExistsException exists) {
                throw exists;
            }
            throw new IllegalStateException("Kafka admin request failed: " + e.getCause().getMessage(), e.getCause());
        } catch (TimeoutException e) {
            throw new IllegalStateException("Kafka did not answer within " + timeout, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for Kafka", e);
        }
    }
}
