package dev.tether.projector.kafka;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tether.avro.BlobReference;
import dev.tether.avro.OutcomeState;
import dev.tether.avro.SessionEvent;
import dev.tether.avro.ToolOutcome;
import dev.tether.core.blob.BlobRef;
import dev.tether.core.blob.LocalBlobStore;
import dev.tether.core.event.Actor;
import dev.tether.core.event.ActorKind;
import dev.tether.core.event.AssistantMessage;
import dev.tether.core.event.AuthorizationBasis;
import dev.tether.core.event.Event;
import dev.tether.core.event.EventPayload;
import dev.tether.core.event.SessionStarted;
import dev.tether.core.event.TokenUsage;
import dev.tether.core.event.ToolCall;
import dev.tether.core.event.ToolCallAuthorized;
import dev.tether.core.event.ToolMode;
import dev.tether.core.event.ToolResult;
import dev.tether.core.event.ToolStatus;
import dev.tether.core.event.UserMessage;
import dev.tether.core.id.StoreKey;
import dev.tether.kit.kafka.BlobReferences;
import dev.tether.kit.kafka.EventAvro;
import dev.tether.kit.kafka.SessionEventKey;
import dev.tether.kit.kafka.SessionEventKeySerde;
import dev.tether.kit.kafka.StoreSignals;
import dev.tether.kit.kafka.Topics;
import dev.tether.kit.tracing.KafkaTracing;
import io.opentelemetry.api.OpenTelemetry;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.processor.TaskId;
import org.apache.kafka.streams.state.KeyValueStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The blobs of an erased session go once no session refers to them and they were last put longer than the grace before
 * the horizon (here the driver's clock unless a test holds it back): the projector's blob references
 * ({@link SessionBlobs}) and their sweeper ({@link BlobSweeper}), driven without a broker over a real blob store in a
 * directory.
 */
class BlobErasureTopologyTest {

    private static final Duration GRACE = Duration.ofHours(1);
    private static final Duration SWEEP_EVERY = Duration.ofMinutes(1);

    @TempDir
    Path stateDir;
    @TempDir
    Path blobDir;

    private LocalBlobStore blobs;
    /** How many blobs the sweeps said they deleted, and how many they said wait (the projector's metrics). */
    private final AtomicInteger deleted = new AtomicInteger();
    private final AtomicInteger waiting = new AtomicInteger(-1);
    private final BlobSweeper.Tally tally = new BlobSweeper.Tally() {
        @Override
        public void deleted(int blobs) {
            deleted.addAndGet(blobs);
        }

        @Override
        public void waiting(TaskId task, int blobs) {
            waiting.set(blobs); // the driver runs one task of the sweeper
        }
    };
    /** The sweeper's horizon: by default never before the driver's clock, so only the grace holds a blob back. */
    private final AtomicReference<Instant> horizon = new AtomicReference<>(Instant.MAX);
    private TopologyTestDriver driver;
    private TestInputTopic<SessionEventKey, SessionEvent> events;
    private TestInputTopic<String, ToolOutcome> outcomes;
    private TestOutputTopic<String, BlobReference> references;

    @BeforeEach
    void setUp() {
        blobs = new LocalBlobStore(blobDir);
        start();
    }

    private void start() {
        var serdes = ProjectorDrivers.serdes();
        driver = ProjectorDrivers.start("projector-blobs-test", stateDir, serdes, new KafkaTracing(OpenTelemetry.noop(), "test"),
                new StoreSignals(), new BlobSweeper.Sweeping(blobs, GRACE, SWEEP_EVERY, tally, horizon::get));
        var layout = ProjectorDrivers.LAYOUT;
        events = driver.createInputTopic(layout.name(Topics.SESSION_EVENTS), new SessionEventKeySerde(), serdes.events().serializer());
        outcomes = driver.createInputTopic(layout.name(Topics.TOOL_OUTCOMES), Serdes.String().serializer(), serdes.outcomes().serializer());
        references = driver.createOutputTopic(layout.name(Topics.BLOB_REFERENCES), Serdes.String().deserializer(),
                serdes.references().deserializer());
    }

    @AfterEach
    void tearDown() {
        driver.close();
    }

    @Test
    void anErasedSessionsBlobs_areDeleted_butOneAnotherSessionStillRefersTo_staysUntilThatOneIsErasedToo() {
        BlobRef own = putLongAgo("acme", "the first session's own long message");
        BlobRef shared = putLongAgo("acme", "a long tool output both sessions hold");
        pipe("s1", 1, started());
        pipe("s1", 2, new UserMessage("the first…", own));
        pipe("s1", 3, new AssistantMessage("", shared, List.of(), new TokenUsage(1, 1)));
        pipe("s1", 4, new UserMessage("the first…", own)); // referred to twice: announced once
        pipe("s2", 1, started());
        pipe("s2", 2, new UserMessage("a long…", shared));

        assertThat(references.readKeyValuesToList()).extracting(kv -> kv.key).containsExactly(
                StoreKey.of("acme", own.sha256(), "s1"), StoreKey.of("acme", shared.sha256(), "s1"), StoreKey.of("acme", shared.sha256(), "s2"));

        erase("s1", 4);
        driver.advanceWallClockTime(SWEEP_EVERY);

        assertThat(references.readKeyValuesToList()).as("the erased session's references, tombstoned")
                .containsExactlyInAnyOrder(KeyValue.pair(StoreKey.of("acme", own.sha256(), "s1"), null),
                        KeyValue.pair(StoreKey.of("acme", shared.sha256(), "s1"), null));
        assertThat(blobs.open("acme", own.sha256())).as("no session refers to it any more").isEmpty();
        assertThat(blobs.open("acme", shared.sha256())).as("s2 still refers to it").isPresent();

        erase("s2", 2);
        driver.advanceWallClockTime(SWEEP_EVERY);

        assertThat(blobs.open("acme", shared.sha256())).isEmpty();
        assertThat(blobFiles()).isEmpty();
        assertThat(unreferenced()).as("nothing left to look at").isEmpty();
        assertThat(deleted).as("counted").hasValue(2);
        assertThat(waiting).as("none waits").hasValue(0);
    }

    @Test
    void aBlobPutAgainWithinTheGrace_isKept_andOnceItsNewReferenceArrives_itIsReferredToAgain() {
        BlobRef ref = putLongAgo("acme", "a long message sent again in a new session");
        pipe("s1", 1, started());
        pipe("s1", 2, new UserMessage("a long…", ref));
        erase("s1", 2);
        // the same bytes offloaded again for a session whose event the projector has not folded yet
        blobs.put("acme", bytes("a long message sent again in a new session"));

        driver.advanceWallClockTime(SWEEP_EVERY);
        assertThat(blobs.open("acme", ref.sha256())).as("put within the grace").isPresent();
        assertThat(unreferenced()).containsExactly(StoreKey.of("acme", ref.sha256()));
        assertThat(waiting).as("counted as waiting").hasValue(1);

        pipe("s3", 1, started());
        pipe("s3", 2, new UserMessage("a long…", ref));
        assertThat(unreferenced()).as("referred to again").isEmpty();

        driver.advanceWallClockTime(GRACE.plus(SWEEP_EVERY));
        assertThat(blobs.open("acme", ref.sha256())).as("s3 refers to it, however old its put").isPresent();
    }

    @Test
    void aBlobUnreferencedButPutWithinTheGrace_goesOnceThatPutIsOlderThanTheGrace() {
        BlobRef ref = blobs.put("acme", bytes("offloaded for an append that was then refused"));
        pipe("s1", 1, started());
        pipe("s1", 2, new UserMessage("…", ref));
        erase("s1", 2);

        driver.advanceWallClockTime(SWEEP_EVERY);
        assertThat(blobs.open("acme", ref.sha256())).isPresent();

        driver.advanceWallClockTime(GRACE);
        assertThat(blobs.open("acme", ref.sha256())).isEmpty();
    }

    @Test
    void aBlobPutWithinTheGraceBeforeTheHorizon_isKept_howeverLongAgoItWasPut_untilTheHorizonMovesOn() {
        BlobRef ref = putLongAgo("acme", "a long message whose new reference the stalled pipeline has not delivered yet");
        pipe("s1", 1, started());
        pipe("s1", 2, new UserMessage("…", ref));
        horizon.set(Instant.now().minus(GRACE.multipliedBy(3))); // the sequencer or the projector stalled before its put
        erase("s1", 2);

        driver.advanceWallClockTime(GRACE.plus(SWEEP_EVERY));
        assertThat(blobs.open("acme", ref.sha256())).as("put after the horizon less the grace").isPresent();
        assertThat(unreferenced()).containsExactly(StoreKey.of("acme", ref.sha256()));

        horizon.set(Instant.now());
        driver.advanceWallClockTime(SWEEP_EVERY);
        assertThat(blobs.open("acme", ref.sha256())).isEmpty();
    }

    @Test
    void aToolOutputTheExecutorOffloaded_isReferredToByItsLedgerRecord_evenIfNoToolResultEverCarriedIt() {
        BlobRef output = putLongAgo("acme", "a long command output");
        pipe("s1", 1, started());
        pipe("s1", 2, new AssistantMessage("", null, List.of(new ToolCall("c1", "run_command", "{}")), new TokenUsage(1, 1)));
        pipe("s1", 3, new ToolCallAuthorized("c1", AuthorizationBasis.POLICY));
        outcomes.pipeInput("s1/2/c1", ToolOutcome.newBuilder().setIdempotencyKey("s1/2/c1").setSessionId("s1").setTenantId("acme")
                .setCallId("c1").setTool("run_command").setState(OutcomeState.OK).setAttempt(1).setExecutorId("executor-1")
                .setStartedAt(Instant.parse("2026-11-29T10:00:04Z")).setFinishedAt(Instant.parse("2026-11-29T10:00:05Z"))
                .setContent("a long…").setContentRef(dev.tether.avro.BlobRef.newBuilder().setUri(output.uri()).setSha256(output.sha256())
                        .setSize(output.size()).setPreview("a long").build())
                .build());
        assertThat(references.readKeyValuesToList()).extracting(kv -> kv.key).containsExactly(StoreKey.of("acme", output.sha256(), "s1"));

        erase("s1", 3);
        driver.advanceWallClockTime(SWEEP_EVERY);

        assertThat(blobs.open("acme", output.sha256())).isEmpty();
    }

    @Test
    void aNominatedBlob_noSessionRefersTo_goesOnceItsPutIsOlderThanTheGrace_whileANominatedBlobASessionRefersTo_stays() {
        BlobRef refused = blobs.put("acme", bytes("offloaded for an append the sequencer then refused"));
        BlobRef accepted = blobs.put("acme", bytes("offloaded for an append that was accepted"));
        nominations().pipeInput(BlobReferences.nomination("acme", refused.sha256()), null);
        nominations().pipeInput(BlobReferences.nomination("acme", accepted.sha256()), null);
        pipe("s1", 1, started());
        pipe("s1", 2, new UserMessage("…", accepted));
        assertThat(unreferenced()).containsExactly(StoreKey.of("acme", refused.sha256()));

        driver.advanceWallClockTime(SWEEP_EVERY);
        assertThat(blobs.open("acme", refused.sha256())).as("put within the grace").isPresent();

        driver.advanceWallClockTime(GRACE);
        assertThat(blobs.open("acme", refused.sha256())).isEmpty();
        assertThat(blobs.open("acme", accepted.sha256())).isPresent();

        // a nomination that arrives after the reference changes nothing
        nominations().pipeInput(BlobReferences.nomination("acme", accepted.sha256()), null);
        driver.advanceWallClockTime(GRACE.plus(SWEEP_EVERY));
        assertThat(blobs.open("acme", accepted.sha256())).isPresent();
        assertThat(unreferenced()).isEmpty();
    }

    @Test
    void aNominationWrittenLongerAgoThanTheGrace_nominatesNothing_forItsReferenceMayBeInAPartitionNotYetFilled() {
        BlobRef ref = putLongAgo("acme", "offloaded by a session-service upgraded a day before the projector");
        nominations().pipeInput(BlobReferences.nomination("acme", ref.sha256()), null, Instant.now().minus(GRACE.multipliedBy(2)));

        driver.advanceWallClockTime(SWEEP_EVERY);

        assertThat(unreferenced()).isEmpty();
        assertThat(blobs.open("acme", ref.sha256())).isPresent();
    }

    private TestInputTopic<String, byte[]> nominations() {
        return driver.createInputTopic(ProjectorDrivers.LAYOUT.name(Topics.BLOB_REFERENCES), Serdes.String().serializer(),
                Serdes.ByteArray().serializer());
    }

    @Test
    void anotherTenantsBlobOfTheSameBytes_isItsOwn_andStays() {
        BlobRef acmes = putLongAgo("acme", "the same long text");
        putLongAgo("globex", "the same long text");
        pipe("acme", "s1", 1, started());
        pipe("acme", "s1", 2, new UserMessage("…", acmes));
        pipe("globex", "g1", 1, started());
        pipe("globex", "g1", 2, new UserMessage("…", acmes));

        erase("s1", 2);
        driver.advanceWallClockTime(SWEEP_EVERY);

        assertThat(blobs.open("acme", acmes.sha256())).isEmpty();
        assertThat(blobs.open("globex", acmes.sha256())).isPresent();
    }

    @Test
    void aPartitionProjectedBeforeBlobReferencesExisted_hasThemFilledFromItsMessageStoreOnce() {
        BlobRef summary = putLongAgo("acme", "a long summary");
        BlobRef result = putLongAgo("acme", "a long result");
        pipe("s1", 1, started());
        pipe("s1", 2, new ToolResult("c0", "", ToolStatus.OK, "…", result));
        pipe("s1", 3, new dev.tether.core.event.ContextCompacted(2, "…", summary, List.of(2L)));
        // as a projector before this release left it: no reference recorded (the fill runs at the task's first punctuation,
        // which the driver has not reached yet)
        KeyValueStore<String, String> sessionBlobs = driver.getKeyValueStore(ProjectorStores.SESSION_BLOBS);
        List<String> kept = new ArrayList<>();
        try (var all = sessionBlobs.all()) {
            all.forEachRemaining(kv -> kept.add(kv.key));
        }
        assertThat(kept).hasSize(2);
        kept.forEach(sessionBlobs::delete);
        references.readKeyValuesToList();

        driver.advanceWallClockTime(Duration.ofMillis(1));

        assertThat(references.readKeyValuesToList()).extracting(kv -> kv.key).containsExactlyInAnyOrder(
                StoreKey.of("acme", result.sha256(), "s1"), StoreKey.of("acme", summary.sha256(), "s1"));
        assertThat(sessionBlobs.get(SessionBlobs.FILLED)).isNotNull();
        kept.forEach(sessionBlobs::delete);
        driver.advanceWallClockTime(SWEEP_EVERY);
        assertThat(references.readKeyValuesToList()).as("filled once").isEmpty();
        kept.forEach(key -> sessionBlobs.put(key, ""));

        erase("s1", 3);
        driver.advanceWallClockTime(SWEEP_EVERY);
        assertThat(blobFiles()).isEmpty();
    }

    /**
     * A partition projected before blob references existed may read a session's erasure before its one-time fill has run
     * (a task processes records before its first punctuation): the erased session's blobs must go all the same, and the
     * fill that follows must not refer to them again.
     */
    @Test
    void aSessionErasedBeforeItsPartitionsOneTimeFill_hasItsBlobsDeleted_andNoReferenceLeft() {
        BlobRef summary = putLongAgo("acme", "a long summary");
        BlobRef result = putLongAgo("acme", "a long result");
        pipe("s1", 1, started());
        pipe("s1", 2, new ToolResult("c0", "", ToolStatus.OK, "…", result));
        pipe("s1", 3, new dev.tether.core.event.ContextCompacted(2, "…", summary, List.of(2L)));
        // as a projector before this release left it: no reference recorded, none announced
        for (String store : List.of(ProjectorStores.SESSION_BLOBS, ProjectorStores.BLOB_REFERENCES)) {
            KeyValueStore<String, Object> kept = driver.getKeyValueStore(store);
            List<String> keys = new ArrayList<>();
            try (var all = kept.all()) {
                all.forEachRemaining(kv -> keys.add(kv.key));
            }
            keys.forEach(kept::delete);
        }
        references.readKeyValuesToList();

        erase("s1", 3); // before the task's first punctuation
        driver.advanceWallClockTime(SWEEP_EVERY);
        driver.advanceWallClockTime(SWEEP_EVERY);

        assertThat(blobFiles()).as("the erased session's blobs").isEmpty();
        List<String> left = new ArrayList<>();
        try (var all = driver.<String, String>getKeyValueStore(ProjectorStores.SESSION_BLOBS).all()) {
            all.forEachRemaining(kv -> left.add(kv.key));
        }
        assertThat(left).as("no reference of the erased session").containsExactly(SessionBlobs.FILLED);
    }

    /** Puts {@code text} for {@code tenantId} as if it had been put two grace periods ago. */
    private BlobRef putLongAgo(String tenantId, String text) {
        BlobRef ref = blobs.put(tenantId, bytes(text));
        Path file = blobDir.resolve(HexFormat.of().formatHex(tenantId.getBytes(UTF_8))).resolve(ref.sha256().substring(0, 2))
                .resolve(ref.sha256());
        try {
            Files.setLastModifiedTime(file, FileTime.from(Instant.now().minus(GRACE.multipliedBy(2))));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return BlobRef.of(ref.sha256(), ref.size(), text.substring(0, 3));
    }

    private List<Path> blobFiles() {
        try (var walk = Files.walk(blobDir)) {
            return walk.filter(Files::isRegularFile).toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private List<String> unreferenced() {
        var keys = new ArrayList<String>();
        try (var all = driver.<String, String>getKeyValueStore(ProjectorStores.UNREFERENCED).all()) {
            all.forEachRemaining(kv -> keys.add(kv.key));
        }
        return keys;
    }

    /** The sequencer's erasure: a tombstone per event, from seq 1. */
    private void erase(String sessionId, long lastSeq) {
        for (long seq = 1; seq <= lastSeq; seq++) {
            events.pipeInput(new SessionEventKey(sessionId, seq), null, Instant.parse("2026-11-30T08:00:00Z"));
        }
    }

    private void pipe(String sessionId, long seq, EventPayload payload) {
        pipe("acme", sessionId, seq, payload);
    }

    private void pipe(String tenantId, String sessionId, long seq, EventPayload payload) {
        var event = new Event("e-" + sessionId + "-" + seq, sessionId, tenantId, seq, Instant.parse("2026-11-29T10:00:00Z").plusSeconds(seq),
                new Actor(ActorKind.USER, "alice"), "v1", payload);
        events.pipeInput(new SessionEventKey(sessionId, seq), EventAvro.toAvro(event));
    }

    private static SessionStarted started() {
        return new SessionStarted("Rename Foo", "Be careful.", "model-x", "v1", ToolMode.WRITE, List.of(), null, null);
    }

    private static byte[] bytes(String text) {
        return text.getBytes(UTF_8);
    }
}
