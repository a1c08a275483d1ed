package dev.tether.langchain4j;

import dev.tether.client.ToolMode;
import java.util.List;
import java.util.Objects;

/**
 * What the session of a new chat memory is created with ({@code session_started}). The system prompt is the memory's
 * first message when that is a {@code SystemMessage}, else {@link #systemPrompt()}.
 *
 * <pre>{@code
 * MemorySession.of("Answer questions about orders").withModelId("gpt-4.1").withConstraints(List.of("never refund twice"))
 * }</pre>
 *
 * @param objective    the session's objective, pinned verbatim; not blank
 * @param modelId      the model the session is pinned to; null: the harness version's
 * @param toolMode     the tool mode (what the tool-executor's built-in tools may do); WRITE by default
 * @param systemPrompt the system prompt when the memory does not start with a system message; may be null
 * @param constraints  rules the agent must keep (Tether's context shows them among the authoritative facts)
 * @param tokenBudget  the session's token budget; null for none
 */
public record MemorySession(String objective, String modelId, ToolMode toolMode, String systemPrompt, List<String> constraints,
                            Long tokenBudget) {

    public MemorySession {
        Objects.requireNonNull(objective, "objective");
        if (objective.isBlank()) {
            throw new IllegalArgumentException("objective must not be blank");
        }
        Objects.requireNonNull(toolMode, "toolMode");
        constraints = List.copyOf(constraints);
    }

    /** A session with this objective, on the model {@code langchain4j}, in tool mode WRITE. */
    public static MemorySession of(String objective) {
        return new MemorySession(objective, "langchain4j", ToolMode.WRITE, null, List.of(), null);
    }

    public MemorySession withModelId(String id) {
        return new MemorySession(objective, id, toolMode, systemPrompt, constraints, tokenBudget);
    }

    public MemorySession withToolMode(ToolMode mode) {
        return new MemorySession(objective, modelId, mode, systemPrompt, constraints, tokenBudget);
    }

    public MemorySession withSystemPrompt(String prompt) {
        return new MemorySession(objective, modelId, toolMode, prompt, constraints, tokenBudget);
    }

    public MemorySession withConstraints(List<String> rules) {
        return new MemorySession(objective, modelId, toolMode, systemPrompt, rules, tokenBudget);
    }

    public MemorySession withTokenBudget(long budget) {
        return new MemorySession(objective, modelId, toolMode, systemPrompt, constraints, budget);
    }
}
