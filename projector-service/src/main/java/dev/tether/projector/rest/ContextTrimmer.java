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
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.IntBinaryOperator;

/**
 * Fits a context into {@code maxTokens} by leaving out the oldest events after the compaction
 * point, a whole exchange at a time (up to the next user message before which every earlier tool
 * call has its result, when the result came after the user spoke again), so no tool call is
 * separated from its result. The system prompt, the pinned objective, the summary, the facts and the tail
 * always stay. Dropping events changes the prefix: a client that wants a stable prefix compacts
 * instead (the response's {@code compactionAdvised}).
 *
 * <p>It leaves out as few exchanges as it can: the context it returns has at most {@code maxTokens} tokens, and with
 * one exchange more it would have more. What that costs does not grow with the part left out: the exchanges are
 * counted from the newest back, each once, until the next one would not fit (an exchange's messages are the same in
 * every context it is part of, so each message is counted once, {@link TokenCounter.Memo}, and encoded only if the
 * counter did not keep its count from an earlier read). In a format that renders each turn apart (OpenAI's,
 * {@link ContextFormat#rendersTurnsApart}) an exchange's messages are rendered alone, without the header and the tail
 * around them, their sum is the count of the context found, and that context is rendered once. In one that merges
 * messages across exchanges (Anthropic's consecutive runs of one role) each exchange is rendered between the header and
 * the tail, the context found is counted whole, and exchanges are dropped or taken back one at a time until the count is
 * exact.
 */
final class ContextTrimmer {

    /**
     * @param droppedEvents the events left out, from the first after the compaction point
     * @param tokens        the context's tokens, as {@link TokenCounter#count} counts them
     */
    record Trimmed(ModelContext context, int droppedEvents, int tokens) {}

    private ContextTrimmer() {}

    static Trimmed fit(ContextInput input, ContextFormat format, Integer maxTokens, TokenCounter.Memo counted) {
        if (maxTokens == null) {
            ModelContext full = ContextRenderer.render(input, format);
            return new Trimmed(full, 0, counted.count(full));
        }
        List<Event> events = input.events();
        List<Integer> starts = exchangeStarts(events);

        // the header and the tail alone, then whole exchanges from the newest back while they fit
        int bare = counted.count(render(input, events.size(), events.size(), format));
        IntBinaryOperator exchangeTokens = format.rendersTurnsApart()
                ? (from, to) -> counted.count(ContextRenderer.turnMessages(events.subList(from, to), format))
                : (from, to) -> counted.count(render(input, from, to, format)) - bare;
        int at = starts.size() - 1; // starts.get(at): the first event kept; the last entry keeps none
        long sum = bare;
        while (at > 0) {
            int exchange = exchangeTokens.applyAsInt(starts.get(at - 1), starts.get(at));
            if (sum + exchange > maxTokens) {
                break;
            }
            sum += exchange;
            at--;
        }

        ModelContext context = render(input, starts.get(at), events.size(), format);
        if (format.rendersTurnsApart()) {
            return new Trimmed(context, starts.get(at), Math.toIntExact(sum));
        }
        int count = counted.count(context);
        while (count > maxTokens && at < starts.size() - 1) {
            at++;
            context = render(input, starts.get(at), events.size(), format);
            count = counted.count(context);
        }
        while (at > 0) {
            ModelContext more = render(input, starts.get(at - 1), events.size(), format);
            int moreCount = counted.count(more);
            if (moreCount > maxTokens) {
                break;
            }
            at--;
            context = more;
            count = moreCount;
        }
        return new Trimmed(context, starts.get(at), count);
    }

    /** The context of {@code input} with only its events {@code from} (inclusive) to {@code to} (exclusive). */
    private static ModelContext render(ContextInput input, int from, int to, ContextFormat format) {
        return ContextRenderer.render(new ContextInput(input.start(), input.compaction(), input.facts(), input.events().subList(from, to),
                input.tail()), format);
    }

    /**
     * Where the context may start, in order: 0 (nothing left out), the index of every user message that no tool call
     * before it has its result after (a result may come after the user spoke again), and the number of events (all left
     * out).
     */
    static List<Integer> exchangeStarts(List<Event> events) {
        Map<String, Integer> resultAt = new HashMap<>();
        for (int i = 0; i < events.size(); i++) {
            if (events.get(i).payload() instanceof ToolResult r) {
                resultAt.putIfAbsent(r.callId(), i);
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
                    lastResultOfEarlierCalls = Math.max(lastResultOfEarlierCalls, resultAt.getOrDefault(call.callId(), -1));
                }
            }
        }
        if (!events.isEmpty()) {
            starts.add(events.size());
        }
        return starts;
    }
}
