package dev.tether.projector.rest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tether.core.event.Actor;
import dev.tether.core.event.ActorKind;
import dev.tether.core.event.Event;
import dev.tether.core.event.EventPayload;
import dev.tether.core.event.SessionForked;
import dev.tether.core.event.SessionStarted;
import dev.tether.core.event.ToolMode;
import dev.tether.core.event.UserMessage;
import dev.tether.kit.service.rest.ApiException;
import dev.tether.projector.domain.ContextSource;
import dev.tether.projector.domain.LazyEvents;
import dev.tether.projector.domain.Projection;
import dev.tether.projector.domain.SessionProjection;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;

/** What a context read answers when the session's events, or its parent's, go while it reads them a page at a time. */
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
