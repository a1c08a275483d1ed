package dev.tether.projector.context;

import dev.tether.projector.domain.ContextInput;
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
 * replaces the cancellation and so changes the prefix once.
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
}
