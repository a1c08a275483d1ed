package dev.tether.projector.context;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Puts a {@link Conversation} in the OpenAI chat completions format: a {@code system} message, then
 * one message per user turn, and per assistant turn an {@code assistant} message with its
 * {@code tool_calls} directly followed by one {@code tool} message per call, in call order. The
 * tail is one {@code user} message at the end. Pure and thread-safe.
 */
final class OpenAiFormat {

    private OpenAiFormat() {}

    static ModelContext render(Conversation conversation) {
        var messages = new ArrayList<Map<String, Object>>();
        messages.add(text("system", conversation.systemPrompt()));
        conversation.stable().forEach(turn -> add(messages, turn));
        int stablePrefixSize = messages.size();
        conversation.unsettled().forEach(turn -> add(messages, turn));
        add(messages, conversation.tail());
        return new ModelContext(ContextFormat.OPENAI, null, messages, stablePrefixSize);
    }

    /** The messages of {@code turns}, one after the other: each turn's do not depend on its neighbours. */
    static List<Map<String, Object>> messages(List<Turn> turns) {
        var messages = new ArrayList<Map<String, Object>>();
        turns.forEach(turn -> add(messages, turn));
        return messages;
    }

    private static void add(List<Map<String, Object>> messages, Turn turn) {
        if (turn instanceof Turn.User user) {
            messages.add(text("user", user.text()));
        } else if (turn instanceof Turn.Assistant assistant) {
            messages.add(assistant(assistant));
            assistant.calls().forEach(call -> messages.add(toolResult(call)));
        } else {
            throw new IllegalArgumentException("no OpenAI rendering for " + turn.getClass().getSimpleName());
        }
    }

    private static Map<String, Object> text(String role, String content) {
        return JsonObject.create().put("role", role).put("content", content).build();
    }

    /** {@code content} is null rather than empty when the turn has calls only, as OpenAI's own responses have it. */
    private static Map<String, Object> assistant(Turn.Assistant turn) {
        if (turn.calls().isEmpty()) {
            return text("assistant", turn.text());
        }
        return JsonObject.create()
                .put("role", "assistant")
                .put("content", turn.text().isEmpty() ? null : turn.text())
                .put("tool_calls", turn.calls().stream().map(OpenAiFormat::toolCall).toList())
                .build();
    }

    private static Map<String, Object> toolCall(Turn.CallOutcome outcome) {
        Map<String, Object> function = JsonObject.create()
                .put("name", outcome.call().tool())
                .put("arguments", outcome.call().argumentsJson())
                .build();
        return JsonObject.create().put("id", outcome.call().callId()).put("type", "function").put("function", function).build();
    }

    private static Map<String, Object> toolResult(Turn.CallOutcome outcome) {
        return JsonObject.create()
                .put("role", "tool")
                .put("tool_call_id", outcome.call().callId())
                .put("content", outcome.content())
                .build();
    }
}
