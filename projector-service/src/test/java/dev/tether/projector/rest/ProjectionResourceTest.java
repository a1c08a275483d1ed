package dev.tether.projector.rest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tether.core.event.Actor;
import dev.tether.core.event.ActorKind;
import dev.tether.core.event.Event;
import dev.tether.core.event.UserMessage;
import dev.tether.kit.service.rest.ApiException;
import dev.tether.projector.domain.LazyEvents;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;

/** What a context read answers when the session's events go while it reads them a page at a time. */
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
