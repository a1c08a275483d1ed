package dev.tether.projector.domain;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tether.core.event.Actor;
import dev.tether.core.event.ActorKind;
import dev.tether.core.event.AssistantMessage;
import dev.tether.core.event.ContextCompacted;
import dev.tether.core.event.Event;
import dev.tether.core.event.EventPayload;
import dev.tether.core.event.SessionForked;
import dev.tether.core.event.SessionStarted;
import dev.tether.core.event.ToolCall;
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
import java.util.function.UnaryOperator;
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

    @Test
    void givenKeptForkBases_thenALaterContextReadsNoneOfTheParentsLogButItsEventAtTheForkPoint_andTheSameEvents() {
        var parent = new ArrayList<EventPayload>(List.of(START));
        for (int i = 1; i < 3_000; i++) {
            parent.add(user("parent " + i));
        }
        log("parent", parent.toArray(EventPayload[]::new));
        var fork = new ArrayList<EventPayload>(List.of(forkOf("parent", 2_000)));
        for (int i = 1; i < 1_000; i++) {
            fork.add(user("fork " + i));
        }
        log("fork", fork.toArray(EventPayload[]::new));
        var asked = new ArrayList<String>();
        ContextSource.Events counted = (id, from, to) -> {
            asked.add(id + " " + from + ".." + to);
            return events.range(id, from, to);
        };
        var bases = new ContextSource.ForkBases();
        List<Event> expected = ContextSource.at(events, stateOf("fork"), 1_000).orElseThrow().events();

        ContextInput first = ContextSource.at(counted, stateOf("fork"), 1_000, bases).orElseThrow();
        assertThat(asked).as("the parent's log up to the fork point, folded").contains("parent 1..2000");
        assertThat(bases.size()).isEqualTo(1);
        asked.clear();
        ContextInput again = ContextSource.at(counted, stateOf("fork"), 1_000, bases).orElseThrow();

        assertThat(asked).as("before any event is looked at").containsExactly("fork 1..1", "parent 2000..2000");
        assertThat(again.events().get(again.events().size() - 1).seq()).isEqualTo(1_000);
        assertThat(asked.subList(2, asked.size())).as("the newest page of each part").containsExactly("parent 1937..2000", "fork 937..1000");
        assertThat(again.events()).hasSize(expected.size()).isEqualTo(expected).isEqualTo(first.events());
        assertThat(new ContextInput(again.start(), again.compaction(), again.facts(), again.events(), again.tail()).events())
                .as("kept lazy by ContextInput").isSameAs(again.events());
    }

    @Test
    void givenMoreForkPointsThanAreKept_thenTheLeastRecentlyUsedGo_andAContextIsTheSameWithoutThem() {
        var parent = new ArrayList<EventPayload>(List.of(START));
        for (int i = 1; i <= ContextSource.ForkBases.KEPT; i++) {
            parent.add(user("parent " + i));
        }
        log("parent", parent.toArray(EventPayload[]::new));
        var bases = new ContextSource.ForkBases();
        for (long atSeq = 1; atSeq <= ContextSource.ForkBases.KEPT + 1; atSeq++) {
            log("fork", forkOf("parent", atSeq), user("fork one"));
            ContextInput input = ContextSource.at(events, stateOf("fork"), 2, bases).orElseThrow();
            assertThat(input.events()).hasSize((int) atSeq);
        }
        assertThat(bases.size()).isEqualTo(ContextSource.ForkBases.KEPT);

        log("fork", forkOf("parent", 1), user("fork one")); // the first fork point, gone from the kept ones: folded again
        assertThat(ContextSource.at(events, stateOf("fork"), 2, bases).orElseThrow().events()).extracting(e -> e.sessionId() + "#" + e.seq())
                .containsExactly("fork#2");
    }

    @Test
    void givenKeptForkBases_whenAnAncestorIsErased_orTheCallerIsAnotherTenant_thenNoInput() {
        log("grandparent", START, user("one"), user("two"));
        log("parent", forkOf("grandparent", 3), user("parent one"));
        log("fork", forkOf("parent", 2), user("fork one"));
        var bases = new ContextSource.ForkBases();
        assertThat(ContextSource.at(events, stateOf("fork"), 2, bases)).isPresent();
        assertThat(bases.size()).as("the parent's and the grandparent's fork points").isEqualTo(2);

        ContextSource.Events anotherTenant = (id, from, to) -> id.equals("fork") ? events.range(id, from, to) : List.of();
        assertThat(ContextSource.at(anotherTenant, stateOf("fork"), 2, bases)).isEmpty();

        logs.remove("grandparent");
        assertThat(ContextSource.at(events, stateOf("fork"), 2, bases)).isEmpty();
        assertThat(ContextSource.at(events, stateOf("fork"), 2)).as("as without kept bases").isEmpty();
    }

    @Test
    void givenKeptForkBases_whenTheParentIsErasedAndItsIdUsedAgain_thenTheErasedLogIsNeverRendered() {
        var secret = new SessionStarted("a secret objective, erased later", "Be careful.", "model-1", "v1", ToolMode.WRITE, List.of(),
                null, null);
        log("parent", secret, user("one"), new ContextCompacted(2, "A secret summary.", null, List.of(1L, 2L)), user("three"));
        log("fork", forkOf("parent", 4), user("fork one"));
        var bases = new ContextSource.ForkBases();
        ContextInput before = ContextSource.at(events, stateOf("fork"), 2, bases).orElseThrow();
        assertThat(before.start().objective()).isEqualTo(secret.objective());
        assertThat(before.compaction().summary()).isEqualTo("A secret summary.");

        // erased, then a new session under the same id: as many events, each another (the sequencer's time is later)
        log("parent", START, user("one"), user("two"), user("three"));
        List<Event> later = new ArrayList<>(logs.get("parent"));
        later.replaceAll(e -> new Event(e.eventId(), e.sessionId(), e.tenantId(), e.seq(), e.occurredAt().plusSeconds(3_600), e.actor(),
                e.harnessVersion(), e.payload()));
        logs.put("parent", later);

        ContextInput after = ContextSource.at(events, stateOf("fork"), 2, bases).orElseThrow();
        assertThat(after.start().objective()).isEqualTo(START.objective());
        assertThat(after.compaction()).isNull();
        assertThat(after.facts()).doesNotContain("secret");
        assertThat(after).isEqualTo(ContextSource.at(events, stateOf("fork"), 2).orElseThrow());
    }

    @Test
    void givenAForkThatRecordedItsParentsEvent_whenTheParentIsErasedAndItsIdUsedAgain_thenTheParentIsGone() {
        // made again with the same eventIds (derived from steps) and later times, or, defensively, with other eventIds
        List<UnaryOperator<Event>> madeAgain = List.of(e -> new Event(e.eventId(), e.sessionId(), e.tenantId(), e.seq(),
                e.occurredAt().plusSeconds(3_600), e.actor(), e.harnessVersion(), e.payload()), e -> new Event("new-" + e.eventId(),
                e.sessionId(), e.tenantId(), e.seq(), e.occurredAt(), e.actor(), e.harnessVersion(), e.payload()));
        for (UnaryOperator<Event> again : madeAgain) {
            log("parent", START, user("one"), user("two"));
            log("fork", recordedForkOf("parent", 3), user("fork one"));
            var bases = new ContextSource.ForkBases();
            assertThat(ContextSource.at(events, stateOf("fork"), 2, bases)).isPresent();

            log("parent", START, user("a new session under the same id"), user("two"));
            logs.put("parent", logs.get("parent").stream().map(again).toList());

            assertThat(ContextSource.at(events, stateOf("fork"), 2, bases)).as("with the parent's part kept").isEmpty();
            assertThat(ContextSource.at(events, stateOf("fork"), 2)).as("without").isEmpty();
            log("fork", recordedForkOf("parent", 3), user("a fork of the new one"));
            assertThat(userTexts(ContextSource.at(events, stateOf("fork"), 2, bases).orElseThrow()))
                    .containsExactly("a new session under the same id", "two", "a fork of the new one");
        }
    }

    /**
     * A fork's head has no open calls, so the sequencer refuses, in the fork, a result for a call the parent had not
     * answered at the fork point: that call is final in the fork, cancelled, and its context's stable prefix grows past it.
     */
    @Test
    void givenAForkOfAParentWithACallInFlight_thenThatCallIsSettledInTheFork_andTheStablePrefixGrowsWithTheFork() {
        log("parent", START, user("read it"), new AssistantMessage("", null, List.of(new ToolCall("c-1", "read_file", "{}")), null));
        log("fork", forkOf("parent", 3), user("fork one"), new AssistantMessage("answer one", null, List.of(), null), user("fork two"),
                new AssistantMessage("answer two", null, List.of(), null));

        ModelContext parent = ContextRenderer.render(ContextSource.at(events, stateOf("parent"), 3).orElseThrow(), ContextFormat.OPENAI);
        ModelContext at3 = ContextRenderer.render(ContextSource.at(events, stateOf("fork", 3), 3).orElseThrow(), ContextFormat.OPENAI);
        ModelContext at5 = ContextRenderer.render(ContextSource.at(events, stateOf("fork", 5), 5).orElseThrow(), ContextFormat.OPENAI);

        assertThat(parent.stablePrefixSize()).as("in the parent the call may still be answered").isLessThan(parent.messages().size() - 1);
        // every message but the volatile tail, the parent's cancelled stand-in included, whose bytes are the parent's
        assertThat(at3.stablePrefixSize()).isEqualTo(at3.messages().size() - 1);
        assertThat(at5.stablePrefixSize()).isEqualTo(at5.messages().size() - 1);
        assertThat(at5.messages().subList(0, at3.stablePrefixSize())).isEqualTo(at3.messages().subList(0, at3.stablePrefixSize()));
        assertThat(at5.messages().subList(0, parent.messages().size() - 1))
                .as("the parent's messages, stand-in included, as the parent renders them")
                .isEqualTo(parent.messages().subList(0, parent.messages().size() - 1));
    }

    /**
     * A warm copy restores a partition's events apart from its checkpoints: a compacted session's checkpoint may name a
     * compaction event the copy does not hold yet. That is a missing event (which a read answers as such), not a crash.
     */
    @Test
    void givenTheCompactionEventNotInTheLog_thenItIsAMissingEvent() {
        log("s", START, user("one"), user("two"), new ContextCompacted(2, "The user said one.", null, List.of(2L)), user("three"));
        SessionProjection checkpoint = stateOf("s");
        logs.put("s", logs.get("s").subList(0, 3)); // the copy's events: seqs 1-3

        assertThatThrownBy(() -> ContextSource.at(events, checkpoint, checkpoint.lastSeq())).isInstanceOf(LazyEvents.MissingEvents.class)
                .hasMessageContaining("does not hold seq 4");
        logs.remove("s");
        assertThatThrownBy(() -> ContextSource.at(events, checkpoint, checkpoint.lastSeq())).as("no events at all")
                .isInstanceOf(LazyEvents.MissingEvents.class).hasMessageContaining("does not hold seq 1");
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

    /** A fork as the session-service makes it now: recording the parent's event at the fork point. */
    private SessionForked recordedForkOf(String parent, long atSeq) {
        return new SessionForked(parent, atSeq, START.objective(), START.systemPrompt(), START.modelId(), START.harnessVersion(),
                START.toolMode(), START.constraints(), List.of(), logs.get(parent).get((int) atSeq - 1).eventId(),
                logs.get(parent).get((int) atSeq - 1).occurredAt());
    }

    private static UserMessage user(String text) {
        return new UserMessage(text, null);
    }

    private static List<String> userTexts(ContextInput input) {
        return input.events().stream().map(Event::payload).filter(UserMessage.class::isInstance).map(p -> ((UserMessage) p).content()).toList();
    }
}
