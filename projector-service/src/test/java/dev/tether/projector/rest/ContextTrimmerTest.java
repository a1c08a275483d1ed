package dev.tether.projector.rest;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tether.core.event.Actor;
import dev.tether.core.event.ActorKind;
import dev.tether.core.event.AssistantMessage;
import dev.tether.core.event.Event;
import dev.tether.core.event.EventPayload;
import dev.tether.core.event.SessionStarted;
import dev.tether.core.event.TokenUsage;
import dev.tether.core.event.ToolCall;
import dev.tether.core.event.ToolMode;
import dev.tether.core.event.ToolResult;
import dev.tether.core.event.ToolStatus;
import dev.tether.core.event.UserMessage;
import dev.tether.projector.context.ContextFormat;
import dev.tether.projector.context.ContextRenderer;
import dev.tether.projector.context.ModelContext;
import dev.tether.projector.context.TokenCounter;
import dev.tether.projector.domain.ContextInput;
import dev.tether.projector.domain.LazyEvents;
import dev.tether.projector.domain.VolatileTail;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** {@code maxTokens}: whole exchanges are left out, oldest first, and a tool call never loses its result. */
class ContextTrimmerTest {

    private static final TokenCounter TOKENS = new TokenCounter();
    private static final SessionStarted START = new SessionStarted("Rename Foo to Bar", "Be careful.", "model-1", "v1", ToolMode.WRITE,
            List.of("keep the tests green"), null, null);
    private static final String FILLER = " lorem ipsum dolor sit amet".repeat(20);

    @Test
    void givenNoLimitOrEnoughRoom_thenNothingIsDropped() {
        ContextInput input = threeExchanges();
        ModelContext full = ContextRenderer.render(input, ContextFormat.OPENAI);

        assertThat(ContextTrimmer.fit(input, ContextFormat.OPENAI, null, TOKENS.memo("acme"))).isEqualTo(new ContextTrimmer.Trimmed(full, 0,
                TOKENS.count(full)));
        assertThat(ContextTrimmer.fit(input, ContextFormat.OPENAI, TOKENS.count(full), TOKENS.memo("acme")).droppedEvents()).isZero();
    }

    @Test
    void givenRoomForAllButTheFirstExchange_thenExactlyTheFirstExchangeIsDropped() {
        ContextInput input = threeExchanges();
        int withoutFirst = TOKENS.count(ContextRenderer.render(from(input, 3), ContextFormat.OPENAI));

        var trimmed = ContextTrimmer.fit(input, ContextFormat.OPENAI, withoutFirst, TOKENS.memo("acme"));

        assertThat(trimmed.droppedEvents()).isEqualTo(3);
        assertThat(trimmed.context()).isEqualTo(ContextRenderer.render(from(input, 3), ContextFormat.OPENAI));
        assertThat(TOKENS.count(trimmed.context())).isLessThanOrEqualTo(withoutFirst);

        var oneLess = ContextTrimmer.fit(input, ContextFormat.OPENAI, withoutFirst - 1, TOKENS.memo("acme"));
        assertThat(oneLess.droppedEvents()).as("one token less: the second exchange goes too, whole").isEqualTo(6);
    }

    @Test
    void givenAnyLimit_thenTheHeaderStays_andEveryToolCallKeepsItsResult() {
        ContextInput input = threeExchanges();
        int full = TOKENS.count(ContextRenderer.render(input, ContextFormat.OPENAI));
        for (int max = 1; max <= full; max += 7) {
            var trimmed = ContextTrimmer.fit(input, ContextFormat.OPENAI, max, TOKENS.memo("acme"));
            List<Map<String, Object>> messages = trimmed.context().messages();

            assertThat(List.of(0, 3, 6, 9)).as("dropped at max %d", max).contains(trimmed.droppedEvents());
            assertThat(messages.get(0)).containsEntry("role", "system").containsEntry("content", START.systemPrompt());
            assertThat(messages.get(1)).containsEntry("content", START.objective());
            assertThat(messages.get(2)).containsEntry("content", input.facts());
            assertThat(toolCallIds(messages)).as("tool calls vs tool results at max %d", max).isEqualTo(toolResultIds(messages));
            assertThat(cancelled(messages)).as("no result is replaced by a cancellation at max %d", max).isFalse();
        }
    }

