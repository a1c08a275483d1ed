package dev.tether.projector.rest;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tether.core.event.Actor;
import dev.tether.core.event.ActorKind;
import dev.tether.core.event.Event;
import dev.tether.core.event.EventPayload;
import dev.tether.core.event.SessionForked;
import dev.tether.core.event.SessionStarted;
import dev.tether.core.event.ToolMode;
import dev.tether.core.event.UserMessage;
import dev.tether.kit.service.rest.EventPage;
import dev.tether.projector.domain.ContextInput;
import dev.tether.projector.domain.ContextSource;
import dev.tether.projector.domain.Projection;
import dev.tether.projector.domain.SessionProjection;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * {@link RoutedEvents}: a fork held here whose parent another instance holds reads the parent's events there, page by
 * page ({@link EventPage}), once per request, up to the parent's last seq; a session held here is read here; one the
 * owner does not have reads as empty.
 */
class RoutedEventsTest {

    private static final Instant T0 = Instant.parse("2026-03-01T09:00:00Z");
    private static final SessionStarted START = new SessionStarted("Rename Foo to Bar", "Be careful.", "model-1", "v1", ToolMode.WRITE,
            List.of(), null, null);

    private final Map<String, List<Event>> here = new HashMap<>();
    private final Map<String, List<Event>> there = new HashMap<>();
    private final List<String> ownerCalls = new ArrayList<>();
    private final ContextSource.Events local = (id, from, to) -> slice(here.getOrDefault(id, List.of()), from, to);

    /** The other instance, answering at most two events a page ({@code GET …/events?fromSeq&toSeq&limit} there). */
    private final RoutedEvents.Owner owner = (id, from, to) -> {
        if (here.containsKey(id)) {
            return Optional.empty();
        }
        ownerCalls.add(id + ":" + from + ".." + to);
        List<Event> log = there.get(id);
        return Optional.of(log == null ? EventPage.none(from) : EventPage.of(slice(log, from, Math.min(to, from + 1)), from, log.size()));
    };

    @Test
    void givenParentOnAnotherInstance_thenTheForksContextReadsItsPrefixThere_pageByPage_once() {
        there.put("parent", log("parent", START, user("p1"), user("p2"), user("p3"), user("after the fork")));
        here.put("fork", log("fork", forkOf("parent", 4), user("f1")));
        var events = new RoutedEvents(local, owner);

        ContextInput input = ContextSource.at(events, stateOf(here.get("fork")), 2).orElseThrow();

        assertThat(input.events()).extracting(e -> e.sessionId() + "#" + e.seq()).containsExactly("parent#2", "parent#3", "parent#4", "fork#2");
        assertThat(ownerCalls).as("1..4 in pages of two, then served from what was fetched").containsExactly("parent:1..4", "parent:3..4");
    }

    @Test
    void givenParentTheOwnerDoesNotHave_thenTheForkHasNoContext() {
        here.put("fork", log("fork", forkOf("parent", 2), user("f1")));

        assertThat(ContextSource.at(new RoutedEvents(local, owner), stateOf(here.get("fork")), 2)).isEmpty();
        assertThat(ownerCalls).containsExactly("parent:1..2");
    }

    @Test
    void givenARangePastTheParentsEnd_thenItsLastSeqEndsTheReading_withoutAskingForMore() {
        there.put("parent", log("parent", START, user("p1"), user("p2")));
        var events = new RoutedEvents(local, owner);

        List<Event> read = events.range("parent", 1, 10);

        assertThat(read).extracting(Event::seq).containsExactly(1L, 2L, 3L);
        assertThat(ownerCalls).as("1..10 in pages of two: the second page reaches its last seq 3").containsExactly("parent:1..10",
                "parent:3..10");
    }

    @Test
    void givenParentHeldHere_thenItIsReadHere() {
        here.put("parent", log("parent", START, user("p1")));
        here.put("fork", log("fork", forkOf("parent", 2), user("f1")));

        ContextInput input = ContextSource.at(new RoutedEvents(local, owner), stateOf(here.get("fork")), 2).orElseThrow();

        assertThat(input.events()).extracting(e -> e.sessionId() + "#" + e.seq()).containsExactly("parent#2", "fork#2");
        assertThat(ownerCalls).isEmpty();
    }

    private static List<Event> slice(List<Event> log, long from, long to) {
        return log.stream().filter(e -> e.seq() >= from && e.seq() <= to).toList();
    }

    private static List<Event> log(String sessionId, EventPayload... payloads) {
        var list = new ArrayList<Event>();
        for (EventPayload p : payloads) {
            long seq = list.size() + 1L;
            list.add(new Event(sessionId + "-e" + seq, sessionId, "acme", seq, T0.plusSeconds(seq), new Actor(ActorKind.USER, "alice"), "v1", p));
        }
        return list;
    }

    private static SessionProjection stateOf(List<Event> log) {
        SessionProjection state = null;
        for (Event e : log) {
            state = Projection.evolve(state, e, -1, -1);
        }
        return state;
    }

    private static SessionForked forkOf(String parent, long atSeq) {
        return new SessionForked(parent, atSeq, START.objective(), START.systemPrompt(), START.modelId(), START.harnessVersion(),
                START.toolMode(), START.constraints());
    }

    private static UserMessage user(String text) {
        return new UserMessage(text, null);
    }
}
