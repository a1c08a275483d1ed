package dev.tether.core.event;

import java.time.Instant;
import java.util.List;

/**
 * {@code session_started}: The first event of every session: what it is for and what it is pinned to, and which tools its
 * harness runs itself ({@code harnessTools}, empty when the tool-executor runs every call).
 *
 * @param parentStartedAt a subagent's: when the sequencer accepted its parent's first event. A session id is a name, free
 *                        again once its session is erased; this tells the parent the subagent was started under from a
 *                        later session of the same id, which its result must not reach. Null in a session that is not a
 *                        subagent, and in a subagent started before it was recorded (or under a parent whose start its
 *                        head did not keep)
 */
public record SessionStarted(String objective, String systemPrompt, String modelId, String harnessVersion, ToolMode toolMode,
                             List<String> constraints, Long tokenBudget, String parentSessionId, List<HarnessTool> harnessTools,
                             Instant parentStartedAt)
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
        if (parentStartedAt != null && parentSessionId == null) {
            throw new InvalidEventException("parentStartedAt", "is a subagent's: it needs parentSessionId");
        }
    }

    /** A session whose parent's start is not recorded (or that has no parent). */
    public SessionStarted(String objective, String systemPrompt, String modelId, String harnessVersion, ToolMode toolMode,
                          List<String> constraints, Long tokenBudget, String parentSessionId, List<HarnessTool> harnessTools) {
        this(objective, systemPrompt, modelId, harnessVersion, toolMode, constraints, tokenBudget, parentSessionId, harnessTools, null);
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