    @Test
    void givenAResultThatArrivesAfterTheNextUserMessage_thenTheCallAndItsResultAreDroppedTogether() {
        // c1 is answered only after the user spoke again: dropping up to that user message alone would orphan c1's result
        ContextInput input = input(new UserMessage("first" + FILLER, null),
                new AssistantMessage("reading", null, List.of(new ToolCall("c1", "read_file", "{\"path\":\"a\"}")), new TokenUsage(1, 1)),
                new UserMessage("while you read: also b" + FILLER, null),
                new ToolResult("c1", "k1", ToolStatus.OK, "contents of a" + FILLER, null),
                new UserMessage("last question", null),
                new AssistantMessage("answer", null, List.of(), new TokenUsage(1, 1)));
        int full = TOKENS.count(ContextRenderer.render(input, ContextFormat.OPENAI));
        for (int max = 1; max <= full; max += 5) {
            var trimmed = ContextTrimmer.fit(input, ContextFormat.OPENAI, max, TOKENS.memo("acme"));
            List<Map<String, Object>> messages = trimmed.context().messages();

            assertThat(toolCallIds(messages)).as("tool calls vs tool results at max %d", max).isEqualTo(toolResultIds(messages));
            assertThat(cancelled(messages)).as("no result is replaced by a cancellation at max %d", max).isFalse();
            boolean resultShown = messages.stream().anyMatch(m -> String.valueOf(m.get("content")).contains("contents of a"));
            assertThat(resultShown).as("c1's result is shown exactly when c1 is, at max %d (dropped %d)", max, trimmed.droppedEvents())
                    .isEqualTo(toolCallIds(messages).contains("c1"));
            assertThat(List.of(0, 4, 6)).as("dropped at max %d", max).contains(trimmed.droppedEvents());
        }
    }

    @Test
    void givenACallIdAskedForTwice_asByAForkAndItsParent_thenTheCountIsTheWholeContexts_andItFits() {
        var payloads = new ArrayList<EventPayload>();
        for (int i = 1; i <= 3; i++) { // the same call id in every exchange: renamed c1_2, c1_3 in the whole context
            payloads.add(new UserMessage("question " + i + FILLER, null));
            payloads.add(new AssistantMessage("reading " + i, null, List.of(new ToolCall("c1", "read_file", "{}")), new TokenUsage(1, 1)));
            payloads.add(new ToolResult("c1", "k" + i, ToolStatus.OK, "contents " + i + FILLER, null));
        }
        ContextInput input = input(payloads.toArray(EventPayload[]::new));
        ModelContext full = ContextRenderer.render(input, ContextFormat.OPENAI);
        int whole = TOKENS.count(full);

        var roomy = ContextTrimmer.fit(input, ContextFormat.OPENAI, whole, TOKENS.memo("acme"));
        assertThat(roomy.droppedEvents()).isZero();
        assertThat(roomy.context()).isEqualTo(full);
        assertThat(roomy.tokens()).as("the renamed ids counted too").isEqualTo(whole);

        var tight = ContextTrimmer.fit(input, ContextFormat.OPENAI, whole - 1, TOKENS.memo("acme"));
        assertThat(tight.droppedEvents()).as("one token less: the first exchange goes").isEqualTo(3);
        assertThat(tight.tokens()).isEqualTo(TOKENS.count(tight.context())).isLessThanOrEqualTo(whole - 1);
    }

    @Test
    void givenAnthropicFormat_thenTheSameWholeExchangesAreDropped() {
        ContextInput input = threeExchanges();
        int withoutFirst = TOKENS.count(ContextRenderer.render(from(input, 3), ContextFormat.ANTHROPIC));

        var trimmed = ContextTrimmer.fit(input, ContextFormat.ANTHROPIC, withoutFirst, TOKENS.memo("acme"));

        assertThat(trimmed.droppedEvents()).isEqualTo(3);
        assertThat(trimmed.context()).isEqualTo(ContextRenderer.render(from(input, 3), ContextFormat.ANTHROPIC));
    }

