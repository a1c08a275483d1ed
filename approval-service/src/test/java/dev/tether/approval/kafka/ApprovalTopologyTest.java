package dev.tether.approval.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tether.approval.domain.ApprovalItem;
import dev.tether.approval.domain.ApprovalMachine;
import dev.tether.approval.domain.CallInspector;
import dev.tether.approval.domain.CallTarget;
import dev.tether.approval.domain.Inspection;
import dev.tether.approval.domain.SessionApprovals;
import dev.tether.avro.SessionCommand;
import dev.tether.avro.SessionEvent;
import dev.tether.core.event.Actor;
import dev.tether.core.event.ActorKind;
import dev.tether.core.event.ApprovalDenied;
import dev.tether.core.event.ApprovalGranted;
import dev.tether.core.event.ApprovalRequested;
import dev.tether.core.event.ApprovalScope;
import dev.tether.core.event.AssistantMessage;
import dev.tether.core.event.AuthorizationBasis;
import dev.tether.core.event.Event;
import dev.tether.core.event.EventPayload;
import dev.tether.core.event.ProposedEvent;
import dev.tether.core.event.SessionStarted;
import dev.tether.core.event.TokenUsage;
import dev.tether.core.event.ToolCall;
import dev.tether.core.event.ToolCallAuthorized;
import dev.tether.core.event.ToolMode;
import dev.tether.core.event.ToolResult;
import dev.tether.core.event.ToolStatus;
import dev.tether.core.event.UserMessage;
import dev.tether.core.id.StoreKey;
import dev.tether.core.policy.GatingPolicy;
import dev.tether.kit.kafka.EventAvro;
import dev.tether.kit.kafka.SessionEventKey;
import dev.tether.kit.kafka.SessionEventKeySerde;
import dev.tether.kit.kafka.StoreSignals;
import dev.tether.kit.kafka.TenantIndex;
import dev.tether.kit.kafka.TopicLayout;
import dev.tether.kit.kafka.Topics;
import dev.tether.kit.tracing.KafkaTracing;
import dev.tether.schema.ReleasedSchemas;
import dev.tether.testing.PlainAvroSerde;
import io.opentelemetry.api.OpenTelemetry;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.state.KeyValueStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The real topology, driven without a broker: events in, commands out, state and index in the stores. */
class ApprovalTopologyTest {

    /** The stores' directory, this test's own: under the fixed default two builds running the test at once collide. */
    @TempDir
    Path stateDir;

    private static final TopicLayout LAYOUT = TopicLayout.local();
    private static final Duration TIMEOUT = Duration.ofMinutes(30);
    private static final Instant T0 = Instant.parse("2026-11-29T10:00:00Z");

