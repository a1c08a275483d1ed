package dev.tether.projector.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.tether.avro.Checkpoint;
import dev.tether.avro.SessionEvent;
import dev.tether.core.event.Actor;
import dev.tether.core.event.ActorKind;
import dev.tether.core.event.Event;
import dev.tether.core.event.SessionStarted;
import dev.tether.core.event.ToolMode;
import dev.tether.core.event.UserMessage;
import dev.tether.kit.kafka.SessionEventKey;
import dev.tether.kit.service.rest.ApiException;
import dev.tether.projector.avro.CheckpointAvro;
import dev.tether.projector.domain.Projection;
import dev.tether.projector.domain.SessionProjection;
import dev.tether.testing.IdleStreams;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.OptionalInt;
import java.util.stream.LongStream;
import org.apache.kafka.streams.KafkaStreams;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * While the projection is not serving (rebalancing, or a store still restoring), a read answers 503
 * with {@code Retry-After} and no checkpoint: never stale data; nor while the log it would rebuild a checkpoint from
 * lacks some of its events. The Streams instance is never started (no broker, {@link IdleStreams}); only its state and
 * its store lookup are set.
 */
class ProjectorReadsTest {

    @TempDir
    Path stateDir;

    private IdleStreams streams;

    @AfterEach
    void close() {
        streams.close();
    }

    @Test
    void whileRebalancing_readsAnswer503WithRetryAfter_andNoBody() {
        streams = new IdleStreams("projector-reads-test", stateDir, KafkaStreams.State.REBALANCING, IdleStreams.NO_LOOKUP);
        var reads = new ProjectorReads(streams);

        for (Runnable read : new Runnable[] {() -> reads.checkpoint("acme", "s-1"), () -> reads.call("s-1", "c1"), reads::log}) {
            ApiException refused = catchThrowableOfType(ApiException.class, read::run);

            assertThat(refused).isNotNull();
            var response = refused.toResponse();
            assertThat(response.getStatus()).isEqualTo(503);
            assertThat(response.getHeaderString("Retry-After")).isEqualTo("1");
            assertThat(refused.body()).containsEntry("error", "unavailable").containsOnlyKeys("error", "message");
            assertThat((String) refused.body().get("message")).contains("rebalancing");
        }
        assertThat(streams.lookups()).as("no store is read while rebalancing").isZero();
    }

    @Test
    void whileAStoreIsRestoring_readsAnswer503WithRetryAfter() {
        streams = new IdleStreams("projector-reads-test", stateDir, KafkaStreams.State.RUNNING, IdleStreams.RESTORING);
        var reads = new ProjectorReads(streams);

        ApiException refused = catchThrowableOfType(ApiException.class, () -> reads.checkpoint("acme", "s-1"));

        assertThat(refused).isNotNull();
        assertThat(refused.status()).isEqualTo(503);
        assertThat(refused.toResponse().getHeaderString("Retry-After")).isEqualTo("1");
        assertThat(refused.body()).containsEntry("error", "unavailable").containsEntry("message", "the projection is restoring; try again shortly");
        assertThat(streams.lookups()).isEqualTo(1);
    }

    /**
     * A checkpoint this projector cannot read (one a newer projector stored) is rebuilt from the log, and a warm copy's
     * log may not hold every event yet (it restores apart from the checkpoints): then 503, never the fold of the events
     * it has, which is an earlier seq's checkpoint read as the session's current one.
     */
    @Test
    void givenANewerStoredCheckpoint_andACopyWhoseEventsEndBeforeIt_thenTheRead503s_neverTheFoldOfTheEventsItHas() {
        List<Event> session = session("s-1", 10);
        streams = storesOf(newer(session), MapStore.messages(session.subList(0, 5)));
        var reads = new ProjectorReads(streams);

        ApiException refused = catchThrowableOfType(ApiException.class, () -> reads.checkpoint("acme", "s-1", OptionalInt.of(0)));

        assertThat(refused).isNotNull();
        assertThat(refused.status()).isEqualTo(503);
        assertThat(refused.toResponse().getHeaderString("Retry-After")).isEqualTo("5");
    }

