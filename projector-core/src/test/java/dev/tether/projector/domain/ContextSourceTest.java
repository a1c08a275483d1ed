package dev.tether.projector.domain;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tether.core.event.Actor;
import dev.tether.core.event.ActorKind;
import dev.tether.core.event.ContextCompacted;
import dev.tether.core.event.Event;
import dev.tether.core.event.EventPayload;
import dev.tether.core.event.SessionForked;
import dev.tether.core.event.SessionStarted;
import dev.tether.core.event.ToolMode;
import dev.tether.core.event.UserMessage;
import dev.tether.projector.context.ContextFormat;
import dev.tether.projector.context.ContextRenderer;
import dev.tether.projector.context.ModelContext;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * {@link ContextSource} for a fork: the parent's context as it was at the fork point (its start, its
 * compaction then, if any, and its events up to the fork point), followed by the fork's own events.
 */
class ContextSourceTest {

    private static final Instant T0 = Instant.parse("2026-03-01T09:00:00Z");
    private static final SessionStarted START = new SessionStarted("Rename Foo to Bar", "Be careful.", "model-1", "v1", ToolMode.WRITE,
            List.of("keep the tests green"), null, null);

    private final Map<String, List<Event>> logs = new HashMap<>();
    private final ContextSource.Events events = (id, from, to) -> logs.getOrDefault(id, List.of()).stream()
            .filter(e -> e.seq() >= from && e.seq() <= to).toList();

    @Test
    void givenForkOfUncompactedParent_thenParentsEventsUpToAtSeqThenForksOwn() {
        log("parent", START, user("parent one"), user("parent two"), user("parent three"), user("parent after the fork"));
        log("fork", forkOf("parent", 4), user("fork one"), user("fork two"));

        ContextInput input = ContextSource.at(events, stateOf("fork"), 3).orElseThrow();

        assertThat(input.start()).isEqualTo(START);
        assertThat(input.compaction()).isNull();
        assertThat(input.facts()).isEqualTo(Facts.start(START.objective(), START.constraints()));
        assertThat(input.events()).extracting(e -> e.sessionId() + "#" + e.seq())
                .containsExactly("parent#2", "parent#3", "parent#4", "fork#2", "fork#3");
        assertThat(input.tail().lastSeq()).as("the volatile tail is the fork's own").isEqualTo(3);
        assertThat(userTexts(input)).containsExactly("parent one", "parent two", "parent three", "fork one", "fork two");
    }

    @Test
    void givenForkOfUncompactedParent_thenItsContextStartsWithTheParentsContextAtTheForkPointMinusItsTail() {
        log("parent", START, user("parent one"), user("parent two"), user("parent after the fork"));
        log("fork", forkOf("parent", 3), user("fork one"));

        ModelContext parentAtFork = ContextRenderer.render(ContextSource.at(events, stateOf("parent", 3), 3).orElseThrow(), ContextFormat.OPENAI);
        ModelContext fork = ContextRenderer.render(ContextSource.at(events, stateOf("fork"), 2).orElseThrow(), ContextFormat.OPENAI);

        var parentWithoutTail = parentAtFork.messages().subList(0, parentAtFork.messages().size() - 1);
        assertThat(fork.messages()).startsWith(parentWithoutTail.toArray(Map[]::new));
        assertThat(fork.messages().get(parentWithoutTail.size())).containsEntry("content", "fork one");
    }

    @Test
    void givenForkAfterParentsCompaction_thenParentsSummaryAndFactsThenEventsAfterItThenForksOwn() {
        log("parent", START, user("one"), user("two"), new ContextCompacted(3, "The user said one and two.", null, List.of(1L, 2L, 3L)),
                user("three"), user("parent after the fork"));
        log("fork", forkOf("parent", 5), user("fork one"));
        SessionProjection parentAtFork = stateOf("parent", 5);

        ContextInput input = ContextSource.at(events, stateOf("fork"), 2).orElseThrow();

        assertThat(input.compaction().summary()).isEqualTo("The user said one and two.");
        assertThat(input.facts()).as("the facts the parent captured at its compaction").isEqualTo(parentAtFork.compaction().facts());
        assertThat(input.events()).extracting(e -> e.sessionId() + "#" + e.seq()).containsExactly("parent#5", "fork#2");
        List<Object> contents = ContextRenderer.render(input, ContextFormat.OPENAI).messages().stream().map(m -> m.get("content")).toList();
        assertThat(contents).contains("Session so far:\nThe user said one and two.", "three", "fork one")
                .doesNotContain("one", "two", "parent after the fork");
    }

    @Test
    void givenParentCompactedOnlyAfterTheForkPoint_thenTheForkDoesNotSeeThatCompaction() {
        log("parent", START, user("one"), user("two"), new ContextCompacted(3, "Later summary.", null, List.of(1L, 2L, 3L)));
        log("fork", forkOf("parent", 2), user("fork one"));

        ContextInput input = ContextSource.at(events, stateOf("fork"), 2).orElseThrow();

        assertThat(input.compaction()).isNull();
        assertThat(input.events()).extracting(e -> e.sessionId() + "#" + e.seq()).containsExactly("parent#2", "fork#2");
    }

    @Test
    void givenForkThatCompactedItself_thenItsOwnSummaryReplacesTheParentsEvents() {
        log("parent", START, user("parent one"));
        log("fork", forkOf("parent", 2), user("fork one"), new ContextCompacted(2, "Fork summary.", null, List.of(1L, 2L)), user("fork two"));

        ContextInput input = ContextSource.at(events, stateOf("fork"), 4).orElseThrow();

        assertThat(input.start().objective()).isEqualTo(START.objective());
        assertThat(input.start().systemPrompt()).isEqualTo(START.systemPrompt());
        assertThat(input.compaction().summary()).isEqualTo("Fork summary.");
        assertThat(input.events()).extracting(e -> e.sessionId() + "#" + e.seq()).containsExactly("fork#4");
    }

    @Test
    void givenParentGone_thenNoInput() {
        log("parent", START, user("parent one"));
        log("fork", forkOf("parent", 5), user("fork one"));

        assertThat(ContextSource.at(events, stateOf("fork"), 2)).isEqualTo(Optional.empty());
    }

    // ---------------------------------------------------------------------------------------------

    private void log(String sessionId, EventPayload... payloads) {
        var list = new ArrayList<Event>();
        for (EventPayload p : payloads) {
            long seq = list.size() + 1L;
            list.add(new Event(sessionId + "-e" + seq, sessionId, "acme", seq, T0.plusSeconds(seq), new Actor(ActorKind.USER, "alice"), "v1", p));
        }
        logs.put(sessionId, list);
    }

    private SessionProjection stateOf(String sessionId) {
        return stateOf(sessionId, Long.MAX_VALUE);
    }

    private SessionProjection stateOf(String sessionId, long atSeq) {
        SessionProjection state = null;
        for (Event e : logs.get(sessionId)) {
            if (e.seq() <= atSeq) {
                state = Projection.evolve(state, e, -1, -1);
            }
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

    private static List<String> userTexts(ContextInput input) {
        return input.events().stream().map(Event::payload).filter(UserMessage.class::isInstance).map(p -> ((UserMessage) p).content()).toList();
    }
}
