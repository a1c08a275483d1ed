package dev.tether.approval.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tether.approval.domain.ApprovalItem;
import dev.tether.approval.domain.ApprovalMachine;
import dev.tether.approval.domain.CallInspector;
import dev.tether.approval.domain.CallTarget;
import dev.tether.approval.domain.Inspection;
import dev.tether.avro.SessionCommand;
import dev.tether.avro.SessionEvent;
import dev.tether.core.event.Actor;
import dev.tether.core.event.ActorKind;
import dev.tether.core.event.ApprovalRequested;
import dev.tether.core.event.AssistantMessage;
import dev.tether.core.event.CallRunner;
import dev.tether.core.event.Event;
import dev.tether.core.event.EventPayload;
import dev.tether.core.event.SessionStarted;
import dev.tether.core.event.TokenUsage;
import dev.tether.core.event.ToolCall;
import dev.tether.core.event.ToolMode;
import dev.tether.core.policy.GatingPolicy;
import dev.tether.kit.kafka.EventAvro;
import dev.tether.kit.kafka.SessionEventKey;
import dev.tether.kit.kafka.SessionEventKeySerde;
import dev.tether.kit.kafka.SessionPartitioner;
import dev.tether.kit.kafka.StoreSignals;
import dev.tether.kit.kafka.TopicLayout;
import dev.tether.kit.kafka.Topics;
import dev.tether.kit.service.rest.ApiException;
import dev.tether.kit.tracing.KafkaTracing;
import dev.tether.testing.PlainAvroSerde;
import io.opentelemetry.api.OpenTelemetry;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Properties;
import java.util.Set;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.KeyQueryMetadata;
import org.apache.kafka.streams.StoreQueryParameters;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.errors.InvalidStateStoreException;
import org.apache.kafka.streams.processor.StreamPartitioner;
import org.apache.kafka.streams.state.HostInfo;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link ApprovalReads} over the stores the real topology fills (in {@link TopologyTestDriver}), queried through a
 * {@link KafkaStreams} that answers with those stores for the partitions it is told it holds.
 */
class ApprovalReadsTest {

    private static final TopicLayout LAYOUT = TopicLayout.local();
    private static final Instant T0 = Instant.parse("2026-11-29T10:00:00Z");
    private static final int PARTITIONS = 6;

    @TempDir
    Path stateDir;

    private TopologyTestDriver driver;
    private TestInputTopic<SessionEventKey, SessionEvent> events;
    private HeldStreams streams;
    private ApprovalReads reads;

    @BeforeEach
    void setUp() {
        CallInspector inspector = new CallInspector() {
            @Override
            public Set<String> tools(ToolMode mode) {
                return Set.of("read_file", "edit_file");
            }

            @Override
            public Inspection inspect(String tenantId, String sessionId, ToolMode mode, ToolCall call) {
                return new Inspection("diff of " + call.callId(), null, CallTarget.NONE, null);
            }
        };
        var settings = new ApprovalTopology.Settings(new ApprovalMachine.Rules(GatingPolicy.defaults(), inspector), Duration.ofHours(1),
                Duration.ofSeconds(5));
        var serdes = new ApprovalTopology.TopicSerdes(new PlainAvroSerde<>(SessionEvent.getClassSchema()),
                new PlainAvroSerde<>(SessionCommand.getClassSchema()));
        driver = new TopologyTestDriver(ApprovalTopology.build(LAYOUT, serdes, settings, new KafkaTracing(OpenTelemetry.noop(), "test"),
                new StoreSignals()), properties("approval-reads-driver"), T0);
        events = driver.createInputTopic(LAYOUT.name(Topics.SESSION_EVENTS), new SessionEventKeySerde(), serdes.events().serializer());
        streams = new HeldStreams(driver, properties("approval-reads-streams"));
        reads = new ApprovalReads(streams);
    }

    @AfterEach
    void tearDown() {
        streams.close(Duration.ofSeconds(5));
        driver.close();
    }