    @Test
    void givenAVariedSession_whateverTheLimitAndTheFormat_thenAsFewExchangesAsPossibleAreDropped_asByDroppingThemOneByOne() {
        ContextInput input = variedSession(7, 40);
        for (ContextFormat format : ContextFormat.values()) {
            int full = TOKENS.count(ContextRenderer.render(input, format));
            for (int max = 1; max <= full + 10; max += 173) {
                var trimmed = ContextTrimmer.fit(input, format, max, TOKENS.memo("acme"));
                int expected = droppedOneByOne(input, format, max);

                assertThat(trimmed.droppedEvents()).as("%s at max %d", format, max).isEqualTo(expected);
                assertThat(trimmed.context()).isEqualTo(ContextRenderer.render(from(input, expected), format));
                assertThat(trimmed.tokens()).isEqualTo(TOKENS.count(trimmed.context()));
            }
        }
    }

    @Test
    void givenVariedSessions_thenTheStartsFoundFromTheNewestBackAreThoseAPassFromTheOldestFinds() {
        for (int seed = 0; seed < 300; seed++) {
            List<Event> events = variedSession(seed, 1 + seed % 30).events();
            for (int skip = 0; skip <= Math.min(3, events.size()); skip++) {
                // the first events left out, as by a compaction: their calls' results remain, without the calls
                List<Event> after = events.subList(skip, events.size());
                assertThat(startsFromTheNewestBack(after)).as("seed %d, %d left out", seed, skip).isEqualTo(startsFromTheOldest(after));
            }
        }
        assertThat(startsFromTheNewestBack(List.of())).containsExactly(0);
    }

    @Test
    void givenCallIdsUsedAgain_asByAForksOwnCalls_thenTheStartsFoundFromTheNewestBackAreThoseAPassFromTheOldestFinds() {
        for (int seed = 0; seed < 300; seed++) {
            List<Event> events = variedSession(seed, 2 + seed % 30, 1 + seed % 3).events();
            for (int skip = 0; skip <= 3; skip++) {
                List<Event> after = events.subList(skip, events.size());
                assertThat(startsFromTheNewestBack(after)).as("seed %d, %d left out", seed, skip).isEqualTo(startsFromTheOldest(after));
            }
        }
    }

    @Test
    void givenAParentsCallAnsweredLate_andAForksOwnCallWithItsId_thenNoLimitSeparatesTheParentsCallFromItsResult() {
        // the parent's c1 is answered only after the user spoke again; the fork then asks for c1 itself (rendered c1_2)
        ContextInput input = input(new UserMessage("first" + FILLER, null),
                new AssistantMessage("reading", null, List.of(new ToolCall("c1", "read_file", "{\"path\":\"a\"}")), new TokenUsage(1, 1)),
                new UserMessage("while you read: also b" + FILLER, null),
                new ToolResult("c1", "k1", ToolStatus.OK, "contents of a" + FILLER, null),
                new UserMessage("in the fork: read a again", null),
                new AssistantMessage("reading again", null, List.of(new ToolCall("c1", "read_file", "{\"path\":\"a\"}")), new TokenUsage(1, 1)),
                new ToolResult("c1", "k2", ToolStatus.OK, "contents of a, again", null));
        int full = TOKENS.count(ContextRenderer.render(input, ContextFormat.OPENAI));
        for (int max = 1; max <= full; max += 5) {
            var trimmed = ContextTrimmer.fit(input, ContextFormat.OPENAI, max, TOKENS.memo("acme"));
            List<Map<String, Object>> messages = trimmed.context().messages();

            assertThat(List.of(0, 4, 7)).as("dropped at max %d", max).contains(trimmed.droppedEvents());
            assertThat(toolCallIds(messages)).as("tool calls vs tool results at max %d", max).isEqualTo(toolResultIds(messages));
            assertThat(messages).as("no orphaned result at max %d", max)
                    .noneMatch(m -> "user".equals(m.get("role")) && String.valueOf(m.get("content")).contains("contents of a"));
        }
    }

