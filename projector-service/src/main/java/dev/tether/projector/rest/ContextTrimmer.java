package dev.tether.projector.rest;

import dev.tether.core.event.AssistantMessage;
import dev.tether.core.event.Event;
import dev.tether.core.event.ToolResult;
import dev.tether.core.event.UserMessage;
import dev.tether.projector.context.ContextFormat;
import dev.tether.projector.context.ContextRenderer;
import dev.tether.projector.context.ModelContext;
import dev.tether.projector.context.TokenCounter;
import dev.tether.projector.domain.ContextInput;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Fits a context into {@code maxTokens} by leaving out the oldest events after the compaction
 * point, a whole exchange at a time (up to the next user message before which every earlier tool
 * call has its result, when the result came after the user spoke again), so no tool call is
 * separated from its result. The system prompt, the pinned objective, the summary, the facts and the tail
 * always stay. Dropping events changes the prefix: a client that wants a stable prefix compacts
 * instead (the response's {@code compactionAdvised}).
 */
final class ContextTrimmer {

    record Trimmed(ModelContext context, int droppedEvents) {}

    private ContextTrimmer() {}

    static Trimmed fit(ContextInput input, ContextFormat format, Integer maxTokens, TokenCounter tokens) {
        ModelContext full = ContextRenderer.render(input, format);
        if (maxTokens == null || tokens.count(full) <= maxTokens) {
            return new Trimmed(full, 0);
        }
        List<Event> events = input.events();
        int dropped = 0;
        ModelContext context = full;
        while (dropped < events.size() && tokens.count(context) > maxTokens) {
            dropped = nextExchange(events, dropped + 1);
            var fewer = new ContextInput(input.start(), input.compaction(), input.facts(), events.subList(dropped, events.size()),
                    input.tail());
            context = ContextRenderer.render(fewer, format);
        }
        return new Trimmed(context, dropped);
    }

    /**
     * The index of the first user message at or after {@code from} that no tool call before it has its
     * result after (a result may come after the user spoke again), or the end.
     */
    private static int nextExchange(List<Event> events, int from) {
        Map<String, Integer> resultAt = new HashMap<>();
        for (int i = 0; i < events.size(); i++) {
            if (events.get(i).payload() instanceof ToolResult r) {
                resultAt.putIfAbsent(r.callId(), i);
            }
        }
        int lastResultOfEarlierCalls = -1;
        for (int i = 0; i < events.size(); i++) {
            Event event = events.get(i);
            if (i >= from && event.payload() instanceof UserMessage && lastResultOfEarlierCalls < i) {
                return i;
            }
            if (event.payload() instanceof AssistantMessage m) {
                for (var call : m.toolCalls()) {
                    lastResultOfEarlierCalls = Math.max(lastResultOfEarlierCalls, resultAt.getOrDefault(call.callId(), -1));
                }
            }
        }
        return events.size();
    }
}
