package dev.tether.projector.rest;

import dev.tether.common.event.Event;
import dev.tether.common.event.UserMessage;
import dev.tether.projector.domain.ContextFormat;
import dev.tether.projector.domain.ContextInput;
import dev.tether.projector.domain.ContextRenderer;
import dev.tether.projector.domain.ModelContext;
import dev.tether.projector.domain.TokenCounter;
import java.util.List;

/**
 * Fits a context into {@code maxTokens} by leaving out the oldest events after the compaction
 * point, a whole exchange at a time (up to the next user message), so no tool call is separated
 * from its result. The system prompt, the pinned objective, the summary, the facts and the tail
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

    /** The index of the first user message at or after {@code from}, or the end. */
    private static int nextExchange(List<Event> events, int from) {
        for (int i = from; i < events.size(); i++) {
            if (events.get(i).payload() instanceof UserMessage) {
                return i;
            }
        }
        return events.size();
    }
}
