package dev.tether.projector.context;

import dev.tether.core.event.ToolCall;
import java.util.List;
import java.util.Objects;

/**
 * One turn of a model context before it is put in a provider's format: what the user side said
 * (a user message, a note about an event, the pinned header) or what the model said (its text and
 * its tool calls with their outcomes). Immutable.
 */
sealed interface Turn {

    /** Who a turn is attributed to in the provider's messages. */
    enum Role { USER, ASSISTANT }

    Role role();

    /**
     * Text on the user side: a user message, a note about an event, the header or the volatile tail.
     *
     * @param text the text, never blank: a blank message is left out, a blank objective replaced
     *             ({@link Conversation#NO_OBJECTIVE})
     */
    record User(String text) implements Turn {
        public User {
            Objects.requireNonNull(text, "text");
        }

        @Override
        public Role role() {
            return Role.USER;
        }
    }

    /**
     * A model turn: its text and its tool calls, each with the outcome it is rendered with.
     *
     * @param text  the model's text, possibly empty when it has calls
     * @param calls the tool calls in the order the model made them, possibly empty when it has text
     */
    record Assistant(String text, List<CallOutcome> calls) implements Turn {
        public Assistant {
            Objects.requireNonNull(text, "text");
            calls = List.copyOf(calls);
            if (text.isEmpty() && calls.isEmpty()) {
                throw new IllegalArgumentException("an assistant turn needs text or calls");
            }
        }

        @Override
        public Role role() {
            return Role.ASSISTANT;
        }

        /** Whether a call of this turn still waits for its result, so its rendering may still change. */
        boolean inFlight() {
            return calls.stream().anyMatch(CallOutcome::inFlight);
        }
    }

    /**
     * A tool call and the result it is rendered with.
     *
     * @param call     the call as the model made it
     * @param content  the result's text as the model sees it
     * @param error    whether the call failed, was cancelled or has an unknown outcome
     * @param inFlight whether no result has arrived and the turn was not interrupted: the content is then a
     *                 stand-in cancellation that the real result will replace
     */
    record CallOutcome(ToolCall call, String content, boolean error, boolean inFlight) {
        public CallOutcome {
            Objects.requireNonNull(call, "call");
            Objects.requireNonNull(content, "content");
        }
    }
}
