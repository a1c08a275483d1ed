package dev.tether.client;

import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * What a subagent starts with: a session of its own under a parent ({@code session_started} with its
 * {@code parentSessionId}), pinned to the parent's model and harness version. Its tool mode may be no wider than the
 * parent's; when the parent has a token budget, the subagent needs one, no larger than what the parent has left
 * ({@code budget_exceeded}, field {@code tokenBudget}). When it closes, only its outcome enters the parent's log
 * ({@code subagent_result}).
 *
 * <pre>{@code
 * NewSubagent.of("Find the callers of Foo", ToolMode.READ_ONLY).withTokenBudget(20_000)
 * }</pre>
 *
 * <p>Without a session id the client chooses a random one before the first attempt, so a retried start never makes two
 * subagents. Immutable and thread-safe.
 */
public final class NewSubagent {

    private final String objective;
    private final ToolMode toolMode;
    private final String sessionId;
    private final String systemPrompt;
    private final List<String> constraints;
    private final Long tokenBudget;
    private final List<HarnessTool> harnessTools;

    private NewSubagent(String objective, ToolMode toolMode, String sessionId, String systemPrompt, List<String> constraints,
                        Long tokenBudget, List<HarnessTool> harnessTools) {
        this.objective = Ids.requireText(objective, "objective");
        this.toolMode = Objects.requireNonNull(toolMode, "toolMode");
        this.sessionId = sessionId;
        this.systemPrompt = systemPrompt;
        this.constraints = List.copyOf(constraints);
        this.tokenBudget = tokenBudget;
        this.harnessTools = List.copyOf(harnessTools);
    }

    /** A subagent for {@code objective} with {@code toolMode} (no wider than its parent's). */
    public static NewSubagent of(String objective, ToolMode toolMode) {
        return new NewSubagent(objective, toolMode, null, null, List.of(), null, List.of());
    }

    /** The subagent's session id: 1-128 letters, digits, {@code . _ -}, starting with a letter or digit. */
    public NewSubagent withSessionId(String id) {
        return new NewSubagent(objective, toolMode, Ids.require(id, "sessionId"), systemPrompt, constraints, tokenBudget, harnessTools);
    }

    public NewSubagent withSystemPrompt(String prompt) {
        return new NewSubagent(objective, toolMode, sessionId, Objects.requireNonNull(prompt, "systemPrompt"), constraints, tokenBudget,
                harnessTools);
    }

    /** Rules the subagent must keep; its context shows them among the authoritative facts. */
    public NewSubagent withConstraints(List<String> list) {
        return new NewSubagent(objective, toolMode, sessionId, systemPrompt, NewSession.noNulls(list, "constraints"), tokenBudget, harnessTools);
    }

    /** The most tokens its model turns may use: required, and no more than the parent has left, when the parent has a budget. */
    public NewSubagent withTokenBudget(long tokens) {
        if (tokens < 1) {
            throw new IllegalArgumentException("tokenBudget must be at least 1, not " + tokens);
        }
        return new NewSubagent(objective, toolMode, sessionId, systemPrompt, constraints, tokens, harnessTools);
    }

    /** The tools the subagent's harness runs itself, as {@link NewSession#withHarnessTools}. */
    public NewSubagent withHarnessTools(List<HarnessTool> tools) {
        return new NewSubagent(objective, toolMode, sessionId, systemPrompt, constraints, tokenBudget, NewSession.noNulls(tools, "harnessTools"));
    }

    public String objective() {
        return objective;
    }

    public ToolMode toolMode() {
        return toolMode;
    }

    public Optional<String> sessionId() {
        return Optional.ofNullable(sessionId);
    }

    public Optional<String> systemPrompt() {
        return Optional.ofNullable(systemPrompt);
    }

    public List<String> constraints() {
        return constraints;
    }

    public OptionalLong tokenBudget() {
        return tokenBudget == null ? OptionalLong.empty() : OptionalLong.of(tokenBudget);
    }

    /** The harness-run tools it declares; empty for none. */
    public List<HarnessTool> harnessTools() {
        return harnessTools;
    }

    @Override
    public String toString() {
        return "NewSubagent[" + (sessionId == null ? "" : sessionId + ", ") + toolMode + (tokenBudget == null ? "" : ", budget " + tokenBudget)
                + "]";
    }
}