    /** The same while the session is erased: its tombstones go from seq 1, so the log left has no start. */
    @Test
    void givenANewerStoredCheckpoint_andALogWithoutItsFirstEvents_thenTheRead503s_neverAFoldFromALaterSeq() {
        List<Event> session = session("s-1", 10);
        streams = storesOf(newer(session), MapStore.messages(session.subList(3, 10)));
        var reads = new ProjectorReads(streams);

        ApiException refused = catchThrowableOfType(ApiException.class, () -> reads.checkpoint("acme", "s-1"));

        assertThat(refused).isNotNull();
        assertThat(refused.status()).isEqualTo(503);
    }

    @Test
    void givenANewerStoredCheckpoint_andItsWholeLog_thenTheReadIsTheLogFolded() {
        List<Event> session = session("s-1", 10);
        streams = storesOf(newer(session), MapStore.messages(session));
        var reads = new ProjectorReads(streams);

        assertThat(reads.checkpoint("acme", "s-1")).contains(fold(session));
        assertThat(reads.checkpoint("globex", "s-1")).as("another tenant's").isEmpty();
    }

    /**
     * The checkpoint rebuilt for a read still says where the session's events lie: the stored one's log position, as the
     * projector's own rebuild keeps it ({@code Projection.placed}), never the -1 of a fold that knows no offsets.
     */
    @Test
    void givenANewerStoredCheckpoint_thenTheRebuiltReadKeepsTheStoredLogPosition() {
        List<Event> session = session("s-1", 10);
        Checkpoint stored = Checkpoint.newBuilder(newer(session)).setLogPosition(new dev.tether.avro.LogPosition(3, 100L, 109L)).build();
        streams = storesOf(stored, MapStore.messages(session));
        var reads = new ProjectorReads(streams);

        assertThat(reads.checkpoint("acme", "s-1")).map(SessionProjection::position)
                .contains(new SessionProjection.Position(3, 100, 109));
    }

    /** Streams whose checkpoint store holds {@code checkpoint} and whose message store is {@code messages}, any partition. */
    private IdleStreams storesOf(Checkpoint checkpoint, MapStore<SessionEventKey, SessionEvent> messages) {
        var checkpoints = new MapStore<String, Checkpoint>(Comparator.naturalOrder()).put(checkpoint.getSessionId(), checkpoint);
        return new IdleStreams("projector-reads-test", stateDir, KafkaStreams.State.RUNNING,
                parameters -> parameters.storeName().equals(ProjectorStores.CHECKPOINTS) ? checkpoints : messages);
    }

    /** The session's checkpoint as a newer projector stored it: of a schemaVersion this one does not know. */
    private static Checkpoint newer(List<Event> session) {
        return Checkpoint.newBuilder(CheckpointAvro.toAvro(fold(session))).setSchemaVersion(SessionProjection.SCHEMA_VERSION + 1).build();
    }

    private static SessionProjection fold(List<Event> session) {
        SessionProjection state = null;
        for (Event e : session) {
            state = Projection.evolve(state, e, -1, -1);
        }
        return state;
    }

    /** {@code count} events of acme's session {@code sessionId}: its start, then user messages. */
    private static List<Event> session(String sessionId, int count) {
        return LongStream.rangeClosed(1, count).mapToObj(seq -> new Event(sessionId + "-e" + seq, sessionId, "acme", seq,
                Instant.EPOCH.plusSeconds(seq), new Actor(ActorKind.USER, "alice"), "v1", seq == 1
                        ? new SessionStarted("objective", "prompt", "model-1", "v1", ToolMode.WRITE, List.of(), null, null)
                        : new UserMessage("m" + seq, null))).toList();
    }
}
