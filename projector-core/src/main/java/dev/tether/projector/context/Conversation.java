package dev.tether.projector.context;

import dev.tether.projector.domain.ContextInput;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * A model context before it is put in a provider's format.
 *
 * <p>The stable turns are the header (the pinned objective, the summary of a compaction, the facts
 * block) and the settled turns of the events; they render the same in every later context until
 * the next compaction. The unsettled turns start at the first assistant turn with a tool call in
 * flight. The tail turn holds the volatile values and comes last. Immutable.
 *
 * @param systemPrompt the session's system prompt
 * @param stable       the turns that no later event changes
 * @param unsettled    the turns a later result may still change
 * @param tail         the volatile values, as a user turn
 */
record Conversation(String systemPrompt, List<Turn> stable, List<Turn> unsettled, Turn.User tail) {

    /** The prefix of the summary message of a compaction. */
    static final String SUMMARY_HEADLINE = "Session so far:\n";

    Conversation {
        Objects.requireNonNull(systemPrompt, "systemPrompt");
        stable = List.copyOf(stable);
        unsettled = List.copyOf(unsettled);
        Objects.requireNonNull(tail, "tail");
    }

    /** The conversation of {@code input}. */
    static Conversation of(ContextInput input) {
        Transcript transcript = Transcript.of(input.events());
        var stable = new ArrayList<>(header(input));
        stable.addAll(transcript.settled());
        return new Conversation(input.start().systemPrompt(), stable, transcript.unsettled(),
                new Turn.User(VolatileTailText.of(input.tail())));
    }

    /**
     * What the header says in place of an objective that is empty or only whitespace, which a provider may refuse as a
     * message's text (Anthropic). The session-service refuses such an objective; a session started before it did may have
     * one.
     */
    static final String NO_OBJECTIVE = "(no objective was given)";

    /** The objective verbatim (unless blank), the summary when compacted, then the facts block unless it is empty. */
    private static List<Turn> header(ContextInput input) {
        var header = new ArrayList<Turn>();
        String objective = input.start().objective();
        header.add(new Turn.User(objective.isBlank() ? NO_OBJECTIVE : objective));
        if (input.compaction() != null) {
            String summary = ContentText.of(input.compaction().summary(), input.compaction().summaryRef());
            header.add(new Turn.User(SUMMARY_HEADLINE + summary));
        }
        if (!input.facts().isEmpty()) {
            header.add(new Turn.User(input.facts()));
        }
        return header;
    }
}
