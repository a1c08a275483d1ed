package dev.tether.projector.kafka;

import dev.tether.avro.BlobReference;
import dev.tether.avro.Checkpoint;
import dev.tether.avro.SessionEvent;
import dev.tether.avro.ToolOutcome;
import dev.tether.avro.ToolRequest;
import dev.tether.kit.kafka.BlobReferences;
import dev.tether.kit.kafka.MemoSerde;
import dev.tether.kit.kafka.SessionEventKeySerde;
import dev.tether.kit.kafka.SessionPartitioner;
import dev.tether.kit.kafka.StoreFormat;
import dev.tether.kit.kafka.StoreSignals;
import dev.tether.kit.kafka.TenantIndex;
import dev.tether.kit.kafka.TopicLayout;
import dev.tether.kit.kafka.TopicMaterializer;
import dev.tether.kit.kafka.Topics;
import dev.tether.kit.kafka.WriteBackStore;
import dev.tether.kit.tracing.KafkaTracing;
import java.util.Map;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.state.Stores;

/**
 * The projector's Kafka Streams application (run exactly-once). A sub-topology over
 * {@code session-events} and {@code tool-outcomes}, both partitioned by session:
 * <ul>
 * <li>{@value ProjectorStores#MESSAGES}: every event by (sessionId, seq), restored from
 *     {@code session-events} itself, so storing a message costs no extra write;</li>
 * <li>{@link ProjectorProcessor}: the checkpoint fold ({@value ProjectorStores#CHECKPOINTS}, a {@link WriteBackStore}: its
 *     changelog and {@code session-checkpoints} get a session's latest checkpoint once per commit, encoded then), the
 *     call records ({@value ProjectorStores#CALLS}, written back as well: a call's request, authorization and result
 *     folded between two commits reach its changelog as one record), and the outputs {@code session-checkpoints} and
 *     {@code tool-requests}, and the blobs each session refers to ({@link SessionBlobs}), announced on
 *     {@code blob-references}.</li>
 * </ul>
 * A second sub-topology over {@code blob-references}, partitioned by blob, deletes the blobs no session refers to any
 * more ({@link BlobSweeper}).
 * Each event costs a constant amount of work and of store writes, whatever the session's length.
 */
public final class ProjectorTopology {

    /** The Avro serdes of the topics and stores the topology touches. */
    public record TopicSerdes(Serde<SessionEvent> events, Serde<Checkpoint> checkpoints, Serde<ToolRequest> requests,
                              Serde<ToolOutcome> outcomes, Serde<BlobReference> references) {}

    private ProjectorTopology() {}

    public static Topology build(TopicLayout layout, TopicSerdes serdes, KafkaTracing tracing, StoreSignals signals) {
        return build(layout, layout, serdes, tracing, signals);
    }

    /** As {@link #build(TopicLayout, TopicSerdes, KafkaTracing, StoreSignals)}, deleting unreferenced blobs as {@code sweeping} says. */
    public static Topology build(TopicLayout layout, TopicSerdes serdes, KafkaTracing tracing, StoreSignals signals,
                                 BlobSweeper.Sweeping sweeping) {
        return build(layout, layout, serdes, Map.of(), tracing, signals, sweeping);
    }

    /**
     * The topology reading the log of {@code input} and writing checkpoints and tool requests to
     * {@code output}'s topics: a rebuild of the projections from the log that leaves the live ones alone. The fold
     * signals {@code signals} after each event (see {@link ProjectorProcessor}).
     */
    public static Topology build(TopicLayout input, TopicLayout output, TopicSerdes serdes, KafkaTracing tracing,
                                 StoreSignals signals) {
        return build(input, output, serdes, Map.of(), tracing, signals, null);
    }

