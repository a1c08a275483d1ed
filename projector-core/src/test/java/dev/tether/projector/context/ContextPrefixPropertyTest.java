package dev.tether.projector.context;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tether.core.event.ToolStatus;
import dev.tether.projector.context.SessionScript.Action;
import dev.tether.projector.context.SessionScript.AssistantReplies;
import dev.tether.projector.context.SessionScript.Bookkeeping;
import dev.tether.projector.context.SessionScript.Compaction;
import dev.tether.projector.context.SessionScript.PlanChanges;
import dev.tether.projector.context.SessionScript.ResultArrives;
import dev.tether.projector.context.SessionScript.StepDone;
import dev.tether.projector.context.SessionScript.UserInterrupts;
import dev.tether.projector.context.SessionScript.UserSays;
import dev.tether.projector.domain.ContextInput;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;

/**
 * For random sessions, the context at every seq is one a provider accepts, and, without a
 * compaction in between, the context at seq N+1 starts with the stable prefix of the context at N.
 */
class ContextPrefixPropertyTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    @Property(tries = 1000, seed = "20260301")
    void everyContextIsWellFormedAndKeepsThePreviousStablePrefix(@ForAll("sessions") List<Action> actions) {
        SessionFixture log = SessionScript.play(actions);
        for (ContextFormat format : ContextFormat.values()) {
            ContextInput previousInput = null;
            ModelContext previous = null;
            for (long seq = 1; seq <= log.lastSeq(); seq++) {
                ContextInput input = log.inputAt(seq);
                ModelContext context = ContextRenderer.render(input, format);
                assertWellFormed(context);
                if (previous != null && sameCompaction(previousInput, input)) {
                    assertKeepsStablePrefix(previous, context);
                }
                previousInput = input;
                previous = context;
            }
        }
    }

    @Provide
    Arbitrary<List<Action>> sessions() {
        Arbitrary<Action> action = Arbitraries.frequencyOf(
                Tuple.of(3, Arbitraries.integers().between(0, 3).map(UserSays::new)),
                Tuple.of(4, Arbitraries.integers().between(0, 3).flatMap(calls ->
                        Arbitraries.of(true, false).map(withText -> new AssistantReplies(withText, calls)))),
                Tuple.of(5, Arbitraries.integers().between(0, 3).flatMap(pick ->
                        Arbitraries.of(ToolStatus.class).map(status -> new ResultArrives(pick, status)))),
                Tuple.of(1, Arbitraries.of(true, false).map(UserInterrupts::new)),
                Tuple.of(1, Arbitraries.integers().between(0, 3).map(PlanChanges::new)),
                Tuple.of(1, Arbitraries.of(true, false).map(StepDone::new)),
                Tuple.of(1, Arbitraries.integers().between(0, 5).map(Compaction::new)),
                Tuple.of(1, Arbitraries.integers().between(0, 6).map(Bookkeeping::new)));
        return action.list().ofMaxSize(40);
    }

    private static boolean sameCompaction(ContextInput previous, ContextInput next) {
        return Objects.equals(previous.compaction(), next.compaction()) && previous.facts().equals(next.facts());
    }

    private static void assertWellFormed(ModelContext context) {
        assertThat(context.stablePrefixSize()).isBetween(0, context.messages().size() - 1);
        assertThat(json(context.messages().subList(0, context.stablePrefixSize()))).doesNotContain(VolatileTailText.HEADLINE);
        if (context.format() == ContextFormat.OPENAI) {
            assertEveryToolCallAnsweredRightAfterIt(context.messages());
        } else {
            assertRolesAlternateStartingWithUser(context.messages());
            assertEveryToolUseAnsweredInTheNextMessage(context.messages());
        }
        assertEveryCallIdAndResultAcceptable(context.messages());
    }

    /**
     * Property 4: every tool call id is one both providers take (Anthropic: {@code ^[a-zA-Z0-9_-]+$}, OpenAI: at most 40
     * characters), and no result is blank (Anthropic refuses an empty {@code tool_result}).
     */
    private static void assertEveryCallIdAndResultAcceptable(List<Map<String, Object>> messages) {
        for (Map<String, Object> message : messages) {
            assertThat(ids(list(message.get("tool_calls")), "id")).allSatisfy(id -> assertThat(id).matches("[A-Za-z0-9_-]{1,40}"));
            if ("tool".equals(message.get("role"))) {
                assertThat((String) message.get("content")).isNotBlank();
            }
            if (message.get("content") instanceof List<?>) {
                for (Map<String, Object> block : list(message.get("content"))) {
                    if ("tool_use".equals(block.get("type"))) {
                        assertThat((String) block.get("id")).matches("[A-Za-z0-9_-]{1,40}");
                    } else if ("tool_result".equals(block.get("type"))) {
                        assertThat((String) block.get("content")).isNotBlank();
                    }
                }
            }
        }
    }

    /** Property 1: the tool messages right after an assistant message answer exactly its tool calls. */
    private static void assertEveryToolCallAnsweredRightAfterIt(List<Map<String, Object>> messages) {
        assertThat(messages.get(0)).containsEntry("role", "system");
        Set<String> unanswered = new HashSet<>();
        for (Map<String, Object> message : messages) {
            if ("tool".equals(message.get("role"))) {
                assertThat(unanswered.remove((String) message.get("tool_call_id"))).as("tool message answers a call: %s", message).isTrue();
            } else {
                assertThat(unanswered).as("calls answered before %s", message).isEmpty();
                unanswered.addAll(ids(list(message.get("tool_calls")), "id"));
            }
        }
        assertThat(unanswered).isEmpty();
    }

    /** Property 2, first half. */
    private static void assertRolesAlternateStartingWithUser(List<Map<String, Object>> messages) {
        for (int i = 0; i < messages.size(); i++) {
            assertThat(messages.get(i)).containsEntry("role", i % 2 == 0 ? "user" : "assistant");
            assertThat(list(messages.get(i).get("content"))).isNotEmpty();
        }
    }

    /** Property 2, second half: tool results open the next message and answer exactly the tool uses before them. */
    private static void assertEveryToolUseAnsweredInTheNextMessage(List<Map<String, Object>> messages) {
        List<String> toolUses = List.of();
        for (Map<String, Object> message : messages) {
            List<Map<String, Object>> blocks = list(message.get("content"));
            List<Map<String, Object>> results = blocks.stream().filter(block -> "tool_result".equals(block.get("type"))).toList();
            assertThat(ids(results, "tool_use_id")).containsExactlyInAnyOrderElementsOf(toolUses);
            assertThat(blocks.subList(0, results.size())).isEqualTo(results);
            toolUses = ids(blocks.stream().filter(block -> "tool_use".equals(block.get("type"))).toList(), "id");
        }
        assertThat(toolUses).isEmpty();
    }

    /** Property 3. */
    private static void assertKeepsStablePrefix(ModelContext previous, ModelContext next) {
        int size = previous.stablePrefixSize();
        assertThat(next.stablePrefixSize()).isGreaterThanOrEqualTo(size);
        assertThat(json(next.messages().subList(0, size))).isEqualTo(json(previous.messages().subList(0, size)));
        assertThat(next.system()).isEqualTo(previous.system());
    }

    private static List<String> ids(List<Map<String, Object>> objects, String key) {
        var ids = new ArrayList<String>();
        objects.forEach(object -> ids.add((String) object.get(key)));
        return ids;
    }

    @SuppressWarnings("unchecked")
    private static List<Map<String, Object>> list(Object value) {
        return value == null ? List.of() : (List<Map<String, Object>>) value;
    }

    private static String json(Object value) {
        try {
            return JSON.writeValueAsString(value);
        } catch (JsonProcessingException e) {
            throw new AssertionError(e);
        }
    }
}
