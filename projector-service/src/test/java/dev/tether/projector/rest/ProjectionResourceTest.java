package dev.tether.projector.rest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tether.core.event.Actor;
import dev.tether.core.event.ActorKind;
import dev.tether.core.event.AssistantMessage;
import dev.tether.core.event.AuthorizationBasis;
import dev.tether.core.event.Event;
import dev.tether.core.event.EventPayload;
import dev.tether.core.event.SessionForked;
import dev.tether.core.event.SessionStarted;
import dev.tether.core.event.TokenUsage;
import dev.tether.core.event.ToolCall;
import dev.tether.core.event.ToolCallAuthorized;
import dev.tether.core.event.ToolMode;
import dev.tether.core.event.ToolResult;
import dev.tether.core.event.ToolStatus;
import dev.tether.core.event.UserMessage;
import dev.tether.kit.json.EventJson;
import dev.tether.kit.service.rest.ApiException;
import dev.tether.projector.domain.CallRecord;
import dev.tether.projector.domain.ContextSource;
import dev.tether.projector.domain.LazyEvents;
import dev.tether.projector.domain.Projection;
import dev.tether.projector.domain.SessionProjection;
import dev.tether.projector.kafka.MapStore;
import dev.tether.projector.kafka.SessionLog;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;

/**
 * What a context read answers when the session's events, or its parent's, go while it reads them a page at a time; what
 * a read of the checkpoint at a past seq, or of a call's story, answers when the log it reads lacks some of its events.
 */
class ProjectionResourceTest {

    private List<Event> log = LongStream.rangeClosed(1, 1_000).mapToObj(seq -> new Event("e" + seq, "s-1", "acme", seq,
            Instant.EPOCH.plusSeconds(seq), new Actor(ActorKind.USER, "alice"), "v1", new UserMessage("m" + seq, null))).toList();
    private final LazyEvents events = new LazyEvents((id, from, to) -> log.stream().filter(e -> e.seq() >= from && e.seq() <= to).toList(),
            "s-1", 1, 1_000, Long.MIN_VALUE);
    private final AtomicInteger rechecks = new AtomicInteger();

    @Test
    void givenTheSessionErasedBetweenTwoPages_thenTheReadAnswersAsAfterTheErasure_404() {
        Runnable erased = () -> {
            rechecks.incrementAndGet();
            throw ApiException.notFound("session");
        };

        assertThatThrownBy(() -> ProjectionResource.readingPages(() -> readAll(true), erased))
                .isInstanceOfSatisfying(ApiException.class, e -> assertThat(e.status()).isEqualTo(404));
        assertThat(rechecks).hasValue(1);
    }

    @Test
    void givenTheSessionStillThere_thenItsMissingEventsFailTheRead() {
        assertThatThrownBy(() -> ProjectionResource.readingPages(() -> readAll(true), rechecks::incrementAndGet))
                .isInstanceOf(LazyEvents.MissingEvents.class);
        assertThat(rechecks).hasValue(1);
    }

    @Test
    void givenEveryPageWhole_thenNothingIsCheckedAgain() {
        assertThat(ProjectionResource.readingPages(() -> readAll(false), rechecks::incrementAndGet)).hasSize(1_000);
        assertThat(rechecks).hasValue(0);
    }

    @Test
    void givenAForksParentErasedBetweenTwoPages_thenTheReadAnswersAsAfterTheErasure_410() {
        var logs = new HashMap<String, List<Event>>();
        logs.put("parent", events("parent", new SessionStarted("objective", "prompt", "model-1", "v1", ToolMode.WRITE, List.of(), null,
                null), 500));
        logs.put("fork", events("fork", new SessionForked("parent", 500, "objective", "prompt", "model-1", "v1", ToolMode.WRITE,
                List.of()), 100));
        ContextSource.Events log = (id, from, to) -> logs.getOrDefault(id, List.of()).stream()
                .filter(e -> e.seq() >= from && e.seq() <= to).toList();
        SessionProjection fork = null;
        for (Event e : logs.get("fork")) {
            fork = Projection.evolve(fork, e, -1, -1);
        }
        var bases = new ContextSource.ForkBases();
        SessionProjection state = fork;
        ProjectionResource.contextInput(log, state, bases); // the parent's part kept
        List<Event> input = ProjectionResource.contextInput(log, state, bases).events();

        assertThatThrownBy(() -> ProjectionResource.readingPages(() -> {
            for (int i = input.size() - 1; i >= 0; i--) {
                input.get(i);
                if (i == input.size() - 100) {
                    logs.remove("parent"); // erased once the fork's own events are read
                }
            }
            return input;
        }, () -> ProjectionResource.contextInput(log, state, bases))).isInstanceOfSatisfying(ApiException.class,
                e -> assertThat(e.status()).isEqualTo(410));
    }

