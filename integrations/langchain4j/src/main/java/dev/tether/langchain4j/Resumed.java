package dev.tether.langchain4j;

import dev.langchain4j.data.message.ToolExecutionResultMessage;
import java.util.List;
import java.util.Objects;

/**
 * What {@link TetherTools#resume} did for a memory, and what the memory needs next.
 *
 * @param next    who acts next: the model, a person, or nobody
 * @param results the result messages it put into the memory, in the AI message's order (empty when it put none)
 * @param pending the calls that wait for a person (when {@code next} is {@link Next#PERSON})
 */
public record Resumed(Next next, List<ToolExecutionResultMessage> results, List<ToolCallPendingException> pending) {

    /** Who acts next on the memory. */
    public enum Next {
        /** The memory ends with a user message or tool results the model has not answered: call the AI Service again. */
        MODEL,
        /** Calls wait for an approver (a decision, or an unknown outcome to settle): resume again once they are decided. */
        PERSON,
        /** The memory is empty, or its last turn is complete. */
        NOTHING
    }

    public Resumed {
        Objects.requireNonNull(next, "next");
        results = List.copyOf(results);
        pending = List.copyOf(pending);
    }
}