    private final StoreSignals signals = new StoreSignals();
    private TopologyTestDriver driver;
    private TestInputTopic<SessionEventKey, SessionEvent> events;
    private TestOutputTopic<String, SessionCommand> commands;

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
        var settings = new ApprovalTopology.Settings(new ApprovalMachine.Rules(GatingPolicy.defaults(), inspector), TIMEOUT,
                Duration.ofSeconds(5));
        var serdes = new ApprovalTopology.TopicSerdes(new PlainAvroSerde<>(SessionEvent.getClassSchema()),
                new PlainAvroSerde<>(SessionCommand.getClassSchema()));
        var props = new Properties();
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, "approval-test");
        props.put(StreamsConfig.STATE_DIR_CONFIG, stateDir.toString());
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "unused:9092");
        driver = new TopologyTestDriver(ApprovalTopology.build(LAYOUT, serdes, settings, new KafkaTracing(OpenTelemetry.noop(), "test"),
                signals), props, T0);
        events = driver.createInputTopic(LAYOUT.name(Topics.SESSION_EVENTS), new SessionEventKeySerde(), serdes.events().serializer());
        commands = driver.createOutputTopic(LAYOUT.name(Topics.SESSION_COMMANDS), Serdes.String().deserializer(),
                serdes.commands().deserializer());
    }

    @AfterEach
    void tearDown() {
        driver.close();
    }

    @Test
    void aTimeoutOrSweepIntervalThatIsNotPositive_stopsTheStart_namingTheKey() {
        // a timeout of none (or a negative one, "-PT24H") would deny every approval at the next sweep, nobody asked; a
        // sweep interval of none would stop the stream thread at every start, and every call would wait for ever
        var rules = new ApprovalMachine.Rules(GatingPolicy.defaults(), new CallInspector() {
            @Override
            public Set<String> tools(ToolMode mode) {
                return Set.of();
            }

            @Override
            public Inspection inspect(String tenantId, String sessionId, ToolMode mode, ToolCall call) {
                return new Inspection("", null, CallTarget.NONE, null);
            }
        });
        for (Duration timeout : new Duration[] {Duration.ZERO, Duration.ofHours(-24)}) {
            assertThatThrownBy(() -> new ApprovalTopology.Settings(rules, timeout, Duration.ofSeconds(5)))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("tether.approvals.timeout")
                    .hasMessageContaining(timeout.toString());
        }
        assertThatThrownBy(() -> new ApprovalTopology.Settings(rules, TIMEOUT, Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("tether.approvals.sweep-interval");
    }

    private void pipe(String sessionId, long seq, EventPayload payload) {
        pipe(sessionId, seq, "e-" + sessionId + "-" + seq, payload);
    }

    private void pipe(String sessionId, long seq, String eventId, EventPayload payload) {
        var event = new Event(eventId, sessionId, "acme", seq, T0.plusSeconds(seq), new Actor(ActorKind.MODEL, "acme-agent"), "v1",
                payload);
        events.pipeInput(new SessionEventKey(sessionId, seq), EventAvro.toAvro(event));
    }

    /** Session {@code sessionId} with {@code callId} waiting for an approval, the commands so far read. */
    private void awaitingApproval(String sessionId, String callId) {
        pipe(sessionId, 1, started());
        pipe(sessionId, 2, asking(new ToolCall(callId, "edit_file", "{}")));
        pipe(sessionId, 3, new ApprovalRequested(callId, "edit_file", "diff of " + callId, null));
        commands.readKeyValuesToList();
    }

    private static SessionStarted started() {
        return new SessionStarted("o", "s", "model-x", "v1", ToolMode.WRITE, List.of(), null, null);
    }

    private static AssistantMessage asking(ToolCall... calls) {
        return new AssistantMessage("x", null, List.of(calls), new TokenUsage(1, 1));
    }

    private List<ProposedEvent> proposed(List<KeyValue<String, SessionCommand>> out) {
        var all = new ArrayList<ProposedEvent>();
        out.forEach(kv -> kv.value.getPayload().getAppendEvents().getEvents().forEach(e -> all.add(EventAvro.fromAvro(e))));
        return all;
    }

    @Test
    void everyCallOfAnAssistantMessage_getsOneCommand_writtenAsTheServiceForTheSessionsTenant() {
        pipe("s1", 1, started());
        pipe("s1", 2, asking(new ToolCall("c1", "read_file", "{}"), new ToolCall("c2", "edit_file", "{}")));

        List<KeyValue<String, SessionCommand>> out = commands.readKeyValuesToList();
        assertThat(out).hasSize(2).allSatisfy(kv -> {
            assertThat(kv.key).isEqualTo("s1");
            assertThat(kv.value.getSessionId()).isEqualTo("s1");
            assertThat(kv.value.getTenantId()).isEqualTo("acme");
            assertThat(kv.value.getType()).isEqualTo("append_events");
            assertThat(kv.value.getPrincipal().getId()).isEqualTo("approval-service");
            assertThat(kv.value.getPrincipal().getRoles()).containsExactly("service");
            assertThat(kv.value.getReplyTo()).isNull();
            assertThat(kv.value.getPayload().getAppendEvents().getEvents()).hasSize(1);
            assertThat(kv.value.getCommandId()).isEqualTo(kv.value.getPayload().getAppendEvents().getEvents().get(0).getEventId());
            assertThat(kv.value.getPayload().getAppendEvents().getSessionStartedAt())
                    .as("for the session whose first event was accepted then: never a later one under its id").isEqualTo(T0.plusSeconds(1));
        });
        List<ProposedEvent> proposed = proposed(out);
        assertThat(proposed.get(0).payload()).isEqualTo(new ToolCallAuthorized("c1", AuthorizationBasis.POLICY));
        assertThat(proposed.get(1).payload()).isEqualTo(new ApprovalRequested("c2", "edit_file", "diff of c2", null));
    }

    @Test
    void aDecisionFolded_wakesTheRequestWaitingToShowIt() throws Exception {
        pipe("s1", 1, started());
        pipe("s1", 2, asking(new ToolCall("c1", "edit_file", "{}")));
        pipe("s1", 3, new ApprovalRequested("c1", "edit_file", "diff of c1", null));
        var looked = new AtomicInteger();
        ExecutorService request = Executors.newSingleThreadExecutor();
        try {
            // the check answers only when it is asked again, which only a signal does before the (long) deadline
            Future<Optional<Boolean>> woken = request.submit(() -> signals.await(ApprovalStores.SESSIONS, "s1", Duration.ofSeconds(30),
                    () -> looked.incrementAndGet() > 1 ? Optional.of(true) : Optional.empty()));
            while (signals.waiting() == 0) {
                Thread.onSpinWait();
            }

            pipe("s1", 4, "grant-1", new ApprovalGranted("c1", ApprovalScope.ONCE, null, null, "alice", ""));

            assertThat(woken.get(5, TimeUnit.SECONDS)).contains(true);
        } finally {
            request.shutdownNow();
        }
    }

    @Test
    void aReplayedEvent_changesAndSendsNothing() {
        pipe("s1", 1, started());
        pipe("s1", 2, asking(new ToolCall("c1", "edit_file", "{}")));
        commands.readKeyValuesToList();

        pipe("s1", 2, asking(new ToolCall("c1", "edit_file", "{}")));
        pipe("s1", 1, started());

        assertThat(commands.isEmpty()).isTrue();
    }

    @Test
    void thePendingIndex_followsThePendingItems() {
        KeyValueStore<String, String> pending = driver.getKeyValueStore(ApprovalStores.PENDING);
        pipe("s1", 1, started());
        pipe("s1", 2, asking(new ToolCall("c1", "edit_file", "{}")));
        pipe("s1", 3, new ApprovalRequested("c1", "edit_file", "diff of c1", null));
        assertThat(entries(pending)).containsExactly("s1~3");

        pipe("s1", 4, "grant-1", new ApprovalGranted("c1", ApprovalScope.ONCE, null, null, "alice", ""));

        assertThat(entries(pending)).isEmpty();
        assertThat(proposed(commands.readKeyValuesToList())).last()
                .satisfies(e -> assertThat(e.payload()).isEqualTo(new ToolCallAuthorized("c1", AuthorizationBasis.approval(4))));
    }

    @Test
    void anApprovalNobodyDecides_isDeniedByTheServiceOnce_whenTheWallClockPassesTheTimeout() {
        awaitingApproval("s1", "c1");

        driver.advanceWallClockTime(TIMEOUT.minusMinutes(1));
        assertThat(commands.isEmpty()).isTrue();
        driver.advanceWallClockTime(Duration.ofMinutes(2));
        driver.advanceWallClockTime(Duration.ofMinutes(2));

        List<ProposedEvent> denials = proposed(commands.readKeyValuesToList());
        assertThat(denials).singleElement().satisfies(e -> {
            assertThat(e.eventId()).isEqualTo(ApprovalMachine.expiredId("s1", "c1"));
            assertThat(e.type()).isEqualTo("approval_denied");
        });
    }

    @Test
    void anExpiryWrittenByTheReleaseBeforeTheExpiredField_isStillRecognisedAsAnExpiry_byItsEventId() {
        awaitingApproval("s1", "c1");
        var expiry = new Event(ApprovalMachine.expiredId("s1", "c1"), "s1", "acme", 4, T0.plusSeconds(4),
                new Actor(ActorKind.SYSTEM, ApprovalMachine.SERVICE_ID), "v1",
                ApprovalDenied.expiry("c1", ApprovalMachine.SERVICE_ID, "no approver decided within 30m; nothing was run"));

        SessionEvent writtenByV2 = ReleasedSchemas.asWrittenBy("v2", EventAvro.toAvro(expiry));
        assertThat(writtenByV2.getPayload().getApprovalDenied().getExpired()).as("v2 had no expired field").isNull();
        events.pipeInput(new SessionEventKey("s1", 4), writtenByV2);

        assertThat(proposed(commands.readKeyValuesToList())).singleElement().satisfies(e -> assertThat(e.payload())
                .isInstanceOfSatisfying(ToolResult.class, r -> {
                    assertThat(r.status()).isEqualTo(ToolStatus.ERROR);
                    assertThat(r.content()).as("the expiry's own words, not an approver's denial")
                            .isEqualTo("no approver decided within 30m; nothing was run");
                }));
        SessionApprovals state = driver.<String, SessionApprovals>getKeyValueStore(ApprovalStores.SESSIONS).get("s1");
        assertThat(state.item(3).orElseThrow().status()).isEqualTo(ApprovalItem.Status.EXPIRED);
    }

    @Test
    void anErasedSession_isForgotten() {
        KeyValueStore<String, SessionApprovals> sessions = driver.getKeyValueStore(ApprovalStores.SESSIONS);
        KeyValueStore<String, String> pending = driver.getKeyValueStore(ApprovalStores.PENDING);
        KeyValueStore<String, String> byTenant = driver.getKeyValueStore(ApprovalStores.BY_TENANT);
        pipe("s1", 1, started());
        pipe("s1", 2, asking(new ToolCall("c1", "edit_file", "{}")));
        pipe("s1", 3, new ApprovalRequested("c1", "edit_file", "diff of c1", null));
        assertThat(keys(byTenant)).as("the session in its tenant's index").containsExactly(StoreKey.of("acme", "s1"));

        for (long seq = 1; seq <= 3; seq++) {
            events.pipeInput(new SessionEventKey("s1", seq), null);
        }

        assertThat(sessions.get("s1")).isNull();
        assertThat(entries(pending)).isEmpty();
        assertThat(keys(byTenant)).isEmpty();
    }

    @Test
    void sessionsKeptBeforeTheTenantIndexExisted_areIndexedOnce_whenTheTaskFirstRuns() {
        KeyValueStore<String, String> byTenant = driver.getKeyValueStore(ApprovalStores.BY_TENANT);
        pipe("s1", 1, started());
        byTenant.delete(StoreKey.of("acme", "s1")); // as a release before the index left its partition

        driver.advanceWallClockTime(Duration.ofMillis(10));

        assertThat(keys(byTenant)).containsExactly(StoreKey.of("acme", "s1"));
    }

    /** The keys of a tenant index but its mark. */
    private static List<String> keys(KeyValueStore<String, String> index) {
        var keys = new ArrayList<String>();
        try (var it = index.all()) {
            it.forEachRemaining(kv -> keys.add(kv.key));
        }
        keys.remove(TenantIndex.FILLED);
        return keys;
    }

    @Test
    void eventsOfASessionWhoseStartIsUnknown_authorizeNothing() {
        pipe("s2", 5, new UserMessage("hi", null));
        pipe("s2", 6, asking(new ToolCall("c1", "read_file", "{}")));

        assertThat(commands.isEmpty()).isTrue();
        assertThat(driver.<String, SessionApprovals>getKeyValueStore(ApprovalStores.SESSIONS).get("s2")).isNull();
    }

    private static List<String> entries(KeyValueStore<String, String> store) {
        var values = new ArrayList<String>();
        try (var it = store.all()) {
            it.forEachRemaining(kv -> values.add(kv.value));
        }
        return values;
    }
}
