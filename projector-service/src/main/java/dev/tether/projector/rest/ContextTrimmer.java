package dev.tether.projector.rest;

import dev.tether.core.event.AssistantMessage;
import dev.tether.core.event.Event;
import dev.tether.core.event.EventPayload;
import dev.tether.core.event.ToolCall;
import dev.tether.core.event.ToolResult;
import dev.tether.core.event.UserMessage;
import dev.tether.projector.context.ContextFormat;
import dev.tether.projector.context.ContextRenderer;
import dev.tether.projector.context.ModelContext;
import dev.tether.projector.context.TokenCounter;
import dev.tether.projector.domain.ContextInput;
import dev.tether.projector.domain.LazyEvents;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
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
 * one exchange more it would have more; unless what always stays is itself over {@code maxTokens}, when every exchange is
 * left out and the context's count, above {@code maxTokens}, says so. What that costs does not grow with the part left
 * out: the exchanges are counted from the newest back, each once, until the next one would not fit (an exchange's
 * messages are the same in
 * every context it is part of, so each message is counted once, {@link TokenCounter.Memo}, and encoded only if the
 * counter did not keep its count from an earlier read), and the events are read no further back than those exchanges and
 * the one that did not fit ({@link ExchangeStarts}; {@link LazyEvents} reads a session's events when first looked at).
 * In a format that renders each turn apart (OpenAI's, {@link ContextFormat#rendersTurnsApart}) an exchange's messages
 * are rendered alone, without the header and the tail around them, their sum is the count of the context found, and
 * that context is rendered once; unless a call id repeats among them (a fork's own call reusing its parent's, renamed in
 * the whole context only), when the context found is counted whole as below. In one that merges messages across
 * exchanges (Anthropic's consecutive runs of one role) each exchange is rendered between the header and the tail, the
 * context found is counted whole, and exchanges are dropped or taken back one at a time until the count is exact.
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
        var starts = new ExchangeStarts(events);

        // the header and the tail alone, then whole exchanges from the newest back while they fit
        int bare = counted.count(render(input, events.size(), events.size(), format));
        IntBinaryOperator exchangeTokens = format.rendersTurnsApart()
                ? (from, to) -> counted.count(ContextRenderer.turnMessages(events.subList(from, to), format))
                : (from, to) -> counted.count(render(input, from, to, format)) - bare;
        int kept = 0; // exchanges kept: the context starts at starts.fromEnd(kept)
        long sum = bare;
        while (starts.fromEnd(kept + 1) >= 0) {
            int exchange = exchangeTokens.applyAsInt(starts.fromEnd(kept + 1), starts.fromEnd(kept));
            if (sum + exchange > maxTokens) {
                break;
            }
            sum += exchange;
            kept++;
        }

        ModelContext context = render(input, starts.fromEnd(kept), events.size(), format);
        if (format.rendersTurnsApart() && !reusesACallId(events.subList(starts.fromEnd(kept), events.size()))) {
            return new Trimmed(context, starts.fromEnd(kept), Math.toIntExact(sum));
        }
        // a format that merges turns across exchanges, or a fork whose own calls reuse its parent's ids (rendered as
        // <id>_2 in the whole context, but as asked in an exchange rendered alone): counted whole, then made exact
        int count = counted.count(context);
        while (count > maxTokens && kept > 0) {
            kept--;
            context = render(input, starts.fromEnd(kept), events.size(), format);
            count = counted.count(context);
        }
        while (starts.fromEnd(kept + 1) >= 0) {
            ModelContext more = render(input, starts.fromEnd(kept + 1), events.size(), format);
            int moreCount = counted.count(more);
            if (moreCount > maxTokens) {
                break;
            }
            kept++;
            context = more;
            count = moreCount;
        }
        return new Trimmed(context, starts.fromEnd(kept), count);
    }

    /** Whether a tool call id is asked for twice among {@code events} (a fork's calls may reuse its parent's). */
    private static boolean reusesACallId(List<Event> events) {
        var ids = new HashSet<String>();
        for (Event e : events) {
            if (e.payload() instanceof AssistantMessage m) {
                for (ToolCall call : m.toolCalls()) {
                    if (!ids.add(call.callId())) {
                        return true;
                    }
                }
            }
        }
        return false;
    }

    /** The context of {@code input} with only its events {@code from} (inclusive) to {@code to} (exclusive). */
    private static ModelContext render(ContextInput input, int from, int to, ContextFormat format) {
        return ContextRenderer.render(new ContextInput(input.start(), input.compaction(), input.facts(), input.events().subList(from, to),
                input.tail()), format);
    }

    /**
     * Where the context may start, found from the newest events back, looking no further back than the start asked for
     * needs: {@link #fromEnd}{@code (0)} is the number of events (all left out), then every user message before which no
     * tool call has its first result after it (a result may come after the user spoke again), newest first, and last 0
     * (nothing left out).
     *
     * <p>Going back, a call whose first result was seen blocks the user messages between the two: none of them is a start.
     * A user message is known to be one once no call whose first result lies after it is still unseen: such a call is
     * further back and would block it; if the events' start comes first, the call was before the compaction point and
     * blocks nothing. Each result comes after its call (the sequencer refuses anything else) and belongs to the latest
     * call with its id before it: a session's call ids are unique, but a fork's own calls may reuse its parent's, as
     * {@code TranscriptWalk} pairs them too. Going back, a call therefore takes the results with its id seen since the
     * last call with it, and a result further back starts over for an earlier call. So the starts are those a pass over
     * every event from the oldest finds, as {@code ContextTrimmerTest} checks against one.
     */
    static final class ExchangeStarts {

        private final List<Event> events;
        private final List<Integer> found = new ArrayList<>(); // newest first
        private final TreeSet<Integer> undecided = new TreeSet<>(); // user messages that may yet be blocked
        private final Map<String, Integer> firstResults = new HashMap<>(); // call id -> first result seen, its call not seen yet
        private final TreeMap<Integer, String> awaited = new TreeMap<>(); // the same: first result -> call id
        private int seen; // events[seen..] are looked at

        ExchangeStarts(List<Event> events) {
            this.events = events;
            this.seen = events.size();
            found.add(events.size());
        }

        /** The {@code k}-th start from the newest back, 0 for the number of events; -1 when there are fewer. */
        int fromEnd(int k) {
            while (found.size() <= k && found.get(found.size() - 1) > 0) {
                found.add(next());
            }
            return k < found.size() ? found.get(k) : -1;
        }

        private int next() {
            while (true) {
                if (!undecided.isEmpty() && (seen == 0 || awaited.isEmpty() || awaited.lastKey() < undecided.last())) {
                    return undecided.pollLast();
                }
                if (seen == 0) {
                    return 0; // the results still awaited answer calls before the compaction point
                }
                look(--seen);
            }
        }

        private void look(int i) {
            EventPayload payload = events.get(i).payload();
            if (payload instanceof ToolResult r) {
                Integer later = firstResults.put(r.callId(), i);
                if (later != null) {
                    awaited.remove(later);
                }
                awaited.put(i, r.callId());
            } else if (payload instanceof AssistantMessage m) {
                for (var call : m.toolCalls()) {
                    Integer result = firstResults.remove(call.callId()); // an earlier result with this id is an earlier call's
                    if (result != null) {
                        undecided.subSet(i, false, result, false).clear();
                        awaited.remove(result);
                    }
                }
            } else if (payload instanceof UserMessage && i > 0) {
                undecided.add(i);
            }
        }
    }
}