    @Test
    void givenALongSessionAndASmallWindow_thenOnlyTheNewestEventsAreRead_andTheContextIsTheSameAsFromAllOfThem() {
        ContextInput all = variedSession(11, 2_000);
        var asked = new ArrayList<long[]>();
        var lazy = new LazyEvents((id, from, to) -> {
            asked.add(new long[] {from, to});
            return all.events().stream().filter(e -> e.seq() >= from && e.seq() <= to).toList();
        }, "s-1", 2, all.events().size() + 1, Long.MIN_VALUE);
        ContextInput input = new ContextInput(all.start(), null, all.facts(), lazy, all.tail());
        assertThat(input.events()).as("kept as it is, unread").isSameAs(lazy);
        assertThat(lazy.read()).isZero();

        for (ContextFormat format : ContextFormat.values()) {
            var trimmed = ContextTrimmer.fit(input, format, 2_000, TOKENS.memo("acme"));

            assertThat(trimmed).as(format.name()).isEqualTo(ContextTrimmer.fit(all, format, 2_000, TOKENS.memo("acme")));
            int kept = all.events().size() - trimmed.droppedEvents();
            assertThat(kept).as("a few exchanges of %d events", all.events().size()).isBetween(1, 100);
            assertThat(lazy.read()).as("read: the kept events and at most a page more (%s)", format).isLessThanOrEqualTo(Math.max(2 * kept, kept + 64));
        }
        assertThat(asked).as("pages of 64, 64, 128, … from the newest back").first().satisfies(range ->
                assertThat(range).containsExactly(all.events().size() + 1 - 63, all.events().size() + 1));
    }

    /** The starts as {@link ContextTrimmer.ExchangeStarts} gives them, oldest first. */
    private static List<Integer> startsFromTheNewestBack(List<Event> events) {
        var starts = new ContextTrimmer.ExchangeStarts(events);
        var found = new ArrayList<Integer>();
        for (int k = 0; starts.fromEnd(k) >= 0; k++) {
            found.add(0, starts.fromEnd(k));
        }
        return found;
    }

    /**
     * Where a context may start, by its definition, in one pass from the oldest event: 0, the index of every user message
     * before which no tool call has its first result after it, and the number of events. A result is the latest earlier
     * call's with its id (ids repeat only when a fork's calls reuse its parent's).
     */
    private static List<Integer> startsFromTheOldest(List<Event> events) {
        Map<String, Integer> latestCall = new HashMap<>(); // call id -> index of the latest call with it so far
        Map<String, Integer> resultAt = new HashMap<>(); // "<call's index> <call id>" -> its first result
        for (int i = 0; i < events.size(); i++) {
            EventPayload payload = events.get(i).payload();
            if (payload instanceof AssistantMessage m) {
                for (var call : m.toolCalls()) {
                    latestCall.put(call.callId(), i);
                }
            } else if (payload instanceof ToolResult r && latestCall.containsKey(r.callId())) {
                resultAt.putIfAbsent(latestCall.get(r.callId()) + " " + r.callId(), i);
            }
        }
        var starts = new ArrayList<Integer>();
        starts.add(0);
        int lastResultOfEarlierCalls = -1;
        for (int i = 0; i < events.size(); i++) {
            Event event = events.get(i);
            if (i > 0 && event.payload() instanceof UserMessage && lastResultOfEarlierCalls < i) {
                starts.add(i);
            }
            if (event.payload() instanceof AssistantMessage m) {
                for (var call : m.toolCalls()) {
                    lastResultOfEarlierCalls = Math.max(lastResultOfEarlierCalls, resultAt.getOrDefault(i + " " + call.callId(), -1));
                }
            }
        }
        if (!events.isEmpty()) {
            starts.add(events.size());
        }
        return starts;
    }

    /** What the trimmer returned before it counted exchanges from the newest back: drop the oldest exchange until it fits. */
    private static int droppedOneByOne(ContextInput input, ContextFormat format, int max) {
        List<Integer> starts = startsFromTheOldest(input.events());
        for (int start : starts) {
            if (TOKENS.count(ContextRenderer.render(from(input, start), format)) <= max) {
                return start;
            }
        }
        return input.events().size();
    }

    // ---------------------------------------------------------------------------------------------

    /**
     * {@code exchanges} user turns of varied length, with tool calls answered at once, late (after the user spoke again,
     * once or twice), first UNKNOWN and then again, or never (an interruption).
     */
    private static ContextInput variedSession(long seed, int exchanges) {
        return variedSession(seed, exchanges, Integer.MAX_VALUE);
    }

