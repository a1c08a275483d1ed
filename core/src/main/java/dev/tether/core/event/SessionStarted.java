package dev.tether.core.event;

import java.util.List;

/**
 * {@code session_started}: The first event of every session: what it is for and what it is pinned to, and which tools its
 * harness runs itself ({@code harnessTools}, empty when the tool-executor runs every call).
 */
public record SessionStarted(String objective, String systemPrompt, String modelId, String harnessVersion, ToolMode toolMode,
                             List<String> constraints, Long tokenBudget, String parentSessionId, List<HarnessTool> harnessTools)
        implements EventPayload {

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
        harnessTools = HarnessTool.declaration(harnessTools, toolMode);
    }

    /** A session whose every call the tool-executor runs. */
    public SessionStarted(String objective, String systemPrompt, String modelId, String harnessVersion, ToolMode toolMode,
                          List<String> constraints, Long tokenBudget, String parentSessionId) {
        this(objective, systemPrompt, modelId, harnessVersion, toolMode, constraints, tokenBudget, parentSessionId, List.of());
    }

    @Override
    public String type() {
        return TYPE;
    }
}
