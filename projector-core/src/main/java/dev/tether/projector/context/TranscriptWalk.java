package dev.tether.projector.context;

import dev.tether.core.event.ApprovalDenied;
import dev.tether.core.event.ApprovalGranted;
import dev.tether.core.event.ApprovalRequested;
import dev.tether.core.event.AssistantMessage;
import dev.tether.core.event.ContextCompacted;
import dev.tether.core.event.EventPayload;
import dev.tether.core.event.FrameworkState;
import dev.tether.core.event.PlanUpdated;
import dev.tether.core.event.SessionClaimed;
import dev.tether.core.event.SessionClosed;
import dev.tether.core.event.SessionForked;
import dev.tether.core.event.SessionMigrated;
import dev.tether.core.event.SessionResumed;
import dev.tether.core.event.SessionStarted;
import dev.tether.core.event.StepCompleted;
import dev.tether.core.event.SubagentResult;
import dev.tether.core.event.ToolCall;
import dev.tether.core.event.ToolCallAuthorized;
import dev.tether.core.event.ToolCallStarted;
import dev.tether.core.event.ToolOutcomeResolved;
import dev.tether.core.event.ToolResult;
import dev.tether.core.event.TurnInterrupted;
import dev.tether.core.event.UnknownEvent;
import dev.tether.core.event.UserMessage;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;
import java.util.regex.Pattern;

/**
 * Walks a session's events in seq order and collects their turns. Mutable, for one walk by one thread.
 *
 * <p>What each event becomes:
 * <ul>
 *   <li>{@code user_message}: a user turn; {@code assistant_message}: an assistant turn (both left out when empty or
 *       only whitespace, which some providers refuse; an assistant turn's calls are kept without its text);
 *   <li>{@code tool_result}: the outcome of its call, inside the assistant turn that made the call, so it is
 *       rendered right after that turn whatever came in between; a result whose call is not among the events
 *       (compacted away) or that came a second time becomes a note at its own position, which names the call by the id
 *       it is rendered under (as does the note of a {@code tool_outcome_resolved});
 *   <li>a call id that a provider would refuse (other characters than letters, digits, {@code _} and {@code -}, or
 *       longer than 40) is rendered under one it takes ({@link #providerId}); a call id already rendered earlier in the
 *       context is rendered as {@code <id>_2} (or the next number free, cut to 40 characters): a
 *       session never reuses a call id, but a fork's own calls may reuse one of its parent's before the fork point,
 *       and providers refuse a context with one id twice (Anthropic: "tool_use ids must be unique"). Its result
 *       still finds it by the id the harness used, the latest call with that id;
 *   <li>{@code turn_interrupted}: an assistant turn with the partial text, marked; the calls of the latest
 *       assistant turn that have no result yet are final from then on: cancelled;
 *   <li>a fork point (the events pass from a parent's to its fork's, {@link #passForkPoint}): every call of the parent
 *       with no result yet is final from then on, cancelled, since the fork can never be given its result;
 *   <li>{@code plan_updated}, {@code step_completed}, {@code session_resumed}, {@code session_migrated},
 *       {@code subagent_result}, {@code session_closed}: a note (see {@link NoteText});
 *   <li>everything else is bookkeeping the model needs not see and is left out: the start (already in the
 *       header), forks, claims, approvals and authorizations (a denial reaches the model as the ERROR result
 *       of its call), a harness-run call's start (its result comes as any call's, and a start with none is
 *       dangling, closed as any call), compactions (the caller passes the latest one apart), a framework's own state
 *       ({@code framework_state}: Tether keeps it, the model never sees it) and types this version does not know.
 * </ul>
 */
final class TranscriptWalk {

    /** The longest tool call id OpenAI takes. */
    private static final int MAX_RENDERED_ID = 40;

    private static final Pattern PROVIDER_ID = Pattern.compile("[A-Za-z0-9_-]{1," + MAX_RENDERED_ID + "}");
    private static final int HASH_BYTES = 6; // 12 hex digits

    private final List<Supplier<Turn>> turns = new ArrayList<>();
    private final Map<String, OpenCall> awaitingResult = new HashMap<>();
    private final Set<String> renderedIds = new HashSet<>();
    private final Map<String, String> renderedIdOf = new HashMap<>(); // asked id -> rendered id, of the latest call with it
    private List<OpenCall> latestCalls = List.of();

    /** Adds the turn of the next event, if it has one. */
    void add(EventPayload payload) {
        if (payload instanceof UserMessage message) {
            addUser(ContentText.of(message.content(), message.contentRef()));
        } else if (payload instanceof AssistantMessage message) {
            addAssistant(message);
        } else if (payload instanceof ToolResult result) {
            addResult(result);
        } else if (payload instanceof TurnInterrupted interruption) {
            addInterruption(interruption);
        } else if (payload instanceof PlanUpdated plan) {
            addUser(NoteText.plan(plan));
        } else if (payload instanceof StepCompleted step) {
            addUser(NoteText.step(step));
        } else if (payload instanceof SessionResumed resumed) {
            addUser(NoteText.resumed(resumed));
        } else if (payload instanceof SessionMigrated migrated) {
            addUser(NoteText.migrated(migrated));
        } else if (payload instanceof SubagentResult result) {
            addUser(NoteText.subagent(result));
        } else if (payload instanceof SessionClosed closed) {
            addUser(NoteText.closed(closed));
        } else if (payload instanceof ToolOutcomeResolved resolved) {
            addUser(NoteText.resolved(resolved, shownId(resolved.callId())));
        } else if (!isBookkeeping(payload)) {
            throw new IllegalArgumentException("no rendering for event type " + payload.type());
        }
    }

