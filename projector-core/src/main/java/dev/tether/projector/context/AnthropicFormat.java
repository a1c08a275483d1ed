package dev.tether.projector.context;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * Puts a {@link Conversation} in the Anthropic messages format: the system prompt apart, then
 * {@code user} and {@code assistant} messages that alternate, starting with {@code user}.
 *
 * <p>Each turn becomes a run of content blocks of one role: a user turn a {@code text} block; an
 * assistant turn its {@code text} block (unless empty) and one {@code tool_use} block per call, then a
 * user run of one {@code tool_result} block per call. Consecutive runs of the same role are merged
 * into one message, so tool results always open the user message after their {@code tool_use}s.
 *
 * <p>Merging must not reach across the tail boundary, or an event at the next seq could change a
 * message of the stable prefix. So the last stable message joins the tail when a later run may still
 * be merged into it: when no tool call is in flight (the next event may well have the same role), or
 * when it is an assistant message (the unsettled part starts with an assistant message). Inside the
 * tail, runs are merged as usual. This keeps the roles alternating everywhere, at the cost of at most
 * one message less in the stable prefix. Pure and thread-safe.
 */
final class AnthropicFormat {

    private AnthropicFormat() {}

    static ModelContext render(Conversation conversation) {
        List<Run> stable = merged(runs(conversation.stable()));
        List<Run> unsettled = runs(conversation.unsettled());
        boolean lastStableOpen = !stable.isEmpty() && (unsettled.isEmpty() || last(stable).role == unsettled.get(0).role);
        List<Run> settled = lastStableOpen ? stable.subList(0, stable.size() - 1) : stable;

        var tail = new ArrayList<Run>();
        if (lastStableOpen) {
            tail.add(last(stable));
        }
        tail.addAll(unsettled);
        tail.addAll(runs(List.of(conversation.tail())));

        var messages = new ArrayList<Map<String, Object>>();
        settled.forEach(run -> messages.add(run.message()));
        merged(tail).forEach(run -> messages.add(run.message()));
        return new ModelContext(ContextFormat.ANTHROPIC, conversation.systemPrompt(), messages, settled.size());
    }

    private static List<Run> runs(List<Turn> turns) {
        return turns.stream().flatMap(AnthropicFormat::runs).toList();
    }

    private static Stream<Run> runs(Turn turn) {
        if (turn instanceof Turn.User user) {
            return Stream.of(new Run(Turn.Role.USER, List.of(text(user.text()))));
        }
        if (turn instanceof Turn.Assistant assistant) {
            return assistant.calls().isEmpty()
                    ? Stream.of(new Run(Turn.Role.ASSISTANT, List.of(text(assistant.text()))))
                    : Stream.of(toolUses(assistant), toolResults(assistant));
        }
        throw new IllegalArgumentException("no Anthropic rendering for " + turn.getClass().getSimpleName());
    }

    private static Run toolUses(Turn.Assistant turn) {
        var blocks = new ArrayList<Map<String, Object>>();
        if (!turn.text().isEmpty()) {
            blocks.add(text(turn.text()));
        }
        turn.calls().forEach(outcome -> blocks.add(toolUse(outcome)));
        return new Run(Turn.Role.ASSISTANT, blocks);
    }

    private static Run toolResults(Turn.Assistant turn) {
        return new Run(Turn.Role.USER, turn.calls().stream().map(AnthropicFormat::toolResult).toList());
    }

    private static Map<String, Object> text(String text) {
        return JsonObject.create().put("type", "text").put("text", text).build();
    }

    private static Map<String, Object> toolUse(Turn.CallOutcome outcome) {
        return JsonObject.create()
                .put("type", "tool_use")
                .put("id", outcome.call().callId())
                .put("name", outcome.call().tool())
                .put("input", ToolInput.of(outcome.call().argumentsJson()))
                .build();
    }

    private static Map<String, Object> toolResult(Turn.CallOutcome outcome) {
        return JsonObject.create()
                .put("type", "tool_result")
                .put("tool_use_id", outcome.call().callId())
                .put("content", outcome.content())
                .put("is_error", outcome.error())
                .build();
    }

    /** Consecutive runs of the same role, as one run each. */
    private static List<Run> merged(List<Run> runs) {
        var merged = new ArrayList<Run>();
        for (Run run : runs) {
            if (!merged.isEmpty() && last(merged).role == run.role) {
                merged.set(merged.size() - 1, last(merged).append(run));
            } else {
                merged.add(run);
            }
        }
        return merged;
    }

    private static Run last(List<Run> runs) {
        return runs.get(runs.size() - 1);
    }

    /** Content blocks of one role, in order: one message once merged. */
    private record Run(Turn.Role role, List<Map<String, Object>> blocks) {

        Run {
            blocks = List.copyOf(blocks);
        }

        Run append(Run next) {
            return new Run(role, Stream.concat(blocks.stream(), next.blocks.stream()).toList());
        }

        Map<String, Object> message() {
            String wireRole = role == Turn.Role.USER ? "user" : "assistant";
            return JsonObject.create().put("role", wireRole).put("content", blocks).build();
        }
    }
}