    private Properties properties(String applicationId) {
        var props = new Properties();
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, applicationId);
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "127.0.0.1:1");
        props.put(StreamsConfig.STATE_DIR_CONFIG, stateDir.toString());
        return props;
    }

    private void pipe(String sessionId, String tenantId, long seq, Instant at, EventPayload payload) {
        var event = new Event(sessionId + "-" + seq, sessionId, tenantId, seq, at, new Actor(ActorKind.MODEL, tenantId + "-agent"), "v1",
                payload);
        events.pipeInput(new SessionEventKey(sessionId, seq), EventAvro.toAvro(event));
    }

    /** A session of {@code tenantId} whose edit_file call {@code callId} waits for an approval requested at {@code at}. */
    private void waiting(String sessionId, String tenantId, long firstSeq, String callId, Instant at) {
        if (firstSeq == 1) {
            pipe(sessionId, tenantId, 1, at, new SessionStarted("o", "s", "model-x", "v1", ToolMode.WRITE, List.of(), null, null));
            firstSeq = 2;
        }
        pipe(sessionId, tenantId, firstSeq, at, new AssistantMessage("x", null, List.of(new ToolCall(callId, "edit_file", "{}")),
                new TokenUsage(1, 1)));
        pipe(sessionId, tenantId, firstSeq + 1, at, new ApprovalRequested(callId, "edit_file", "diff of " + callId, null));
    }

    @Test
    void pendingItems_areListedOldestFirst_acrossSessions_notBySessionOrSeq() {
        waiting("s-b", "acme", 1, "c1", T0.plusSeconds(10));
        waiting("s-a", "acme", 1, "c1", T0.plusSeconds(20));
        waiting("s-b", "acme", 4, "c2", T0.plusSeconds(30));
        waiting("s-c", "globex", 1, "c1", T0.plusSeconds(5));
        streams.hold("s-a", "s-b", "s-c");

        List<ApprovalItem> pending = reads.pending("acme");

        assertThat(pending).extracting(i -> i.sessionId() + "/" + i.callId()).containsExactly("s-b/c1", "s-a/c1", "s-b/c2");
        assertThat(pending).extracting(ApprovalItem::requestedAt).isSorted();
    }

    @Test
    void aPage_isTheFirstItemsInItsOrder_afterThePlaceGiven_ofTheCallersTenantOnly() {
        waiting("s-b", "acme", 1, "c1", T0.plusSeconds(10));
        waiting("s-a", "acme", 1, "c1", T0.plusSeconds(20));
        waiting("s-b", "acme", 4, "c2", T0.plusSeconds(30));
        waiting("s-c", "globex", 1, "c1", T0.plusSeconds(40));
        streams.hold("s-a", "s-b", "s-c");
        var newest = ApprovalItem.Place.OLDEST_FIRST.reversed();

        for (boolean pendingOnly : new boolean[] {true, false}) { // from the pending index, and from every session's state
            List<ApprovalItem> first = items(reads.page("acme", pendingOnly, i -> true, newest, null, 2));
            assertThat(first).as("pendingOnly %s", pendingOnly).extracting(i -> i.sessionId() + "/" + i.callId())
                    .containsExactly("s-b/c2", "s-a/c1");
            assertThat(reads.page("acme", pendingOnly, i -> true, newest, null, 2)).as("listed with who runs each call")
                    .extracting(ApprovalReads.Listed::runBy).containsOnly(CallRunner.EXECUTOR);
            ApprovalItem.Place end = ApprovalItem.Place.parse(ApprovalItem.Place.of(first.get(1)).text());
            assertThat(items(reads.page("acme", pendingOnly, i -> true, newest, end, 2))).extracting(i -> i.sessionId() + "/" + i.callId())
                    .containsExactly("s-b/c1");
            assertThat(items(reads.page("acme", pendingOnly, i -> true, ApprovalItem.Place.OLDEST_FIRST, end, 5)))
                    .extracting(i -> i.sessionId() + "/" + i.callId()).containsExactly("s-b/c2");
            assertThat(items(reads.page("acme", pendingOnly, i -> !i.sessionId().equals("s-b"), newest, null, 5)))
                    .extracting(ApprovalItem::sessionId).containsExactly("s-a");
        }
        for (String bad : new String[] {"", "s-a~3", "2026-12-01T10:00:00Z~s-a", "2026-12-01T10:00:00Z~~3", "2026-12-01T10:00:00Z~s-a~0",
                "2026-12-01T10:00:00Z~s-a~x", "yesterday~s-a~3"}) {
            assertThatThrownBy(() -> ApprovalItem.Place.parse(bad)).as(bad).isInstanceOf(IllegalArgumentException.class);
        }
    }

    @Test
    void aSessionWhosePartitionThisInstanceDoesNotHold_is503WithRetryAfter_notNotFound() {
        waiting("s-a", "acme", 1, "c1", T0);
        streams.hold(); // right after a restart: the killed member's partitions have not moved here yet

        assertThatThrownBy(() -> reads.session("acme", "s-a")).isInstanceOfSatisfying(ApiException.class, e -> {
            assertThat(e.status()).isEqualTo(503);
            assertThat(e.headers()).containsKey("Retry-After");
            assertThat(e.body().get("message").toString()).contains("does not hold the session's partition");
        });
    }

    @Test
    void whileTheApplicationIsNotRunning_aRead_is503WithRetryAfter() {
        waiting("s-a", "acme", 1, "c1", T0);
        streams.hold("s-a");
        streams.state = KafkaStreams.State.REBALANCING;

        assertThatThrownBy(() -> reads.session("acme", "s-a")).isInstanceOfSatisfying(ApiException.class, e -> {
            assertThat(e.status()).isEqualTo(503);
            assertThat(e.headers()).containsEntry("Retry-After", "1");
        });
    }

    @Test
    void aSessionHeldHere_isRead_andOnlyAMissingOrForeignOneIsNotFound() {
        waiting("s-a", "acme", 1, "c1", T0);
        streams.hold("s-a", "s-missing");

        assertThat(reads.session("acme", "s-a")).hasValueSatisfying(s -> assertThat(s.pendingItems()).hasSize(1));
        assertThat(reads.session("globex", "s-a")).as("another tenant's reads as missing").isEmpty();
        assertThat(reads.session("acme", "s-missing")).isEmpty();
    }

    /**
     * Kafka Streams as one instance sees it, without a broker: RUNNING (unless told otherwise), holding as active tasks
     * only the partitions of the sessions it is told, and answering store queries with the driver's stores. Never
     * started; its clients never connect.
     */
    private static final class HeldStreams extends KafkaStreams {

        private final TopologyTestDriver driver;
        private final Set<Integer> held = new HashSet<>();
        volatile State state = State.RUNNING;

        HeldStreams(TopologyTestDriver driver, Properties props) {
            super(idle(), props);
            this.driver = driver;
        }

        private static org.apache.kafka.streams.Topology idle() {
            var builder = new StreamsBuilder();
            builder.stream("idle");
            return builder.build();
        }

        void hold(String... sessionIds) {
            held.clear();
            for (String id : sessionIds) {
                held.add(SessionPartitioner.partition(id, PARTITIONS));
            }
        }

        @Override
        public State state() {
            return state;
        }

        @Override
        public <K> KeyQueryMetadata queryMetadataForKey(String storeName, K key, StreamPartitioner<? super K, ?> partitioner) {
            int partition = partitioner.partitions(LAYOUT.name(Topics.SESSION_EVENTS), key, null, PARTITIONS).orElseThrow().iterator()
                    .next();
            return new KeyQueryMetadata(new HostInfo("127.0.0.1", 8082), Set.of(), partition);
        }

        @Override
        @SuppressWarnings("unchecked")
        public <T> T store(StoreQueryParameters<T> parameters) {
            Integer partition = parameters.partition();
            if (partition != null && !held.contains(partition)) {
                throw new InvalidStateStoreException("partition " + partition + " is not an active task here");
            }
            return (T) driver.getKeyValueStore(parameters.storeName());
        }
    }

    private static List<ApprovalItem> items(List<ApprovalReads.Listed> page) {
        return page.stream().map(ApprovalReads.Listed::item).toList();
    }
}
