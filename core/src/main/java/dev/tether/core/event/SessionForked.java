package dev.tether.core.event;

import java.util.List;

/**
 * {@code session_forked}: the first event of a session forked from another one at {@code atSeq}.
 * It carries what the fork is pinned to, copied from the parent as it stood at that seq; the
 * fork's context is the parent's at {@code atSeq} followed by the fork's own events. Its harness runs the tools the
 * parent's did ({@code harnessTools}).
 */
public record SessionForked(String parentSessionId, long atSeq, String objective, String systemPrompt, String modelId,
                            String harnessVersion, ToolMode toolMode, List<String> constraints, List<HarnessTool> harnessTools)
        implements EventPayload {

    public static final String TYPE = "session_forked";

    public SessionForked {
        Fields.nonBlank(parentSessionId, "parentSessionId");
        Fields.positive(atSeq, "atSeq");
        objective = objective == null ? "" : objective;
        systemPrompt = systemPrompt == null ? "" : systemPrompt;
        Fields.nonBlank(modelId, "modelId");
        Fields.nonBlank(harnessVersion, "harnessVersion");
        Fields.required(toolMode, "toolMode");
        constraints = Fields.list(constraints, "constraints");
        harnessTools = HarnessTool.declaration(harnessTools, toolMode);
    }

    /** A fork of a session whose every call the tool-executor runs. */
    public SessionForked(String parentSessionId, long atSeq, String objective, String systemPrompt, String modelId,
                         String harnessVersion, ToolMode toolMode, List<String> constraints) {
        this(parentSessionId, atSeq, objective, systemPrompt, modelId, harnessVersion, toolMode, constraints, List.of());
    }

    @Override
    public String type() {
        return TYPE;
    }
}
