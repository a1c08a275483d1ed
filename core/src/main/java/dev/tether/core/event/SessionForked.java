package dev.tether.core.event;

import java.time.Instant;
import java.util.List;

/**
 * {@code session_forked}: the first event of a session forked from another one at {@code atSeq}.
 * It carries what the fork is pinned to, copied from the parent as it stood at that seq; the
 * fork's context is the parent's at {@code atSeq} followed by the fork's own events. Its harness runs the tools the
 * parent's did ({@code harnessTools}).
 *
 * @param parentEventId the eventId of the parent's event at {@code atSeq}, and {@code parentEventAt} its occurredAt: a
 *                      session id is a name, free again once its session is erased, and these tell the parent forked
 *                      from a later session of the same id (which may repeat the eventId, derived from a step, but
 *                      not the time the sequencer accepted it); null in a fork made before they were recorded
 * @param tokenBudget   the most tokens the fork may use, as a session's {@code tokenBudget}: what its parent had left at
 *                      {@code atSeq}, or less if the fork asked for less; null for a fork of a session without a budget
 *                      (and in a fork made before forks kept one)
 */
public record SessionForked(String parentSessionId, long atSeq, String objective, String systemPrompt, String modelId,
                            String harnessVersion, ToolMode toolMode, List<String> constraints, List<HarnessTool> harnessTools,
                            String parentEventId, Instant parentEventAt, Long tokenBudget)
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
        if (parentEventId != null) {
            Fields.nonBlank(parentEventId, "parentEventId");
        }
        if (tokenBudget != null) {
            Fields.positive(tokenBudget, "tokenBudget");
        }
    }

    /** A fork without a token budget. */
    public SessionForked(String parentSessionId, long atSeq, String objective, String systemPrompt, String modelId,
                         String harnessVersion, ToolMode toolMode, List<String> constraints, List<HarnessTool> harnessTools,
                         String parentEventId, Instant parentEventAt) {
        this(parentSessionId, atSeq, objective, systemPrompt, modelId, harnessVersion, toolMode, constraints, harnessTools, parentEventId,
                parentEventAt, null);
    }

    /** A fork whose parent's event at the fork point is not recorded. */
    public SessionForked(String parentSessionId, long atSeq, String objective, String systemPrompt, String modelId,
                         String harnessVersion, ToolMode toolMode, List<String> constraints, List<HarnessTool> harnessTools) {
        this(parentSessionId, atSeq, objective, systemPrompt, modelId, harnessVersion, toolMode, constraints, harnessTools, null, null, null);
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
