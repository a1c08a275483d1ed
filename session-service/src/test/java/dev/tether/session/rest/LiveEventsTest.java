package dev.tether.session.rest;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tether.core.event.Actor;
import dev.tether.core.event.ActorKind;
import dev.tether.core.event.Event;
import dev.tether.core.event.SessionStarted;
import dev.tether.core.event.ToolMode;
import dev.tether.core.event.UserMessage;
import dev.tether.session.domain.Sequencer;
import dev.tether.session.domain.SessionHead;
import io.smallrye.mutiny.helpers.test.AssertSubscriber;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/** The live stream of a session's events, over a log the test moves on (no stores). */
class LiveEventsTest {

    private static final String TENANT = "tenant-a";
    private static final String SESSION = "session-1";
    private static final Instant FIRST_START = Instant.parse("2026-03-01T10:00:00Z");
    private static final Instant SECOND_START = Instant.parse("2026-03-01T10:05:00Z");

    /** One session's events under {@link #SESSION}, as the stores would have them now; replaced when it is made again. */
    private final FakeLog log = new FakeLog();

    @Test
    void aStream_endsWhenItsSessionIsErasedAndMadeAgainUnderItsId_withoutTheNewSessionsEvents() {
        log.start(FIRST_START, "first session");
        log.append(FIRST_START, "hello");
        var live = new LiveEvents(log, Duration.ofMillis(5));
        var stream = live.stream(TENANT, log.head(TENANT, SESSION).orElseThrow(), 1)
                .subscribe().withSubscriber(AssertSubscriber.create(Long.MAX_VALUE));
        stream.awaitItems(2, Duration.ofSeconds(5));

        // erased, and made again (by the same tenant) under the id, with more events than the first had
        log.start(SECOND_START, "second session");
        log.append(SECOND_START, "a");
        log.append(SECOND_START, "b");
        log.append(SECOND_START, "c");

        stream.awaitCompletion(Duration.ofSeconds(5));
        assertThat(stream.getItems()).extracting(Event::occurredAt).containsOnly(FIRST_START);
        assertThat(stream.getItems()).extracting(Event::seq).containsExactly(1L, 2L);
    }

    @Test
    void aStream_catchesUpThenFollowsItsSession_eachEventOnce() {
        log.start(FIRST_START, "first session");
        var live = new LiveEvents(log, Duration.ofMillis(5));
        var stream = live.stream(TENANT, log.head(TENANT, SESSION).orElseThrow(), 1)
                .subscribe().withSubscriber(AssertSubscriber.create(Long.MAX_VALUE));
        stream.awaitItems(1, Duration.ofSeconds(5));
        log.append(FIRST_START, "more");
        stream.awaitItems(2, Duration.ofSeconds(5));

        log.erase();

        stream.awaitCompletion(Duration.ofSeconds(5));
        assertThat(stream.getItems()).extracting(Event::seq).containsExactly(1L, 2L);
    }

    @Test
    void aStreamOfASessionMadeAgainUnderAnErasedOnesId_showsNoneOfTheErasedOnesEvents_whileTheStoreStillHoldsThem() {
        log.start(FIRST_START, "erased session");
        log.append(FIRST_START, "secret plans");
        log.append(FIRST_START, "more secret plans");
        // the sequencer erased it and took the new session's start; the event store has neither yet
        SessionHead madeAgain = log.headOnly(SECOND_START, "new session");
        var live = new LiveEvents(log, Duration.ofMillis(5));
        var stream = live.stream(TENANT, madeAgain, 1).subscribe().withSubscriber(AssertSubscriber.create(Long.MAX_VALUE));

        sleep(Duration.ofMillis(100)); // twenty polls
        assertThat(stream.getItems()).as("the erased session's events").isEmpty();

        log.start(SECOND_START, "new session"); // the store caught up
        log.append(SECOND_START, "hello");
        stream.awaitItems(2, Duration.ofSeconds(5));
        assertThat(stream.getItems()).extracting(Event::occurredAt).containsOnly(SECOND_START);
        stream.cancel();
    }

    private static void sleep(Duration duration) {
        try {
            Thread.sleep(duration.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    private static final class FakeLog implements LiveEvents.Log {
        private final List<Event> events = new CopyOnWriteArrayList<>();
        private volatile SessionHead head;

        synchronized void start(Instant at, String objective) {
            events.clear();
            var started = new SessionStarted(objective, "", "model-x", "v1", ToolMode.WRITE, List.of(), null, null, List.of(), null);
            add(new Event("ev-" + at + "-1", SESSION, TENANT, 1, at, new Actor(ActorKind.SYSTEM, "agent-1"), "v1", started));
        }

        synchronized void append(Instant start, String text) {
            long seq = events.size() + 1;
            add(new Event("ev-" + start + "-" + seq, SESSION, TENANT, seq, start, new Actor(ActorKind.USER, "agent-1"), "v1",
                    new UserMessage(text, null)));
        }

        /** The head of a session started at {@code at}, while the events stay those of the session before. */
        synchronized SessionHead headOnly(Instant at, String objective) {
            var started = new SessionStarted(objective, "", "model-x", "v1", ToolMode.WRITE, List.of(), null, null, List.of(), null);
            head = Sequencer.evolve(null, new Event("ev-" + at + "-1", SESSION, TENANT, 1, at, new Actor(ActorKind.SYSTEM, "agent-1"),
                    "v1", started));
            return head;
        }

        synchronized void erase() {
            events.clear();
            head = null;
        }

        private void add(Event event) {
            events.add(event);
            head = Sequencer.evolve(event.seq() == 1 ? null : head, event);
        }

        @Override
        public Optional<SessionHead> head(String tenantId, String sessionId) {
            SessionHead h = head;
            return h != null && h.tenantId().equals(tenantId) && h.sessionId().equals(sessionId) ? Optional.of(h) : Optional.empty();
        }

        @Override
        public List<Event> events(String sessionId, long fromSeq, int limit) {
            var page = new ArrayList<Event>();
            for (Event e : events) {
                if (e.seq() >= fromSeq && page.size() < limit) {
                    page.add(e);
                }
            }
            return page;
        }
    }
}
