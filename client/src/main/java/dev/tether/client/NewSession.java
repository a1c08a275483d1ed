package dev.tether.client;

import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * What a new session starts with ({@code session_started}): the objective (the first user message,
 * pinned verbatim), the model it is pinned to and its tool mode; optionally its id, system prompt,
 * constraints, harness version and token budget.
 *
 * <p>The model: a harness version that names a model pins its new sessions to it. {@link #of(String,
 * ToolMode)} leaves the model to the version (refused, field {@code modelId}, if the version names
 * none); {@link #of(String, String, ToolMode)} names one, and is refused ({@code 409 model_pinned},
 * field {@code modelId}) when the version the session gets names another.
 *
 * <pre>{@code
 * NewSession.of("Rename Foo to Bar in src/", "claude-sonnet-4", ToolMode.WRITE)
 *         .withSessionId("demo-1")
 *         .withSystemPrompt("You are a careful engineer.")
 *         .withConstraints(List.of("keep the tests green"))
 * }</pre>
 *
 * <p>Without a session id the client chooses a random one before the first attempt, so a retried
 * create never makes two sessions. Without a harness version the session-service assigns one by the
 * versions' weights. Immutable and thread-safe.
 */
public final class NewSession {

    private final String objective;
    private final String modelId;
    private final ToolMode toolMode;
    private final String sessionId;
    private final String systemPrompt;
    private final List<String> constraints;
    private final String harnessVersion;
    private final Long tokenBudget;
    private final List<HarnessTool> harnessTools;

    private NewSession(String objective, String modelId, ToolMode toolMode, String sessionId, String systemPrompt, List<String> constraints,
                       String harnessVersion, Long tokenBudget) {
        this(objective, modelId, toolMode, sessionId, systemPrompt, constraints, harnessVersion, tokenBudget, List.of());
    }

    private NewSession(String objective, String modelId, ToolMode toolMode, String sessionId, String systemPrompt, List<String> constraints,
                       String harnessVersion, Long tokenBudget, List<HarnessTool> harnessTools) {
        this.objective = Ids.requireText(objective, "objective");
        this.modelId = modelId == null ? null : Ids.requireText(modelId, "modelId");
        this.toolMode = Objects.requireNonNull(toolMode, "toolMode");
        this.sessionId = sessionId;
        this.systemPrompt = systemPrompt;
        this.constraints = List.copyOf(constraints);
        this.harnessVersion = harnessVersion;
        this.tokenBudget = tokenBudget;
        this.harnessTools = List.copyOf(harnessTools);
    }

    /** A session on this model. */
    public static NewSession of(String objective, String modelId, ToolMode toolMode) {
        return new NewSession(objective, Ids.requireText(modelId, "modelId"), toolMode, null, null, List.of(), null, null);
    }

    /** A session on the model its harness version names. */
    public static NewSession of(String objective, ToolMode toolMode) {
        return new NewSession(objective, null, toolMode, null, null, List.of(), null, null);
    }

    /** The session's id: 1-128 letters, digits, {@code . _ -}, starting with a letter or digit. */
    public NewSession withSessionId(String id) {
        return new NewSession(objective, modelId, toolMode, Ids.require(id, "sessionId"), systemPrompt, constraints, harnessVersion,
                tokenBudget, harnessTools);
    }

    public NewSession withSystemPrompt(String prompt) {
        return new NewSession(objective, modelId, toolMode, sessionId, Objects.requireNonNull(prompt, "systemPrompt"), constraints,
                harnessVersion, tokenBudget, harnessTools);
    }

    /** Rules the agent must keep; the context shows them among the authoritative facts. */
    public NewSession withConstraints(List<String> list) {
        return new NewSession(objective, modelId, toolMode, sessionId, systemPrompt, noNulls(list, "constraints"), harnessVersion, tokenBudget,
                harnessTools);
    }

    /** Pins the session to this harness version instead of letting the weights choose. */
    public NewSession withHarnessVersion(String version) {
        return new NewSession(objective, modelId, toolMode, sessionId, systemPrompt, constraints, Ids.require(version, "harnessVersion"),
                tokenBudget, harnessTools);
    }

    /** The most tokens the session's model turns may use in all; an assistant message beyond it is refused. */
    public NewSession withTokenBudget(long tokens) {
        if (tokens < 1) {
            throw new IllegalArgumentException("tokenBudget must be at least 1, not " + tokens);
        }
        return new NewSession(objective, modelId, toolMode, sessionId, systemPrompt, constraints, harnessVersion, tokens, harnessTools);
    }

    /**
     * The tools the session's harness runs itself (docs/ARCHITECTURE.md §6, "Harness-run tools"), e.g.
     * {@code runner.declarations()} of a {@link HarnessToolRunner}; fixed for the session's life. Names must be unique
     * (at most 64 tools), and a READ_ONLY session declares no mutating tool (both refused by the service, field
     * {@code harnessTools}).
     */
    public NewSession withHarnessTools(List<HarnessTool> tools) {
        return new NewSession(objective, modelId, toolMode, sessionId, systemPrompt, constraints, harnessVersion, tokenBudget,
                noNulls(tools, "harnessTools"));
    }

    /** A copy of {@code list}; a null list, or a null in it, is refused naming it ({@code constraints[1]}). */
    static <T> List<T> noNulls(List<T> list, String name) {
        Objects.requireNonNull(list, name);
        for (int i = 0; i < list.size(); i++) {
            Objects.requireNonNull(list.get(i), name + "[" + i + "]");
        }
        return List.copyOf(list);
    }

    /** The harness-run tools it declares; empty for none. */
    public List<HarnessTool> harnessTools() {
        return harnessTools;
    }

    public String objective() {
        return objective;
    }

    /** The model the request names; empty: the harness version's. */
    public Optional<String> modelId() {
        return Optional.ofNullable(modelId);
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

    public Optional<String> harnessVersion() {
        return Optional.ofNullable(harnessVersion);
    }

    public OptionalLong tokenBudget() {
        return tokenBudget == null ? OptionalLong.empty() : OptionalLong.of(tokenBudget);
    }

    @Override
    public String toString() {
        return "NewSession[" + (sessionId == null ? "(id chosen at create)" : sessionId) + ", model=" + (modelId == null ? "(the version's)" : modelId) + ", " + toolMode + "]";
    }
}
