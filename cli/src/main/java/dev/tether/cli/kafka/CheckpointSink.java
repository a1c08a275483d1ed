package dev.tether.cli.kafka;

import dev.tether.avro.Checkpoint;
import dev.tether.cli.CliException;
import dev.tether.kit.kafka.AvroSerdes;
import dev.tether.kit.kafka.TopicSpec;
import dev.tether.kit.kafka.Topics;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Pattern;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.Callback;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * Writes a replay's rebuilt checkpoints to a compacted topic the operator names ({@code tether replay
 * --into}), keyed by sessionId, Avro through the registry exactly like {@code session-checkpoints}: one
 * checkpoint per rebuilt session, and a tombstone per erased session (so an earlier replay's checkpoint
 * of it goes too). A missing topic is created with {@code session-checkpoints}' configuration
 * (compacted, kept forever); an existing one must be compacted. Tether's own topics are refused: the
 * projector is the only writer of {@code session-checkpoints}, and a second one would race it. So are the
 * names of Tether's topics under any other prefix (another installation's) and Kafka Streams' internal
 * topics ({@code -changelog}, {@code -repartition}: the services' stores).
 */
public final class CheckpointSink {

    /** Kafka's rule for topic names. */
    private static final Pattern LEGAL = Pattern.compile("[a-zA-Z0-9._-]{1,249}");

    /**
     * What was written.
     *
     * @param topic       the topic
     * @param created     true if the replay created it
     * @param checkpoints checkpoints written, one per rebuilt session
     * @param tombstones  tombstones written, one per erased session
     * @param skipped     sessions not written because their log or fold had a problem
     * @param elapsed     creating the topic, writing and flushing
     */
    public record Written(String topic, boolean created, long checkpoints, long tombstones, int skipped, Duration elapsed) {}

    private final KafkaSettings settings;
    private final String topic;

    /** @throws CliException when {@code topic} is not a legal topic name or is one of Tether's own topics */
    public CheckpointSink(KafkaSettings settings, String topic) {
        if (!LEGAL.matcher(topic).matches() || topic.equals(".") || topic.equals("..")) {
            throw new CliException("--into: '" + topic + "' is not a legal Kafka topic name (letters, digits, '.', '_', '-', up to 249)");
        }
        List<String> own = Topics.all(settings.layout()).stream().map(TopicSpec::name).toList();
        if (own.contains(topic)) {
            throw new CliException("--into: " + topic + " is one of Tether's own topics; the projector alone writes checkpoints to "
                    + settings.layout().name(Topics.SESSION_CHECKPOINTS) + ": name another topic");
        }
        // a Tether topic under another prefix is another installation's (the default one's, with no prefix), where its
        // projector or sequencer would meet records of sessions it never had; a Kafka Streams changelog is a service's store
        for (TopicSpec spec : Topics.all(settings.layout().withPrefix(""))) {
            if (topic.endsWith(spec.name())) {
                String prefix = topic.substring(0, topic.length() - spec.name().length());
                throw new CliException("--into: " + topic + " is Tether's " + spec.name() + " topic of the installation "
                        + (prefix.isEmpty() ? "with no prefix" : "under the prefix '" + prefix + "'") + ", not this one's (--topics-prefix '"
                        + settings.layout().prefix() + "'): name another topic");
            }
        }
        if (topic.endsWith("-changelog") || topic.endsWith("-repartition")) {
            throw new CliException("--into: " + topic + " is named like a Kafka Streams internal topic (a service's store or its "
                    + "repartitioning), which the services restore their state from: name another topic");
        }
        this.settings = settings;
        this.topic = topic;
    }

    public String topic() {
        return topic;
    }

    /** Creates the topic if missing (or checks that it is compacted), then writes and flushes. */
    public Written write(Map<String, Checkpoint> checkpoints, Collection<String> erased, int skipped) {
        long started = System.nanoTime();
        boolean created = ensureTopic();
        long tombstones = 0;
        var failure = new AtomicReference<Exception>();
        Callback onFailure = (metadata, e) -> {
            if (e != null) {
                failure.compareAndSet(null, e);
            }
        };
        try (Serde<Checkpoint> values = AvroSerdes.valueSerde(settings.registry());
             var producer = new KafkaProducer<>(settings.producer("tether-cli-replay-into"), new StringSerializer(), values.serializer())) {
            for (var entry : checkpoints.entrySet()) {
                producer.send(new ProducerRecord<>(topic, entry.getKey(), entry.getValue()), onFailure);
            }
            for (String sessionId : erased) {
                producer.send(new ProducerRecord<>(topic, sessionId, null), onFailure);
                tombstones++;
            }
            producer.flush(); // every callback has run when flush returns
        } catch (org.apache.kafka.common.KafkaException e) {
            failure.compareAndSet(null, e);
        }
        if (failure.get() != null) {
            throw new CliException("writing the rebuilt checkpoints to " + topic + " failed: " + failure.get().getMessage(), failure.get());
        }
        return new Written(topic, created, checkpoints.size(), tombstones, skipped, Duration.ofNanos(System.nanoTime() - started));
    }

    private boolean ensureTopic() {
        TopicSpec like = Topics.spec(settings.layout(), Topics.SESSION_CHECKPOINTS);
        long timeout = settings.timeout().toMillis();
        try (Admin admin = Admin.create(settings.admin())) {
            try {
                admin.createTopics(List.of(new NewTopic(topic, like.partitions(), like.replicationFactor()).configs(like.configs())))
                        .all().get(timeout, TimeUnit.MILLISECONDS);
                return true;
            } catch (ExecutionException e) {
                if (!(e.getCause() instanceof TopicExistsException)) {
                    throw e;
                }
            }
            var resource = new ConfigResource(ConfigResource.Type.TOPIC, topic);
            Config config = admin.describeConfigs(List.of(resource)).all().get(timeout, TimeUnit.MILLISECONDS).get(resource);
            String policy = config.get(TopicConfig.CLEANUP_POLICY_CONFIG).value();
            if (!policy.contains(TopicConfig.CLEANUP_POLICY_COMPACT)) {
                throw new CliException("--into: " + topic + " exists with cleanup.policy=" + policy + "; the rebuilt checkpoints need a "
                        + "compacted topic (one checkpoint per session): name another topic");
            }
            return false;
        } catch (ExecutionException e) {
            throw new CliException("Kafka at " + settings.bootstrapServers() + " refused to create or describe " + topic + ": "
                    + e.getCause().getMessage(), e);
        } catch (TimeoutException e) {
            throw new CliException("Kafka did not answer within " + dev.tether.cli.Durations.format(settings.timeout())
                    + " (is it running? see --bootstrap)", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CliException("interrupted", e);
        }
    }
}
