package dev.tether.session.kafka;

import dev.tether.avro.Checkpoint;
import dev.tether.avro.CommandReply;
import dev.tether.avro.HarnessVersion;
import dev.tether.avro.SessionCommand;
import dev.tether.avro.SessionEvent;
import dev.tether.kit.kafka.AvroSerdes;
import dev.tether.kit.kafka.MemoSerde;
import dev.tether.kit.kafka.SessionEventKey;
import dev.tether.kit.kafka.SessionEventKeySerde;
import dev.tether.kit.kafka.SessionPartitioner;
import dev.tether.kit.kafka.StoreFormat;
import dev.tether.kit.kafka.StoreSignals;
import dev.tether.kit.kafka.TopicLayout;
import dev.tether.kit.kafka.TopicMaterializer;
import dev.tether.kit.kafka.Topics;
import dev.tether.kit.tracing.KafkaTracing;
import java.time.Duration;
import java.util.Map;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.state.Stores;

/**
 * The session-service's Kafka Streams application:
 * <ul>
 * <li>the sequencer: {@code session-commands} → {@link SequencerProcessor} → {@code session-events},
 *     {@code session-replies} (verdicts), {@code session-commands} (a subagent's result for its
 *     parent) and {@code session-checkpoints} (erasure tombstones);</li>
 * <li>{@value StoreNames#EVENTS}: {@code session-events} as a queryable store, restored from the
 *     topic itself, that serves reads and live subscriptions;</li>
 * <li>{@value StoreNames#HARNESS_VERSIONS}: {@code harness-versions} on every instance, for
 *     assigning new sessions to versions.</li>
 * </ul>
 * Both materialized stores signal {@link StoreSignals} after each write (by session id, by version), which wakes the
 * requests waiting to read their own writes.
 * Run exactly-once ({@code processing.guarantee=exactly_once_v2}).
 */
public final class SequencerTopology {

    /** The Avro serdes of the topics the topology touches. */
    public record TopicSerdes(Serde<SessionCommand> commands, Serde<SessionEvent> events, Serde<CommandReply> replies,
                          Serde<Checkpoint> checkpoints, Serde<HarnessVersion> versions) {}

    /** How long the global store's thread waits for a registry that does not answer, per record, before it fails. */
    static final Duration GLOBAL_REGISTRY_WAIT = Duration.ofMinutes(5);

    private SequencerTopology() {}

    /** The topology with every store writing the current version of its format. */
    public static Topology build(TopicLayout layout, TopicSerdes serdes, KafkaTracing tracing, StoreSignals signals) {
        return build(layout, serdes, Map.of(), tracing, signals);
    }

    /**
     * The topology with the stores {@code writeVersions} names writing that version of their format
     * ({@code tether.stores.write-version}, during a rolling upgrade), the others their current one.
     *
     * @throws IllegalArgumentException for a store the sequencer does not have, or a version its format cannot write
     */
    public static Topology build(TopicLayout layout, TopicSerdes serdes, Map<String, Integer> writeVersions, KafkaTracing tracing,
                                 StoreSignals signals) {
        StoreFormat.requireKnown(writeVersions, SequencerStoreFormats.all());
        var keys = new SessionEventKeySerde();
        var strings = Serdes.String();
        var topology = new Topology();

        topology.addSource("commands-source", strings.deserializer(), serdes.commands().deserializer(),
                layout.name(Topics.SESSION_COMMANDS));
        topology.addProcessor("sequencer", () -> new SequencerProcessor(tracing), "commands-source");
        topology.addStateStore(Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(StoreNames.HEADS), strings,
                SequencerStoreFormats.HEADS.writing(writeVersions)), "sequencer");
        topology.addStateStore(Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(StoreNames.EVENT_IDS), strings,
                Serdes.Long()), "sequencer");
        topology.addStateStore(Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(StoreNames.CALL_IDS), strings,
                Serdes.Long()), "sequencer");
        topology.addStateStore(Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(StoreNames.SESSIONS_BY_TENANT), strings,
                SequencerStoreFormats.SUMMARIES.writing(writeVersions)), "sequencer");
        topology.addStateStore(Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(StoreNames.OPEN_BY_VERSION), strings,
                Serdes.Long()), "sequencer");

        topology.addSink(SequencerProcessor.EVENTS_SINK, layout.name(Topics.SESSION_EVENTS), keys, serdes.events().serializer(),
                new SessionPartitioner(), "sequencer");
        topology.addSink(SequencerProcessor.REPLIES_SINK, layout.name(Topics.SESSION_REPLIES), strings.serializer(),
                serdes.replies().serializer(), "sequencer");
        topology.addSink(SequencerProcessor.COMMANDS_SINK, layout.name(Topics.SESSION_COMMANDS), strings.serializer(),
                serdes.commands().serializer(), "sequencer");
        topology.addSink(SequencerProcessor.CHECKPOINTS_SINK, layout.name(Topics.SESSION_CHECKPOINTS), strings.serializer(),
                serdes.checkpoints().serializer(), "sequencer");

        var events = MemoSerde.of(serdes.events()); // an event is stored as the bytes it arrived as, not encoded again
        topology.addReadOnlyStateStore(
                Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(StoreNames.EVENTS), keys, events).withLoggingDisabled(),
                "events-source", keys, events.sourceDeserializer(), layout.name(Topics.SESSION_EVENTS), "events-materializer",
                TopicMaterializer.<SessionEventKey, SessionEvent>into(StoreNames.EVENTS, signals, SessionEventKey::sessionId));

        topology.addGlobalStore(
                Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(StoreNames.HARNESS_VERSIONS), strings, serdes.versions())
                        .withLoggingDisabled(),
                // the global thread cannot be replaced when it fails: it waits for a registry that does not answer
                "versions-source", strings.deserializer(),
                AvroSerdes.waitingForRegistry(serdes.versions().deserializer(), GLOBAL_REGISTRY_WAIT), layout.name(Topics.HARNESS_VERSIONS),
                "versions-materializer", TopicMaterializer.<String, HarnessVersion>into(StoreNames.HARNESS_VERSIONS, signals,
                        version -> version));
        return topology;
    }
}
