package dev.tether.core.event;

import java.util.List;

/** {@code session_started}: The first event of every session: what it is for and what it is pinned to. */
public record SessionStarted(String objective, String systemPrompt, String modelId, String harnessVersion, ToolMode toolMode, List<String> constraints, Long tokenBudget, String parentSessionId) implements EventPayload {

    public static final String TYPE = "session_started";

    public SessionStarted {
        Fields.text(objective, "objective");
        Fields.text(systemPrompt, "systemPrompt");
        Fields.nonBlank(modelId, "modelId");
        Fields.nonBlank(harnessVersion, "harnessVersion");
        Fields.required(toolMode, "toolMode");
        constraints = Fields.list(constraints, "constraints");
        if (tokenBudget != null && tokenBudget < 1) {
            throw new InvalidEventException("tokenBudget", "must be at least 1");
        }
    }

    @Override
    public String type() {
        return TYPE;
    }
}