    /** The turns collected so far, in event order. */
    List<Turn> turns() {
        return turns.stream().map(Supplier::get).toList();
    }

    private static boolean isBookkeeping(EventPayload payload) {
        return payload instanceof SessionStarted
                || payload instanceof SessionForked
                || payload instanceof SessionClaimed
                || payload instanceof ApprovalRequested
                || payload instanceof ApprovalGranted
                || payload instanceof ApprovalDenied
                || payload instanceof ToolCallAuthorized
                || payload instanceof ToolCallStarted
                || payload instanceof FrameworkState
                || payload instanceof ContextCompacted
                || payload instanceof UnknownEvent;
    }

    /**
     * Every call still waiting for its result becomes final, cancelled: the walk has passed a fork point into the fork's
     * own events, and a fork can never be given a result for a call its parent made (the sequencer refuses it; a fork's
     * head has no open calls), so nothing after this point may change how those calls render.
     */
    void passForkPoint() {
        awaitingResult.values().forEach(call -> call.interrupted = true);
        awaitingResult.clear();
    }

    /**
     * A user turn, left out when its text is only whitespace (as empty): a provider may refuse it (Anthropic: "text
     * content blocks must contain non-whitespace text"), and it says nothing to the model.
     */
    private void addUser(String text) {
        if (!text.isBlank()) {
            Turn turn = new Turn.User(text);
            turns.add(() -> turn);
        }
    }

    /** An assistant turn; text that is only whitespace is left out, as for a user turn ({@link #addUser}). */
    private void addAssistant(AssistantMessage message) {
        String content = ContentText.of(message.content(), message.contentRef());
        String text = content.isBlank() ? "" : content;
        latestCalls = message.toolCalls().stream().map(call -> new OpenCall(call.callId(), rendered(call))).toList();
        latestCalls.forEach(call -> awaitingResult.put(call.askedId, call));
        latestCalls.forEach(call -> renderedIdOf.put(call.askedId, call.call.callId()));
        if (!text.isEmpty() || !latestCalls.isEmpty()) {
            List<OpenCall> calls = latestCalls;
            turns.add(() -> new Turn.Assistant(text, calls.stream().map(OpenCall::outcome).toList()));
        }
    }

    /**
     * The id a note names a call by: the id its latest call is rendered under, so the model finds that call by it, or for a
     * call not among the events (compacted away) the id it would be rendered under.
     */
    private String shownId(String askedId) {
        return renderedIdOf.getOrDefault(askedId, providerId(askedId));
    }

    /** The call as rendered: under an id both providers take ({@link #providerId}) that no call rendered before it has. */
    private ToolCall rendered(ToolCall call) {
        String base = providerId(call.callId());
        String id = base;
        for (int n = 2; !renderedIds.add(id); n++) {
            String suffix = "_" + n;
            id = base.substring(0, Math.min(base.length(), MAX_RENDERED_ID - suffix.length())) + suffix;
        }
        return id.equals(call.callId()) ? call : new ToolCall(id, call.tool(), call.argumentsJson());
    }

    /**
     * {@code callId} if both providers take it as a tool call id: only ASCII letters, digits, {@code _} and {@code -}
     * (Anthropic: "tool_use.id: String should match pattern '^[a-zA-Z0-9_-]+$'"), at most {@value #MAX_RENDERED_ID}
     * characters (OpenAI: "string too long. Expected a string with maximum length 40"). Tether takes any call id up to
     * 128 characters, and frameworks make ids such as {@code functions.read_file:0} or 50-character item ids; such an id
     * is rendered as its first 27 characters, each one not allowed as {@code _}, then {@code _} and 12 hex digits of
     * its SHA-256: the same in every context, and two ids that differ are, but for a 48-bit hash collision (then the
     * later call is renamed as a reused id is), rendered apart.
     */
    private static String providerId(String callId) {
        if (PROVIDER_ID.matcher(callId).matches()) {
            return callId;
        }
        String hash = HexFormat.of().formatHex(sha256(callId), 0, HASH_BYTES);
        String kept = callId.substring(0, Math.min(callId.length(), MAX_RENDERED_ID - 1 - hash.length()));
        return kept.replaceAll("[^A-Za-z0-9_-]", "_") + "_" + hash;
    }

    private static byte[] sha256(String text) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java platform has SHA-256", e);
        }
    }

    private void addResult(ToolResult result) {
        OpenCall call = awaitingResult.remove(result.callId());
        if (call == null) {
            addUser(NoteText.orphanResult(result, shownId(result.callId())));
        } else {
            call.result = result;
        }
    }

    private void addInterruption(TurnInterrupted interruption) {
        latestCalls.forEach(call -> call.interrupted = true);
        Turn turn = new Turn.Assistant(ContentText.interrupted(interruption.partialText(), interruption.reason()), List.of());
        turns.add(() -> turn);
    }

    /** A call of an assistant turn and what has become of it so far. */
    private static final class OpenCall {
        private final String askedId; // as the harness asked for it, which its result names
        private final ToolCall call; // as rendered
        private ToolResult result;
        private boolean interrupted;

        OpenCall(String askedId, ToolCall call) {
            this.askedId = askedId;
            this.call = call;
        }

        Turn.CallOutcome outcome() {
            if (result != null) {
                return new Turn.CallOutcome(call, ToolResultText.of(result), ToolResultText.isError(result), false);
            }
            return new Turn.CallOutcome(call, ToolResultText.CANCELLED, true, !interrupted);
        }
    }
}