    /**
     * As {@link #build(TopicLayout, TopicLayout, TopicSerdes, KafkaTracing, StoreSignals)}, with the stores
     * {@code writeVersions} names writing that version of their format ({@code tether.stores.write-version}, during a
     * rolling upgrade), the others their current one; and {@code sweeping} says where and when the blobs no session refers
     * to any more are deleted (null: none is).
     *
     * @throws IllegalArgumentException for a store the projector does not have, or a version its format cannot write
     */
    public static Topology build(TopicLayout input, TopicLayout output, TopicSerdes serdes, Map<String, Integer> writeVersions,
                                 KafkaTracing tracing, StoreSignals signals, BlobSweeper.Sweeping sweeping) {
        StoreFormat.requireKnown(writeVersions, ProjectorStoreFormats.all());
        var keys = new SessionEventKeySerde();
        var strings = Serdes.String();
        var topology = new Topology();

        // the events source feeds the message store first, then the projector: the event is stored when it is folded,
        // as the bytes it arrived as (MemoSerde: not encoded again)
        var events = MemoSerde.of(serdes.events());
        topology.addReadOnlyStateStore(
                Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(ProjectorStores.MESSAGES), keys, events)
                        .withLoggingDisabled(),
                "events-source", keys, events.sourceDeserializer(), input.name(Topics.SESSION_EVENTS), "messages-materializer",
                TopicMaterializer.into(ProjectorStores.MESSAGES));
        topology.addSource("outcomes-source", strings.deserializer(), serdes.outcomes().deserializer(), input.name(Topics.TOOL_OUTCOMES));
        topology.addProcessor("projector", () -> new ProjectorProcessor(tracing, signals), "events-source", "outcomes-source");
        topology.connectProcessorAndStateStores("projector", ProjectorStores.MESSAGES);
        // written back: a session's checkpoint is encoded and reaches the changelog and session-checkpoints once per commit,
        // not once per event
        topology.addStateStore(WriteBackStore.builder(Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(ProjectorStores.CHECKPOINTS),
                strings, serdes.checkpoints()), strings.serializer()), "projector");
        // written back too: a call's request, authorization and result folded within one commit reach the changelog once
        topology.addStateStore(WriteBackStore.builder(Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(ProjectorStores.CALLS),
                strings, ProjectorStoreFormats.CALLS.writing(writeVersions)), strings.serializer()), "projector");

        // keys only, written when a session is first projected and when it is erased: a tenant's list reads its own sessions
        topology.addStateStore(TenantIndex.builder(ProjectorStores.BY_TENANT), "projector");

        topology.addSink(ProjectorProcessor.CHECKPOINTS_SINK, output.name(Topics.SESSION_CHECKPOINTS), strings.serializer(),
                serdes.checkpoints().serializer(), new SessionPartitioner(), "projector");
        topology.addSink(ProjectorProcessor.REQUESTS_SINK, output.name(Topics.TOOL_REQUESTS), strings.serializer(),
                serdes.requests().serializer(), new SessionPartitioner(), "projector");

        // which blobs each session refers to: announced on blob-references, which is partitioned by blob
        topology.addStateStore(SessionBlobs.builder(), "projector");
        topology.addSink(SessionBlobs.SINK, output.name(Topics.BLOB_REFERENCES), strings.serializer(), serdes.references().serializer(),
                new BlobReferences.Partitioner(), "projector");
        // the second sub-topology: every reference to a blob, restored from blob-references itself (only the keys are read),
        // and the sweeper of the blobs left without one
        var bytes = Serdes.ByteArray();
        topology.addReadOnlyStateStore(Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(ProjectorStores.BLOB_REFERENCES), strings, bytes)
                        .withLoggingDisabled(),
                "references-source", strings.deserializer(), bytes.deserializer(), output.name(Topics.BLOB_REFERENCES),
                "references-materializer", TopicMaterializer.into(ProjectorStores.BLOB_REFERENCES));
        topology.addProcessor("blob-sweeper", () -> new BlobSweeper(sweeping), "references-source");
        topology.connectProcessorAndStateStores("blob-sweeper", ProjectorStores.BLOB_REFERENCES);
        topology.addStateStore(BlobSweeper.unreferencedBuilder(), "blob-sweeper");
        return topology;
    }
}