    /**
     * A warm copy restores a partition's events apart from its checkpoints, so its read may lack events the checkpoint
     * names (the first, a compaction's): 503, try again; the owner's own log lacking them is a failure; a fork's parent
     * gone is 410 from either.
     */
    @Test
    void givenEventsMissingOnceTheSessionIsFoundAgain_thenAWarmCopyAnswers503_theOwnerFails_andAGoneParentIs410() {
        Runnable missing = () -> {
            throw new LazyEvents.MissingEvents("the log of session s-1 does not hold seq 4");
        };
        Runnable parentGone = () -> {
            throw new ApiException(410, "parent_gone", "gone");
        };

        assertThatThrownBy(() -> ProjectionResource.stillThere(true, missing)).isInstanceOfSatisfying(ApiException.class,
                e -> assertThat(e.status()).isEqualTo(503));
        assertThatThrownBy(() -> ProjectionResource.stillThere(true, () -> { })).as("a page of the copy's lacked a seq")
                .isInstanceOfSatisfying(ApiException.class, e -> assertThat(e.status()).isEqualTo(503));
        assertThatThrownBy(() -> ProjectionResource.stillThere(false, missing)).isInstanceOf(LazyEvents.MissingEvents.class);
        assertThatCode(() -> ProjectionResource.stillThere(false, () -> { })).as("the read's own failure is rethrown by readingPages")
                .doesNotThrowAnyException();
        for (boolean fromCopy : new boolean[] {true, false}) {
            assertThatThrownBy(() -> ProjectionResource.stillThere(fromCopy, parentGone)).isInstanceOfSatisfying(ApiException.class,
                    e -> assertThat(e.status()).isEqualTo(410));
        }
    }

    @Test
    void givenEveryEventThroughAtSeq_thenTheCheckpointAtSeqIsTheFoldStoppedThere() {
        List<Event> session = events("s-2", start(), 10);
        var messages = MapStore.messages(session);

        SessionProjection at = ProjectionResource.at(fold(session, 10), 7L, new SessionLog(messages), rechecks::incrementAndGet);

        assertThat(at).isEqualTo(fold(session, 7));
        assertThat(rechecks).hasValue(0);
    }

    /**
     * A warm copy restores a partition's events apart from its checkpoints: its checkpoint may be at seq 10 while its
     * events reach seq 5 only. The checkpoint "at seq 8" is then not the fold of seqs 1 to 5 (seq 5's), but 503.
     */
    @Test
    void givenAWarmCopyWhoseEventsEndBeforeAtSeq_thenTheCheckpointAtSeqIs503_neverAnEarlierSeqs() {
        List<Event> session = events("s-2", start(), 10);
        var copy = MapStore.messages(session.subList(0, 5));

        assertThatThrownBy(() -> ProjectionResource.at(fold(session, 10), 8L, new SessionLog(copy),
                () -> ProjectionResource.stillThere(true, () -> rechecks.incrementAndGet())))
                .isInstanceOfSatisfying(ApiException.class, e -> assertThat(e.status()).isEqualTo(503));
    }

    /**
     * An erasure's tombstones go from seq 1, and the checkpoint with the first: a read that found the checkpoint just
     * before folds a log without its start. It answers as a read begun after the erasure (404), never a checkpoint
     * folded from seq 2 on, one the session never had.
     */
    @Test
    void givenTheSessionErasedFromSeq1WhileTheCheckpointAtSeqIsRead_thenItAnswers404_neverAFoldOfItsLaterEvents() {
        List<Event> session = events("s-2", start(), 10);
        var erasing = MapStore.messages(session.subList(1, 10));

        assertThatThrownBy(() -> ProjectionResource.at(fold(session, 10), 8L, new SessionLog(erasing), () -> {
            rechecks.incrementAndGet();
            throw ApiException.notFound("session");
        })).isInstanceOfSatisfying(ApiException.class, e -> assertThat(e.status()).isEqualTo(404));
        assertThat(rechecks).hasValue(1);
    }

