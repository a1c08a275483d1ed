package dev.tether.session.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tether.avro.Checkpoint;
import dev.tether.avro.CommandReply;
import dev.tether.avro.HarnessVersion;
import dev.tether.avro.SessionCommand;
import dev.tether.avro.SessionEvent;
import dev.tether.avro.VersionState;
import dev.tether.core.auth.Role;
import dev.tether.core.auth.TetherPrincipal;
import dev.tether.core.event.Actor;
import dev.tether.core.event.ActorKind;
import dev.tether.core.event.EventPayload;
import dev.tether.core.event.ProposedEvent;
import dev.tether.core.event.SessionClosed;
import dev.tether.core.event.SessionStarted;
import dev.tether.core.event.ToolMode;
import dev.tether.core.event.UserMessage;
import dev.tether.core.id.StoreKey;
import dev.tether.kit.kafka.SessionEventKey;
import dev.tether.kit.kafka.SessionEventKeySerde;
import dev.tether.kit.kafka.StoreSignals;
import dev.tether.kit.kafka.TopicLayout;
import dev.tether.kit.kafka.Topics;
import dev.tether.kit.tracing.KafkaTracing;
import dev.tether.session.domain.Command;
import dev.tether.session.domain.CommandEnvelope;
import dev.tether.session.domain.SessionHead;
import dev.tether.session.domain.SessionSummary;
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

/** The whole session-service topology, driven without a broker. */
class SequencerTopologyTest {

    /** The stores' directory, this test's own: under the fixed default two builds running the test at once collide. */
    @TempDir
    Path stateDir;

    private static final TopicLayout LAYOUT = TopicLayout.local();
    private static final TetherPrincipal AGENT = new TetherPrincipal("agent-1", "acme", Set.of(Role.AGENT));
    private static final TetherPrincipal OPERATOR = new TetherPrincipal("ops", "acme", Set.of(Role.OPERATOR));

    private final StoreSignals signals = new StoreSignals();
    private final ExecutorService readers = Executors.newCachedThreadPool();
    private TopologyTestDriver driver;
    private TestInputTopic<String, HarnessVersion> versions;
    private TestInputTopic<String, SessionCommand> commands;
    private TestOutputTopic<SessionEventKey, SessionEvent> events;
    private TestOutputTopic<String, CommandReply> replies;
    private TestOutputTopic<String, Checkpoint> checkpoints;
    private int commandCounter;

