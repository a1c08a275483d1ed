package dev.tether.cli.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tether.avro.Checkpoint;
import dev.tether.avro.SessionEvent;
import dev.tether.core.event.Actor;
import dev.tether.core.event.ActorKind;
import dev.tether.core.event.Event;
import dev.tether.core.event.EventPayload;
import dev.tether.core.event.SessionStarted;
import dev.tether.core.event.ToolMode;
import dev.tether.core.event.UserMessage;
import dev.tether.kit.kafka.EventAvro;
import dev.tether.kit.kafka.SessionEventKey;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The replay's fold over records of session-events, without a broker. */
class LogFoldTest {

    private final LogFold fold = new LogFold();
    private long offset;

    @Test
    void aGaplessLog_isFoldedIntoTheSessionsCheckpoint() {
        accept("s1", 1, started());
        accept("s1", 2, new UserMessage("hello", null));
        accept("s2", 1, started());
        accept("s1", 3, new UserMessage("again", null));

        assertThat(fold.events()).isEqualTo(4);
        assertThat(fold.sessions()).isEqualTo(2);
        assertThat(fold.problems()).isEmpty();
        Checkpoint s1 = fold.checkpoint("s1");
        assertThat(s1.getLastSeq()).isEqualTo(3);
        assertThat(s1.getObjective()).isEqualTo("Rename Foo to Bar");
        // the fold keeps where each event was read: the projector's checkpoint says the same
        assertThat(s1.getLogPosition().getFirstOffset()).isEqualTo(0);
        assertThat(s1.getLogPosition().getLastOffset()).isEqualTo(3);
    }

    @Test
    void aGap_isReportedWithWhereItIs_andTheSessionIsFoldedNoFurther() {
        accept("s1", 1, started());
        accept("s1", 3, new UserMessage("after a gap", null));
        accept("s1", 4, new UserMessage("later", null));

        assertThat(fold.problems()).containsExactly("s1: seq 3 follows seq 1 (offset 1 of partition 0)");
        assertThat(fold.checkpoint("s1")).isNull();
        assertThat(fold.events()).isEqualTo(3);
    }

    @Test
    void aLogThatDoesNotStartAtSeqOne_isAProblem() {
        accept("s1", 2, new UserMessage("no start", null));

        assertThat(fold.problems()).containsExactly("s1: its log starts at seq 2 (offset 0 of partition 0)");
    }

    @Test
    void aRecordWhoseKeyDoesNotMatchItsEvent_isAProblem() {
        fold.accept(new SessionEventKey("s1", 1), avro("other", 1, started()), 0, 7);

        assertThat(fold.problems()).containsExactly("s1: the record at offset 7 of partition 0 is keyed s1/1 but holds other/1");
    }

    @Test
    void anEventTheFoldRefuses_isAProblem_namingTheSeqAndType() {
        accept("s1", 1, started());
        accept("s1", 2, started());

        assertThat(fold.problems()).singleElement().asString().startsWith("s1: folding seq 2 (session_started) failed: ");
    }

    @Test
    void tombstones_dropTheSession_andAreCounted() {
        accept("s1", 1, started());
        accept("s1", 2, new UserMessage("hello", null));
        accept("s2", 1, started());
        fold.accept(new SessionEventKey("s1", 1), null, 0, offset++);
        fold.accept(new SessionEventKey("s1", 2), null, 0, offset++);

        assertThat(fold.events()).isEqualTo(3);
        assertThat(fold.tombstones()).isEqualTo(2);
        assertThat(fold.sessions()).isEqualTo(1);
        assertThat(fold.erasedSessions()).isEqualTo(1);
        assertThat(fold.checkpoint("s1")).isNull();
    }

    @Test
    void whatReplayIntoWrites_isOneCheckpointPerFoldedSession_andEveryErasedSession() {
        accept("s1", 1, started());
        accept("s1", 2, new UserMessage("hello", null));
        accept("s2", 1, started());
        accept("gap", 1, started());
        accept("gap", 3, new UserMessage("after a gap", null));
        accept("gone", 1, started());
        fold.accept(new SessionEventKey("gone", 1), null, 0, offset++);

        assertThat(fold.checkpoints()).containsOnlyKeys("s1", "s2"); // the session with a gap is reported, not written
        assertThat(fold.checkpoints().get("s1")).isEqualTo(fold.checkpoint("s1"));
        assertThat(fold.checkpoints().get("s1").getLastSeq()).isEqualTo(2);
        assertThat(fold.erased()).containsExactly("gone");
        assertThat(fold.tombstoned()).containsExactly("gone");
    }

    @Test
    void aSessionErasedThenStartedAgainWithAProblem_isTombstonedByReplayInto_soNoCheckpointOfTheErasedOneOutlivesIt() {
        accept("reused", 1, started("the erased session's objective"));
        fold.accept(new SessionEventKey("reused", 1), null, 0, offset++);
        accept("reused", 1, started("a new session under the id"));
        accept("reused", 3, new UserMessage("after a gap", null));
        accept("fine", 1, started());
        fold.accept(new SessionEventKey("fine", 1), null, 0, offset++);
        accept("fine", 1, started("started again, cleanly"));

        assertThat(fold.problems()).containsExactly("reused: seq 3 follows seq 1 (offset 3 of partition 0)");
        assertThat(fold.checkpoints()).containsOnlyKeys("fine");
        assertThat(fold.tombstoned()).containsExactly("reused"); // "fine" is written again, which replaces its old checkpoint
    }

    @Test
    void theComparison_tellsEqualFromDifferentBehindAheadAndMissing() {
        for (String id : List.of("equal", "differs", "behind", "ahead", "missing")) {
            accept(id, 1, started(id));
            accept(id, 2, new UserMessage("hello", null));
        }
        Checkpoint differs = Checkpoint.newBuilder(fold.checkpoint("differs")).setObjective("something else").build();
        Checkpoint behind = Checkpoint.newBuilder(fold.checkpoint("behind")).setLastSeq(1).build();
        Checkpoint ahead = Checkpoint.newBuilder(fold.checkpoint("ahead")).setLastSeq(3).build();

        LogFold.Verdicts v = fold.compare(Map.of("equal", fold.checkpoint("equal"), "differs", differs, "behind", behind, "ahead", ahead));

        assertThat(v.equal()).isEqualTo(1);
        assertThat(v.differ()).containsExactly("differs (first in field objective)");
        assertThat(v.behind()).containsExactly("behind");
        assertThat(v.ahead()).containsExactly("ahead");
        assertThat(v.missing()).containsExactly("missing");
    }

    private void accept(String sessionId, long seq, EventPayload payload) {
        fold.accept(new SessionEventKey(sessionId, seq), avro(sessionId, seq, payload), 0, offset++);
    }

    private static SessionEvent avro(String sessionId, long seq, EventPayload payload) {
        return EventAvro.toAvro(new Event("e-" + sessionId + "-" + seq, sessionId, "acme", seq, Instant.parse("2026-11-29T10:00:00Z").plusSeconds(seq),
                new Actor(ActorKind.USER, "acme-agent"), "v1", payload));
    }

    private static SessionStarted started() {
        return started("Rename Foo to Bar");
    }

    private static SessionStarted started(String objective) {
        return new SessionStarted(objective, "Be careful.", "claude-sonnet-4", "v1", ToolMode.WRITE, List.of(), null, null);
    }
}
