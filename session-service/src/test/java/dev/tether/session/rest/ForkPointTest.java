package dev.tether.session.rest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tether.core.event.Actor;
import dev.tether.core.event.ActorKind;
import dev.tether.core.event.Event;
import dev.tether.core.event.SessionStarted;
import dev.tether.core.event.ToolMode;
import dev.tether.core.event.UserMessage;
import dev.tether.kit.service.rest.ApiException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** How a fork reads its parent's log through the fork's seq ({@link SessionResource#forkPoint}). */
class ForkPointTest {

    private static final Instant AT = Instant.parse("2026-03-01T10:00:00Z");

    @Test
    void aForkAtTheEndOfALongSession_holdsAPageOfItsLogAtATime_andFoldsItAll() {
        long atSeq = 3 * SessionResource.FORK_PAGE + 7;
        var asked = new ArrayList<Integer>();

        var point = SessionResource.forkPoint(atSeq, (from, limit) -> {
            asked.add(limit);
            return log(from, Math.min(atSeq + 50, from + limit - 1)); // may read past the fork's seq, as a store may
        });

        assertThat(asked).allSatisfy(limit -> assertThat(limit).isLessThanOrEqualTo(SessionResource.FORK_PAGE));
        assertThat(point.at().seq()).isEqualTo(atSeq);
        assertThat(point.head().lastSeq()).isEqualTo(atSeq);
        assertThat(point.first()).isInstanceOf(SessionStarted.class);
    }

    @Test
    void aForkAtTheFirstSeq_readsOneEvent() {
        var point = SessionResource.forkPoint(1, (from, limit) -> log(from, from + limit - 1));

        assertThat(point.at().seq()).isEqualTo(1);
        assertThat(point.head().lastSeq()).isEqualTo(1);
    }

    @Test
    void aLogWithAGap_isUnavailable_notAFork() {
        assertThatThrownBy(() -> SessionResource.forkPoint(5, (from, limit) -> from == 1 ? log(1, 2) : log(from + 1, from + 2)))
                .isInstanceOf(ApiException.class).extracting(e -> ((ApiException) e).status()).isEqualTo(503);
        assertThatThrownBy(() -> SessionResource.forkPoint(5, (from, limit) -> from == 1 ? log(1, 2) : List.of()))
                .isInstanceOf(ApiException.class).extracting(e -> ((ApiException) e).status()).isEqualTo(503);
    }

    private static List<Event> log(long from, long to) {
        var events = new ArrayList<Event>();
        for (long seq = from; seq <= to; seq++) {
            events.add(seq == 1
                    ? new Event("ev-1", "parent", "tenant-a", 1, AT, new Actor(ActorKind.SYSTEM, "agent-1"), "v1",
                            new SessionStarted("o", "", "model-x", "v1", ToolMode.WRITE, List.of(), null, null, List.of(), null))
                    : new Event("ev-" + seq, "parent", "tenant-a", seq, AT, new Actor(ActorKind.USER, "agent-1"), "v1",
                            new UserMessage("m" + seq, null)));
        }
        return events;
    }
}