    @BeforeEach
    void setUp() {
        var serdes = new SequencerTopology.TopicSerdes(new PlainAvroSerde<>(SessionCommand.getClassSchema()),
                new PlainAvroSerde<>(SessionEvent.getClassSchema()), new PlainAvroSerde<>(CommandReply.getClassSchema()),
                new PlainAvroSerde<>(Checkpoint.getClassSchema()), new PlainAvroSerde<>(HarnessVersion.getClassSchema()));
        var props = new Properties();
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, "sequencer-test");
        props.put(StreamsConfig.STATE_DIR_CONFIG, stateDir.toString());
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "unused:9092");
        driver = new TopologyTestDriver(SequencerTopology.build(LAYOUT, serdes, new KafkaTracing(OpenTelemetry.noop(), "test"), signals),
                props);
        commands = driver.createInputTopic(LAYOUT.name(Topics.SESSION_COMMANDS), Serdes.String().serializer(), serdes.commands().serializer());
        events = driver.createOutputTopic(LAYOUT.name(Topics.SESSION_EVENTS), new SessionEventKeySerde(), serdes.events().deserializer());
        replies = driver.createOutputTopic(LAYOUT.name(Topics.SESSION_REPLIES), Serdes.String().deserializer(), serdes.replies().deserializer());
        checkpoints = driver.createOutputTopic(LAYOUT.name(Topics.SESSION_CHECKPOINTS), Serdes.String().deserializer(),
                serdes.checkpoints().deserializer());
        versions = driver.createInputTopic(LAYOUT.name(Topics.HARNESS_VERSIONS), Serdes.String().serializer(),
                serdes.versions().serializer());
    }

    @AfterEach
    void tearDown() {
        readers.shutdownNow();
        driver.close();
    }

    private static final Duration LONG_WAIT = Duration.ofSeconds(30);

    @Test
    void theMaterializedStores_wakeTheReadersOfWhatTheyStored_andNoOthers() throws Exception {
        Future<Boolean> s1 = woken(StoreNames.EVENTS, "s1", LONG_WAIT);
        Future<Boolean> s2 = woken(StoreNames.EVENTS, "s2", Duration.ofSeconds(2));
        Future<Boolean> v2 = woken(StoreNames.HARNESS_VERSIONS, "v2", LONG_WAIT);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (signals.waiting() < 3) {
            assertThat(System.nanoTime()).isLessThan(deadline);
            Thread.onSpinWait();
        }

        send(AGENT, "s1", append(started("s1-e1", null)));
        versions.pipeInput("v2", HarnessVersion.newBuilder().setVersion("v2").setWeight(0).setState(VersionState.ACTIVE)
                .setUpdatedAt(Instant.parse("2026-03-01T09:00:00Z")).setUpdatedBy("ops").build());

        assertThat(s1.get(LONG_WAIT.toSeconds() + 5, TimeUnit.SECONDS)).as("the events materializer stored s1's event").isTrue();
        assertThat(v2.get(LONG_WAIT.toSeconds() + 5, TimeUnit.SECONDS)).as("the versions materializer stored v2").isTrue();
        assertThat(s2.get(LONG_WAIT.toSeconds() + 5, TimeUnit.SECONDS)).as("nothing of s2 was stored: woken only at its deadline")
                .isFalse();
    }

    /**
     * A reader of {@code key} in {@code store} that waits up to {@code deadline}: true if a signal woke it before then (its
     * check answers only when it looks again, and not in the last look at the deadline). A reader that is to be woken gets
     * a long deadline, so that a slow machine does not make a wake-up look like a time-out.
     */
    private Future<Boolean> woken(String store, String key, Duration deadline) {
        var looked = new AtomicInteger();
        long start = System.nanoTime();
        return readers.submit(() -> signals.await(store, key, deadline,
                () -> looked.incrementAndGet() > 1 && System.nanoTime() - start < deadline.toNanos() ? Optional.of(true)
                        : Optional.<Boolean>empty()).orElse(false));
    }

    @Test
    void createAndAppend_emitGaplessEvents_andReSendingAppendsNothing() {
        send(AGENT, "s1", append(started("s1-e1", null), message("s1-e2", "hello")));
        send(AGENT, "s1", append(message("s1-e3", "again")));
        send(AGENT, "s1", append(message("s1-e2", "hello"), message("s1-e3", "again")));

        List<KeyValue<SessionEventKey, SessionEvent>> out = events.readKeyValuesToList();
        assertThat(out).extracting(kv -> kv.key.seq()).containsExactly(1L, 2L, 3L);
        assertThat(out).extracting(kv -> kv.value.getEventId()).containsExactly("s1-e1", "s1-e2", "s1-e3");
        List<CommandReply> verdicts = replies.readValuesToList();
        assertThat(verdicts).allSatisfy(r -> assertThat(r.getAccepted()).isTrue());
        CommandReply repeat = verdicts.get(2);
        assertThat(repeat.getAppended()).extracting(a -> a.getSeq()).containsExactly(2L, 3L);
        assertThat(repeat.getAppended()).allSatisfy(a -> assertThat(a.getDuplicate()).isTrue());
        assertThat(repeat.getLastSeq()).isEqualTo(3);
        KeyValueStore<SessionEventKey, SessionEvent> stored = driver.getKeyValueStore(StoreNames.EVENTS);
        assertThat(stored.get(new SessionEventKey("s1", 3)).getEventId()).isEqualTo("s1-e3");
    }

    @Test
    void theSessionSummary_isWrittenWhenMoreThanItsLastSeqChanges_notOnEveryAppend() {
        var summaries = driver.createOutputTopic("sequencer-test-" + StoreNames.SESSIONS_BY_TENANT + "-changelog",
                Serdes.String().deserializer(), Serdes.ByteArray().deserializer());
        send(AGENT, "s1", append(started("e1", null)));
        send(AGENT, "s1", append(message("e2", "a")));
        send(AGENT, "s1", append(message("e3", "b"), message("e4", "c")));
        assertThat(summaries.readKeyValuesToList()).as("written when the session started, not by its appends").hasSize(1);

        send(AGENT, "s1", new Command.ClaimSession("w1", "v1", false));
        send(AGENT, "s1", append(message("e5", "d")));
        send(AGENT, "s1", append(new ProposedEvent("e6", actor(), new SessionClosed("done"))));

        assertThat(summaries.readKeyValuesToList()).as("the claim and the close").hasSize(2);
        KeyValueStore<String, SessionSummary> stored = driver.getKeyValueStore(StoreNames.SESSIONS_BY_TENANT);
        SessionSummary summary = stored.get(StoreKey.of("acme", "s1"));
        assertThat(summary.status()).isEqualTo(SessionSummary.CLOSED);
        assertThat(summary.workerId()).isEqualTo("w1");
        assertThat(summary.epoch()).isEqualTo(1);
        KeyValueStore<String, SessionHead> heads = driver.getKeyValueStore(StoreNames.HEADS);
        assertThat(summary.listsAs(SessionSummary.of(heads.get("s1")))).isTrue();
    }

    @Test
    void rejectedCommand_answersWithTheReason_andAppendsNothing() {
        send(AGENT, "s1", append(started("e1", null)));
        events.readKeyValuesToList();
        replies.readValuesToList();

        send(AGENT, "s1", new Command.AppendEvents(List.of(message("e2", "x")), 7L, null));

        assertThat(events.isEmpty()).isTrue();
        CommandReply reply = replies.readValue();
        assertThat(reply.getAccepted()).isFalse();
        assertThat(reply.getRejection().getCode()).isEqualTo("seq_conflict");
        assertThat(reply.getLastSeq()).isEqualTo(1);
    }

    @Test
    void unknownSession_isNotFound_andRevealsNoPosition() {
        send(AGENT, "nope", append(message("e1", "x")));

        CommandReply reply = replies.readValue();
        assertThat(reply.getRejection().getCode()).isEqualTo("not_found");
        assertThat(reply.getLastSeq()).isZero();
        assertThat(reply.getSessionStartedAt()).isNull();
    }

    @Test
    void reClaim_recordsClaimAndCrashResume_asDistinctEvents() {
        send(AGENT, "s1", append(started("e1", null)));
        send(AGENT, "s1", new Command.ClaimSession("w1", "v1", false));
        send(AGENT, "s1", new Command.ClaimSession("w2", "v1", false));

        List<SessionEvent> written = events.readValuesToList();
        assertThat(written).extracting(SessionEvent::getType)
                .containsExactly("session_started", "session_claimed", "session_claimed", "session_resumed");
        List<CommandReply> verdicts = replies.readValuesToList();
        assertThat(verdicts).as("which session of the id each answered for").extracting(CommandReply::getSessionStartedAt)
                .containsOnly(written.get(0).getOccurredAt()).doesNotContainNull();
        assertThat(verdicts).as("the pin").extracting(CommandReply::getHarnessVersion, CommandReply::getModelId)
                .containsOnly(org.assertj.core.groups.Tuple.tuple(written.get(0).getPayload().getSessionStarted().getHarnessVersion(),
                        written.get(0).getPayload().getSessionStarted().getModelId()));
        assertThat(verdicts.get(1).getEpoch()).isEqualTo(1);
        assertThat(verdicts.get(1).getResumeReason()).isNull();
        assertThat(verdicts.get(2).getEpoch()).isEqualTo(2);
        assertThat(verdicts.get(2).getResumeReason()).isEqualTo("CRASH");
    }

    @Test
    void erase_tombstonesEveryEventAndTheCheckpoint_andForgetsTheSession() {
        send(AGENT, "s1", append(started("e1", null), message("e2", "a"), message("e3", "b")));
        events.readKeyValuesToList();

        send(AGENT, "s1", new Command.EraseSession("test"));

        List<KeyValue<SessionEventKey, SessionEvent>> tombstones = events.readKeyValuesToList();
        assertThat(tombstones).extracting(kv -> kv.key.seq()).containsExactly(1L, 2L, 3L);
        assertThat(tombstones).allSatisfy(kv -> assertThat(kv.value).isNull());
        KeyValue<String, Checkpoint> checkpoint = checkpoints.readKeyValue();
        assertThat(checkpoint.key).isEqualTo("s1");
        assertThat(checkpoint.value).isNull();
        KeyValueStore<String, SessionHead> heads = driver.getKeyValueStore(StoreNames.HEADS);
        assertThat(heads.get("s1")).isNull();
        KeyValueStore<String, Long> ids = driver.getKeyValueStore(StoreNames.EVENT_IDS);
        try (var all = ids.all()) {
            assertThat(all.hasNext()).isFalse();
        }
        KeyValueStore<SessionEventKey, SessionEvent> stored = driver.getKeyValueStore(StoreNames.EVENTS);
        assertThat(stored.get(new SessionEventKey("s1", 1))).isNull();
        // the erased session is gone: the same id is unknown now
        replies.readValuesToList();
        send(AGENT, "s1", append(message("e4", "late")));
        assertThat(replies.readValue().getRejection().getCode()).isEqualTo("not_found");
    }

    @Test
    void anErasureByAFencedWorker_throughTheCommandTopic_erasesNothing_andOneByTheHolder_erasesTheSession() {
        send(AGENT, "s1", append(started("e1", null)));
        send(AGENT, "s1", new Command.ClaimSession("w1", "v1", false));
        send(AGENT, "s1", new Command.ClaimSession("w2", "v1", false));
        List<CommandReply> verdicts = replies.readValuesToList();
        Instant startedAt = verdicts.get(0).getSessionStartedAt();
        events.readKeyValuesToList();

        send(AGENT, "s1", new Command.EraseSession("cleared", 1L, startedAt));

        assertThat(replies.readValue().getRejection().getCode()).isEqualTo("stale_epoch");
        assertThat(events.isEmpty()).isTrue();
        KeyValueStore<String, SessionHead> heads = driver.getKeyValueStore(StoreNames.HEADS);
        assertThat(heads.get("s1")).isNotNull();

        send(AGENT, "s1", new Command.EraseSession("cleared", 2L, startedAt));

        assertThat(replies.readValue().getRejection()).isNull();
        assertThat(events.readKeyValuesToList()).extracting(kv -> kv.key.seq()).containsExactly(1L, 2L, 3L, 4L);
        assertThat(heads.get("s1")).isNull();
    }

    @Test
    void erasureTombstones_areStampedWithTheSequencersClock_whichEventsTakeTheirTimeFrom_notTheRequestsRecord() {
        send(AGENT, "s1", append(started("e1", null), message("e2", "a")));
        Instant lastOccurred = Instant.ofEpochMilli(0);
        for (var event : events.readValuesToList()) {
            lastOccurred = event.getOccurredAt();
        }
        driver.advanceWallClockTime(java.time.Duration.ofSeconds(7));
        var envelope = new CommandEnvelope("cmd-erase", "s1", AGENT.tenantId(), AGENT, Instant.parse("2026-11-29T10:00:00Z"),
                new Command.EraseSession("test"));
        Instant requestStamp = Instant.parse("2020-01-01T00:00:00Z"); // the producing instance's clock, far behind

        commands.pipeInput("s1", CommandAvro.toAvro(envelope, "instance-1"), requestStamp);

        var tombstones = events.readRecordsToList();
        assertThat(tombstones).hasSize(2);
        assertThat(tombstones).extracting(org.apache.kafka.streams.test.TestRecord::getRecordTime).containsOnly(
                lastOccurred.plusSeconds(7));
        assertThat(checkpoints.readRecord().getRecordTime()).isEqualTo(lastOccurred.plusSeconds(7));
    }

    @Test
    void closingASubagent_appendsOnlyItsOutcomeToTheParent() {
        send(AGENT, "parent", append(started("p1", null)));
        send(AGENT, "child", append(started("c1", "parent"), message("c2", "a long transcript")));
        send(AGENT, "child", append(new ProposedEvent("c3", actor(), new SessionClosed("found 3 files"))));

        List<SessionEvent> parentEvents = new ArrayList<>();
        for (var kv : events.readKeyValuesToList()) {
            if (kv.key.sessionId().equals("parent")) {
                parentEvents.add(kv.value);
            }
        }
        assertThat(parentEvents).extracting(SessionEvent::getType).containsExactly("session_started", "subagent_result");
        var result = parentEvents.get(1).getPayload().getSubagentResult();
        assertThat(result.getChildSessionId()).isEqualTo("child");
        assertThat(result.getOutcome()).isEqualTo("found 3 files");
    }

    @Test
    void countsOpenSessionsPerHarnessVersion_throughCloseAndMigration() {
        send(AGENT, "a", append(started("a1", null)));
        send(AGENT, "b", append(started("b1", null)));
        send(AGENT, "c", append(started("c1", null)));
        send(AGENT, "a", append(new ProposedEvent("a2", actor(), new SessionClosed("done"))));
        send(OPERATOR, "b", new Command.MigrateSession("v2"));

        KeyValueStore<String, Long> open = driver.getKeyValueStore(StoreNames.OPEN_BY_VERSION);
        assertThat(open.get("acme\0v1")).isEqualTo(1L);
        assertThat(open.get("acme\0v2")).isEqualTo(1L);
        assertThat(open.get("v1")).as("by tenant only").isNull();
    }

    /**
     * Counts kept before they were by tenant (keyed by the version alone) would never fall for the sessions they counted:
     * at its first command the task counts its heads again, by tenant.
     */
    @Test
    void openSessionCountsKeptBeforeTheyWereByTenant_areCountedAgainFromTheHeads_atTheFirstCommand() {
        // a task's stores as a release before tenants' counts left them: every tenant's open sessions of v1 in one count
        KeyValueStore<String, SessionHead> heads = driver.getKeyValueStore(StoreNames.HEADS);
        heads.put("a", storedHead("a", "acme", false));
        heads.put("c", storedHead("c", "acme", true));
        heads.put("g", storedHead("g", "globex", false));
        KeyValueStore<String, Long> open = driver.getKeyValueStore(StoreNames.OPEN_BY_VERSION);
        open.put("v1", 2L);

        send(AGENT, "b", append(started("b1", null)));

        var counts = new java.util.TreeMap<String, Long>();
        try (var it = open.all()) {
            it.forEachRemaining(kv -> counts.put(kv.key, kv.value));
        }
        assertThat(counts).containsExactly(java.util.Map.entry("acme\0v1", 2L), java.util.Map.entry("globex\0v1", 1L));
    }

    private static SessionHead storedHead(String sessionId, String tenantId, boolean closed) {
        return new SessionHead(sessionId, tenantId, "agent-1", 1, 0, null, "model-x", "v1", ToolMode.WRITE, closed,
                dev.tether.core.event.TokenUsage.NONE, null, null, java.util.Map.of(), null, null, 0);
    }

    @Test
    void aHeadTheStoreCannotWriteDuringARollingUpgrade_isRefused_andThePartitionGoesOn() {
        driver.close();
        var serdes = new SequencerTopology.TopicSerdes(new PlainAvroSerde<>(SessionCommand.getClassSchema()),
                new PlainAvroSerde<>(SessionEvent.getClassSchema()), new PlainAvroSerde<>(CommandReply.getClassSchema()),
                new PlainAvroSerde<>(Checkpoint.getClassSchema()), new PlainAvroSerde<>(HarnessVersion.getClassSchema()));
        var props = new Properties();
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, "sequencer-test");
        props.put(StreamsConfig.STATE_DIR_CONFIG, stateDir.resolve("rollout").toString());
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "unused:9092");
        // tether.stores.write-version.session-heads=2, as the first step of a rollout to version 3 and later
        driver = new TopologyTestDriver(SequencerTopology.build(LAYOUT, serdes, java.util.Map.of(StoreNames.HEADS, 2),
                new KafkaTracing(OpenTelemetry.noop(), "test"), signals), props);
        commands = driver.createInputTopic(LAYOUT.name(Topics.SESSION_COMMANDS), Serdes.String().serializer(), serdes.commands().serializer());
        events = driver.createOutputTopic(LAYOUT.name(Topics.SESSION_EVENTS), new SessionEventKeySerde(), serdes.events().deserializer());
        replies = driver.createOutputTopic(LAYOUT.name(Topics.SESSION_REPLIES), Serdes.String().deserializer(), serdes.replies().deserializer());
        EventPayload declaring = new SessionStarted("rename Foo to Bar", "You are careful.", "model-x", "v1", ToolMode.WRITE, List.of(),
                null, null, List.of(new dev.tether.core.event.HarnessTool("send_email", true, true, false)), null);

        send(AGENT, "s1", append(new ProposedEvent("e1", actor(), declaring)));
        send(AGENT, "s2", append(started("e2", null)));

        assertThat(events.readKeyValuesToList()).extracting(kv -> kv.key.sessionId()).containsExactly("s2");
        List<CommandReply> verdicts = replies.readValuesToList();
        assertThat(verdicts).extracting(CommandReply::getAccepted).containsExactly(false, true);
        assertThat(verdicts.get(0).getRejection().getCode()).isEqualTo("illegal_event");
        KeyValueStore<String, SessionHead> heads = driver.getKeyValueStore(StoreNames.HEADS);
        assertThat(heads.get("s1")).isNull();
        KeyValueStore<String, Long> ids = driver.getKeyValueStore(StoreNames.EVENT_IDS);
        assertThat(ids.get(StoreKey.of("s1", "e1"))).as("nothing of the refused command is kept").isNull();
    }

    // ---------------------------------------------------------------------------------------------

    private void send(TetherPrincipal principal, String sessionId, Command command) {
        var envelope = new CommandEnvelope("cmd-" + (++commandCounter), sessionId, principal.tenantId(), principal,
                Instant.parse("2026-11-29T10:00:00Z"), command);
        commands.pipeInput(sessionId, CommandAvro.toAvro(envelope, "instance-1"));
    }

    private static Command.AppendEvents append(ProposedEvent... events) {
        return new Command.AppendEvents(List.of(events), null, null);
    }

    private static ProposedEvent started(String eventId, String parent) {
        EventPayload payload = new SessionStarted("rename Foo to Bar", "You are careful.", "model-x", "v1", ToolMode.WRITE, List.of(),
                null, parent);
        return new ProposedEvent(eventId, actor(), payload);
    }

    private static ProposedEvent message(String eventId, String text) {
        return new ProposedEvent(eventId, actor(), new UserMessage(text, null));
    }

    private static Actor actor() {
        return new Actor(ActorKind.USER, "agent-1");
    }
}