    /** The same, with the call ids of exchange {@code n} those of exchange {@code n % ids}: as a fork reusing its parent's. */
    private static ContextInput variedSession(long seed, int exchanges, int ids) {
        var random = new java.util.Random(seed);
        var payloads = new ArrayList<EventPayload>();
        for (int n = 0; n < exchanges; n++) {
            int i = n % ids;
            payloads.add(new UserMessage("turn " + n + " lorem".repeat(random.nextInt(60)), null));
            switch (random.nextInt(5)) {
                case 0 -> payloads.add(new AssistantMessage("just text" + " ipsum".repeat(random.nextInt(40)), null, List.of(),
                        new TokenUsage(1, 1)));
                case 1 -> {
                    payloads.add(new AssistantMessage("reading", null, List.of(new ToolCall("c" + i, "read_file", "{}")), new TokenUsage(1, 1)));
                    payloads.add(new ToolResult("c" + i, "k" + i, ToolStatus.OK, "contents" + " dolor".repeat(random.nextInt(50)), null));
                }
                case 2 -> {
                    payloads.add(new AssistantMessage("reading late", null, List.of(new ToolCall("c" + i, "read_file", "{}")),
                            new TokenUsage(1, 1)));
                    for (int more = random.nextInt(3); more >= 0; more--) {
                        payloads.add(new UserMessage("meanwhile " + i, null));
                    }
                    payloads.add(new ToolResult("c" + i, "k" + i, ToolStatus.OK, "late contents " + i, null));
                }
                case 3 -> {
                    payloads.add(new AssistantMessage("two calls", null, List.of(new ToolCall("c" + i, "run_command", "{}"),
                            new ToolCall("d" + i, "read_file", "{}")), new TokenUsage(1, 1)));
                    payloads.add(new ToolResult("d" + i, "l" + i, ToolStatus.OK, "read", null));
                    payloads.add(new ToolResult("c" + i, "k" + i, ToolStatus.UNKNOWN, "lost", null));
                    payloads.add(new UserMessage("was it run? " + i, null));
                    payloads.add(new ToolResult("c" + i, "k" + i, ToolStatus.OK, "it was", null));
                }
                default -> {
                    payloads.add(new AssistantMessage("calling", null, List.of(new ToolCall("c" + i, "run_command", "{}")),
                            new TokenUsage(1, 1)));
                    payloads.add(new dev.tether.core.event.TurnInterrupted("half", "user"));
                }
            }
        }
        return input(payloads.toArray(EventPayload[]::new));
    }

    /** Three exchanges of three events each: a user message, an assistant turn with one tool call, its result. */
    private static ContextInput threeExchanges() {
        var payloads = new ArrayList<EventPayload>();
        for (int i = 1; i <= 3; i++) {
            payloads.add(new UserMessage("question " + i + FILLER, null));
            payloads.add(new AssistantMessage("reading " + i, null, List.of(new ToolCall("c" + i, "read_file", "{\"path\":\"f" + i + "\"}")),
                    new TokenUsage(1, 1)));
            payloads.add(new ToolResult("c" + i, "k" + i, ToolStatus.OK, "contents of f" + i + FILLER, null));
        }
        return input(payloads.toArray(EventPayload[]::new));
    }

    private static ContextInput input(EventPayload... payloads) {
        var events = new ArrayList<Event>();
        for (EventPayload p : payloads) {
            long seq = events.size() + 2L;
            events.add(new Event("e" + seq, "s-1", "acme", seq, Instant.EPOCH.plusSeconds(seq), new Actor(ActorKind.USER, "alice"), "v1", p));
        }
        long last = events.get(events.size() - 1).seq();
        return new ContextInput(START, null, "Authoritative facts:\nObjective: " + START.objective(), events,
                new VolatileTail(last, 0, 3, 3, "ACTIVE", null, List.of(), Instant.EPOCH.plusSeconds(last)));
    }

    private static ContextInput from(ContextInput input, int index) {
        return new ContextInput(input.start(), input.compaction(), input.facts(), input.events().subList(index, input.events().size()),
                input.tail());
    }

    @SuppressWarnings("unchecked")
    private static Set<Object> toolCallIds(List<Map<String, Object>> messages) {
        var ids = new HashSet<>();
        for (var m : messages) {
            if (m.get("tool_calls") instanceof List<?> calls) {
                calls.forEach(c -> ids.add(((Map<String, Object>) c).get("id")));
            }
        }
        return ids;
    }

    private static Set<Object> toolResultIds(List<Map<String, Object>> messages) {
        var ids = new HashSet<>();
        messages.stream().filter(m -> "tool".equals(m.get("role"))).forEach(m -> ids.add(m.get("tool_call_id")));
        return ids;
    }

    private static boolean cancelled(List<Map<String, Object>> messages) {
        return messages.stream().anyMatch(m -> "tool".equals(m.get("role")) && "{\"error\":\"cancelled_by_user\"}".equals(m.get("content")));
    }
}
