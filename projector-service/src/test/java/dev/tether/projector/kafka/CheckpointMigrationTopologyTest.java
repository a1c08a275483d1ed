package dev.tether.projector.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tether.avro.Checkpoint;
import dev.tether.avro.SessionEvent;
import dev.tether.avro.ToolRequest;
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
import dev.tether.kit.kafka.EventAvro;
import dev.tether.kit.kafka.SessionEventKey;
import dev.tether.kit.kafka.SessionEventKeySerde;
import dev.tether.kit.kafka.StoreSignals;
import dev.tether.kit.kafka.TopicLayout;
import dev.tether.kit.kafka.Topics;
import dev.tether.kit.tracing.KafkaTracing;
import dev.tether.projector.avro.CheckpointAvro;
import dev.tether.projector.domain.Projection;
import dev.tether.projector.domain.SessionProjection;
import io.opentelemetry.api.OpenTelemetry;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.state.KeyValueStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The projector's processor meets a stored checkpoint of another version, as after an upgrade: it folds the next
 * event into the migrated checkpoint, or into one rebuilt from the log. To tell the two apart, the stored checkpoint
 * carries an objective the log does not have: it survives a migration and disappears in a rebuild.
 */
class CheckpointMigrationTopologyTest {

    /** The stores' directory, this test's own: under the fixed default two builds running the test at once collide. */
    @TempDir
    Path stateDir;

    private static final TopicLayout LAYOUT = ProjectorDrivers.LAYOUT;
    private static final String STORED_ONLY = "an objective only the stored checkpoint has";

    private TopologyTestDriver driver;
    private TestInputTopic<SessionEventKey, SessionEvent> events;
    private TestOutputTopic<String, Checkpoint> checkpoints;
    private KeyValueStore<String, Checkpoint> store;
    private TestOutputTopic<String, ToolRequest> requests;
    private Checkpoint current;
    private final List<Event> written = new ArrayList<>();

    @BeforeEach
    void setUp() {
        var serdes = ProjectorDrivers.serdes();
        driver = ProjectorDrivers.start("projector-migration-test", stateDir, serdes, new KafkaTracing(OpenTelemetry.noop(), "test"), new StoreSignals());
        events = driver.createInputTopic(LAYOUT.name(Topics.SESSION_EVENTS), new SessionEventKeySerde(), serdes.events().serializer());
        checkpoints = driver.createOutputTopic(LAYOUT.name(Topics.SESSION_CHECKPOINTS), Serdes.String().deserializer(),
                serdes.checkpoints().deserializer());
        store = driver.getKeyValueStore(ProjectorStores.CHECKPOINTS);
        requests = driver.createOutputTopic(LAYOUT.name(Topics.TOOL_REQUESTS), Serdes.String().deserializer(),
                serdes.requests().deserializer());

        pipe(new SessionStarted("Rename Foo", "Be careful.", "model-x", "v1", ToolMode.WRITE, List.of("keep tests green"), null, null));
        pipe(new AssistantMessage("reading", null, List.of(new ToolCall("c1", "read_file", "{}")), new TokenUsage(3, 1)));
        pipe(new ToolCallAuthorized("c1", AuthorizationBasis.POLICY));
        pipe(new ToolResult("c1", "s1/2/c1", ToolStatus.OK, "content", null));
        checkpoints.readRecordsToList();
        requests.readRecordsToList();
        current = store.get("s1");
    }

    @AfterEach
    void tearDown() {
        driver.close();
    }

    @Test
    void aStoredVersion3Checkpoint_isRebuiltFromTheLog_forOnlyTheLogKnowsWhichToolsItsHarnessRuns() {
        restored(stored(3));

        pipe(new UserMessage("next", null));

        Checkpoint out = checkpoints.readValue();
        assertThat(out.getSchemaVersion()).isEqualTo(4);
        assertThat(out.getLastSeq()).isEqualTo(5);
        assertThat(out.getObjective()).as("a rebuild, not a migration").isEqualTo("Rename Foo");
        assertThat(withoutPosition(out)).isEqualTo(withoutPosition(CheckpointAvro.toAvro(fold())));
        assertThat(store.get("s1")).isEqualTo(out);
    }

    @Test
    void aStoredVersion1Checkpoint_isRebuiltFromTheLog() {
        restored(stored(1));

        pipe(new UserMessage("next", null));

        Checkpoint out = checkpoints.readValue();
        assertThat(out.getSchemaVersion()).isEqualTo(4);
        assertThat(out.getLastSeq()).isEqualTo(5);
        assertThat(out.getObjective()).isEqualTo("Rename Foo");
        assertThat(withoutPosition(out)).isEqualTo(withoutPosition(CheckpointAvro.toAvro(fold())));
    }

    @Test
    void aCheckpointFromANewerProjector_isRebuiltFromTheLog_neverRead() {
        restored(stored(SessionProjection.SCHEMA_VERSION + 1));

        pipe(new UserMessage("next", null));

        Checkpoint out = checkpoints.readValue();
        assertThat(out.getSchemaVersion()).isEqualTo(SessionProjection.SCHEMA_VERSION);
        assertThat(out.getObjective()).isEqualTo("Rename Foo");
        assertThat(withoutPosition(out)).isEqualTo(withoutPosition(CheckpointAvro.toAvro(fold())));
    }

    @Test
    void anEventFoldedAlready_leavesAnOlderCheckpointAsItIs_andEmitsNothingAgain_evenWhenItWouldBeRebuilt() {
        for (int version : List.of(3, 2, 1)) {
            Checkpoint older = stored(version);
            restored(older);

            events.pipeInput(new SessionEventKey("s1", 3), EventAvro.toAvro(written.get(2))); // the authorization, again
            events.pipeInput(new SessionEventKey("s1", 4), EventAvro.toAvro(written.get(3)));

            assertThat(checkpoints.isEmpty()).as("version " + version).isTrue();
            assertThat(requests.isEmpty()).as("no second tool request, version " + version).isTrue();
            assertThat(store.get("s1")).isEqualTo(older);
        }
    }

    /**
     * {@code checkpoint} in the store as a restore from the changelog leaves it: not waiting in the store's cache to be
     * sent on (a put from here goes through the cache, so a commit, which flushes it, follows; what it sends is dropped).
     */
    private void restored(Checkpoint checkpoint) {
        store.put("s1", checkpoint);
        driver.advanceWallClockTime(java.time.Duration.ZERO);
        checkpoints.readRecordsToList();
    }

    /** The checkpoint as it stands, as an older (or newer) projector would have stored it, with an objective of its own. */
    private Checkpoint stored(int schemaVersion) {
        Checkpoint c = Checkpoint.newBuilder(current).setSchemaVersion(schemaVersion).setObjective(STORED_ONLY).build();
        assertThat(c.getLastSeq()).isEqualTo(4);
        return c;
    }

    private SessionProjection fold() {
        SessionProjection state = null;
        for (Event e : written) {
            state = Projection.evolve(state, e, 0, 0);
        }
        return state;
    }

    private static Checkpoint withoutPosition(Checkpoint c) {
        return Checkpoint.newBuilder(c).setLogPosition(new dev.tether.avro.LogPosition(0, 0L, 0L)).build();
    }

    private void pipe(EventPayload payload) {
        long seq = written.size() + 1;
        var event = new Event("e-" + seq, "s1", "acme", seq, Instant.parse("2026-11-29T10:00:00Z").plusSeconds(seq),
                new Actor(ActorKind.USER, "alice"), "v1", payload);
        written.add(event);
        events.pipeInput(new SessionEventKey("s1", seq), EventAvro.toAvro(event));
    }
}
