package dev.tether.projector.context;

import dev.tether.core.event.Event;
import dev.tether.projector.domain.ContextInput;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Renders a session's events into the model context of a provider's format.
 *
 * <p>The context is, in order: the system prompt; the session's objective, verbatim; when the
 * context was compacted, {@code "Session so far:\n"} and the summary; the facts block (left out when
 * empty); the events after the compaction point; and last the volatile tail (seq, step, tokens,
 * status, what is pending, open work, time). Everything before the tail is made of event content only, never of
 * times, seqs or event ids, so it is byte-stable: without a compaction in between, the context at
 * seq N+1 starts with the first {@link ModelContext#stablePrefixSize()} messages of the context at N,
 * which is what prompt caches need.
 *
 * <p>Tool calls: each result is rendered right after the assistant message that made its call,
 * whenever it arrived, and every call without a result gets a stand-in cancellation
 * ({@code {"error":"cancelled_by_user"}}), so a provider never sees an unanswered call. A call whose
 * result has not arrived and whose turn was not interrupted is in flight: its real result may still
 * replace the stand-in, so the tail starts at the first assistant message with a call in flight. A
 * call whose turn was interrupted stays cancelled, and a later {@code CANCELLED} result renders the
 * same; a later {@code OK} or {@code ERROR} result for it, a race of the interruption with the tool,
 * replaces the cancellation and so changes the prefix once. Every call is rendered under an id both providers take
 * (letters, digits, {@code _} and {@code -}, at most 40 characters), the same in every context: its own, or one made
 * from it ({@code TranscriptWalk}).
 *
 * <p>How each event type is rendered is told by {@code TranscriptWalk}; the provider formats by
 * {@code OpenAiFormat} and {@code AnthropicFormat}.
 *
 * <p>Pure and thread-safe: the result depends on the arguments only.
 */
public final class ContextRenderer {

    private ContextRenderer() {}

    /**
     * The model context of {@code input} in {@code format}.
     *
     * @throws IllegalArgumentException for an event type this renderer does not know how to render
     */
    public static ModelContext render(ContextInput input, ContextFormat format) {
        Objects.requireNonNull(input, "input");
        Objects.requireNonNull(format, "format");
        Conversation conversation = Conversation.of(input);
        return switch (format) {
            case OPENAI -> OpenAiFormat.render(conversation);
            case ANTHROPIC -> AnthropicFormat.render(conversation);
        };
    }

    /**
     * The messages of the turns of {@code events} alone, in a format that renders each turn apart
     * ({@link ContextFormat#rendersTurnsApart}): the same as theirs in any context that holds these events and others
     * before and after them, provided every tool call among them has its first result among them or none at all,
     * none of them is the first result of a call before them (so no result is rendered apart from its call), and no call
     * id among them, or named by a note among them, is asked for twice in that context (a fork's own call reusing its
     * parent's id is rendered {@code <id>_2} there, but as asked here).
     *
     * @throws IllegalArgumentException for a format that merges turns, or an event type this renderer does not know
     */
    public static List<Map<String, Object>> turnMessages(List<Event> events, ContextFormat format) {
        Objects.requireNonNull(events, "events");
        Objects.requireNonNull(format, "format");
        if (!format.rendersTurnsApart()) {
            throw new IllegalArgumentException(format + " merges neighbouring turns: render the whole context instead");
        }
        Transcript transcript = Transcript.of(events);
        var turns = new ArrayList<Turn>(transcript.settled());
        turns.addAll(transcript.unsettled());
        return OpenAiFormat.messages(turns);
    }
}
