package dev.tether.approval.kafka;

import dev.tether.approval.domain.ApprovalMachine;
import dev.tether.avro.SessionCommand;
import dev.tether.avro.SessionEvent;
import dev.tether.kit.kafka.SessionEventKeySerde;
import dev.tether.kit.kafka.SessionPartitioner;
import dev.tether.kit.kafka.StoreFormat;
import dev.tether.kit.kafka.StoreSignals;
import dev.tether.kit.kafka.TenantIndex;
import dev.tether.kit.kafka.TopicLayout;
import dev.tether.kit.kafka.Topics;
import dev.tether.kit.tracing.KafkaTracing;
import java.time.Duration;
import java.util.Map;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.state.Stores;

/**
 * The approval-service's Kafka Streams application (run exactly-once): {@code session-events} → {@link ApprovalProcessor}
 * with its stores ({@value ApprovalStores#SESSIONS}, {@value ApprovalStores#PENDING}, {@value ApprovalStores#BY_TENANT}) →
 * {@code session-commands},
 * partitioned by session like every other writer of commands.
 */
public final class ApprovalTopology {

    /** The Avro serdes of the topics the topology reads and writes. */
    public record TopicSerdes(Serde<SessionEvent> events, Serde<SessionCommand> commands) {}

    /**
     * What the processor needs besides its topics.
     *
     * @param writeVersions store name → the version of its format to write ({@code tether.stores.write-version}, during
     *                      a rolling upgrade); a store it does not name writes its current version
     */
    public record Settings(ApprovalMachine.Rules rules, Duration timeout, Duration sweepInterval, Map<String, Integer> writeVersions) {

        /**
         * @throws IllegalArgumentException for a timeout or sweep interval that is not positive, naming its setting: no
         *                                  timeout would deny every approval at the next sweep, and no interval stops the
         *                                  stream thread at every start
         */
        public Settings {
            writeVersions = Map.copyOf(writeVersions);
            requirePositive(timeout, "tether.approvals.timeout");
            requirePositive(sweepInterval, "tether.approvals.sweep-interval");
        }

        private static void requirePositive(Duration value, String setting) {
            if (value == null || value.isZero() || value.isNegative()) {
                throw new IllegalArgumentException(setting + ": must be a positive duration, e.g. PT24H, not " + value);
            }
        }

        /** The settings with every store writing the current version of its format. */
        public Settings(ApprovalMachine.Rules rules, Duration timeout, Duration sweepInterval) {
            this(rules, timeout, sweepInterval, Map.of());
        }
    }

    private ApprovalTopology() {}

    /** @throws IllegalArgumentException for a write version of a store the service does not have, or one it cannot write */
    public static Topology build(TopicLayout layout, TopicSerdes serdes, Settings settings, KafkaTracing tracing, StoreSignals signals) {
        StoreFormat.requireKnown(settings.writeVersions(), ApprovalStoreFormats.all());
        var strings = Serdes.String();
        var topology = new Topology();
        topology.addSource("events-source", new SessionEventKeySerde().deserializer(), serdes.events().deserializer(),
                layout.name(Topics.SESSION_EVENTS));
        topology.addProcessor("approvals", () -> new ApprovalProcessor(settings.rules(), settings.timeout(), settings.sweepInterval(),
                tracing, signals), "events-source");
        topology.addStateStore(Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(ApprovalStores.SESSIONS), strings,
                ApprovalStoreFormats.SESSIONS.writing(settings.writeVersions())), "approvals");
        topology.addStateStore(Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(ApprovalStores.PENDING), strings, strings),
                "approvals");
        topology.addStateStore(TenantIndex.builder(ApprovalStores.BY_TENANT), "approvals");
        topology.addSink(ApprovalProcessor.COMMANDS_SINK, layout.name(Topics.SESSION_COMMANDS), strings.serializer(),
                serdes.commands().serializer(), new SessionPartitioner(), "approvals");
        return topology;
    }
}