    @Test
    void givenAnAtSeqOutsideTheLog_thenItIs400NamingAtSeq() {
        List<Event> session = events("s-2", start(), 10);
        var messages = MapStore.messages(session);
        for (long atSeq : new long[] {0, -1, 11, Long.MAX_VALUE, Long.MIN_VALUE}) {
            assertThatThrownBy(() -> ProjectionResource.at(fold(session, 10), atSeq, new SessionLog(messages), rechecks::incrementAndGet))
                    .isInstanceOfSatisfying(ApiException.class, e -> {
                        assertThat(e.status()).isEqualTo(400);
                        assertThat(e.body()).containsEntry("field", "atSeq");
                    });
        }
    }

    @Test
    void givenACallsWholeStory_thenItsRecordCarriesTheEventsOfIt() {
        List<Event> session = callSession();

        var story = ProjectionResource.story(callRecord(), new SessionLog(MapStore.messages(session)), new EventJson(), rechecks::incrementAndGet);

        assertThat(story.get("requestedBy").get("seq").asLong()).isEqualTo(2);
        assertThat(story.get("authorizedBy").get("seq").asLong()).isEqualTo(3);
        assertThat(story.get("result").get("seq").asLong()).isEqualTo(4);
        assertThat(rechecks).hasValue(0);
    }

    /**
     * An erasure takes the call records with the session's first tombstone, and the events one tombstone at a time: a
     * read that found the record a moment before finds its events gone. It answers as a read begun after the erasure
     * (404), never a 500.
     */
    @Test
    void givenTheSessionErasedOnceTheCallsRecordIsRead_thenTheStoryAnswers404() {
        List<Event> session = callSession();
        var erasing = new SessionLog(MapStore.messages(session.subList(2, session.size())));

        assertThatThrownBy(() -> ProjectionResource.story(callRecord(), erasing, new EventJson(), () -> {
            rechecks.incrementAndGet();
            throw ApiException.notFound("session");
        })).isInstanceOfSatisfying(ApiException.class, e -> assertThat(e.status()).isEqualTo(404));
        assertThat(rechecks).hasValue(1);
    }

    /** A start, and call c1: asked for at seq 2, authorized at 3, answered at 4. */
    private static List<Event> callSession() {
        List<EventPayload> payloads = List.of(start(),
                new AssistantMessage("reading", null, List.of(new ToolCall("c1", "read_file", "{}")), new TokenUsage(1, 1)),
                new ToolCallAuthorized("c1", AuthorizationBasis.POLICY),
                new ToolResult("c1", "s-3/2/c1", ToolStatus.OK, "contents", null));
        return LongStream.rangeClosed(1, payloads.size()).mapToObj(seq -> new Event("s-3-e" + seq, "s-3", "acme", seq,
                Instant.EPOCH.plusSeconds(seq), new Actor(ActorKind.MODEL, "worker-a"), "v1", payloads.get((int) seq - 1))).toList();
    }

    private static CallRecord callRecord() {
        return CallRecord.requested("s-3", "c1", "read_file", "{}", 2).authorized(3, "POLICY", null).finished(4, ToolStatus.OK);
    }

    private static SessionStarted start() {
        return new SessionStarted("objective", "prompt", "model-1", "v1", ToolMode.WRITE, List.of(), null, null);
    }

    /** The checkpoint of {@code session} at {@code seq}: its events through it, folded. */
    private static SessionProjection fold(List<Event> session, long seq) {
        SessionProjection state = null;
        for (Event e : session.subList(0, Math.toIntExact(seq))) {
            state = Projection.evolve(state, e, -1, -1);
        }
        return state;
    }

    /** {@code count} events of {@code sessionId}, the first {@code first}, user messages after it. */
    private static List<Event> events(String sessionId, EventPayload first, int count) {
        return LongStream.rangeClosed(1, count).mapToObj(seq -> new Event(sessionId + "-e" + seq, sessionId, "acme", seq,
                Instant.EPOCH.plusSeconds(seq), new Actor(ActorKind.USER, "alice"), "v1",
                seq == 1 ? first : new UserMessage(sessionId + " " + seq, null))).toList();
    }

    /** Reads the events from the newest back; with {@code erase}, the log is emptied after the newest page. */
    private List<Event> readAll(boolean erase) {
        var read = new ArrayList<Event>();
        for (int i = events.size() - 1; i >= 0; i--) {
            read.add(events.get(i));
            if (erase && i == events.size() - 1) {
                log = List.of();
            }
        }
        return read;
    }
}
