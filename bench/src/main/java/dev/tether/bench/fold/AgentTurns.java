package dev.tether.bench.fold;

import dev.tether.core.event.Actor;
import dev.tether.core.event.ActorKind;
import dev.tether.core.event.AssistantMessage;
import dev.tether.core.event.AuthorizationBasis;
import dev.tether.core.event.Event;
import dev.tether.core.event.EventPayload;
import dev.tether.core.event.SessionStarted;
import dev.tether.core.event.StepCompleted;
import dev.tether.core.event.TokenUsage;
import dev.tether.core.event.ToolCall;
import dev.tether.core.event.ToolCallAuthorized;
import dev.tether.core.event.ToolMode;
import dev.tether.core.event.ToolResult;
import dev.tether.core.event.ToolStatus;
import dev.tether.core.event.UserMessage;
import dev.tether.core.id.IdempotencyKey;
import java.time.Instant;
import java.util.List;

/**
 * The benchmark's agent session, event by event, as the sequencer would have accepted it: {@code session_started}
 * at seq 1, then turns of five events (a user message, an assistant message asking for a tool, the approval-service's
 * authorization by policy, the tool's result, a completed step). Each event is attributed as the sequencer attributes
 * it ({@code Sequencer.actorFor}): the agent's principal, the approval-service, the tool-executor. The fold benchmark
 * folds it (figure 5) and figure 8's top-up writes it to {@code session-events}. Stateless.
 */
public final class AgentTurns {

    /** Tenant and principal of the bench's dev key ({@code dev-acme-agent}), so the SDK may read the sessions. */
    public static final String TENANT = "acme";
    public static final String AGENT = "acme-agent";
    public static final String HARNESS_VERSION = "v1";
    public static final String MODEL = "bench-model";

    private AgentTurns() {}

    /** The event at {@code seq} of session {@code sessionId}; the messages and the tool result carry {@code text}. */
    public static Event event(String sessionId, long seq, String eventId, Instant occurredAt, String text) {
        EventPayload payload;
        Actor actor;
        if (seq == 1) {
            payload = new SessionStarted("Rename Foo to Bar everywhere", "You are careful.", MODEL, HARNESS_VERSION, ToolMode.WRITE,
                    List.of("keep tests green"), null, null);
            actor = new Actor(ActorKind.USER, AGENT);
        } else {
            long turn = (seq - 2) / 5;
            String callId = "call-" + turn;
            switch ((int) ((seq - 2) % 5)) {
                case 0 -> {
                    payload = new UserMessage(text, null);
                    actor = new Actor(ActorKind.USER, AGENT);
                }
                case 1 -> {
                    payload = new AssistantMessage(text, null, List.of(new ToolCall(callId, "edit_file", "{\"path\":\"src/Foo.java\"}")),
                            new TokenUsage(300, 40));
                    actor = new Actor(ActorKind.MODEL, AGENT);
                }
                case 2 -> {
                    payload = new ToolCallAuthorized(callId, AuthorizationBasis.POLICY);
                    actor = new Actor(ActorKind.SYSTEM, "approval-service");
                }
                case 3 -> {
                    // the idempotency key the projector gives the call, derived from the request two events back
                    payload = new ToolResult(callId, IdempotencyKey.of(sessionId, seq - 2, callId), ToolStatus.OK, text, null);
                    actor = new Actor(ActorKind.TOOL, "tool-executor");
                }
                default -> {
                    payload = new StepCompleted((int) turn + 1, "renamed in one more file", true, null);
                    actor = new Actor(ActorKind.MODEL, AGENT);
                }
            }
        }
        return new Event(eventId, sessionId, TENANT, seq, occurredAt, actor, HARNESS_VERSION, payload);
    }

    /**
     * The event at {@code seq} of a session of user messages alone, each carrying {@code text}, after its
     * {@code session_started}: what figure 2 appends through the SDK.
     */
    public static Event userMessage(String sessionId, long seq, String eventId, Instant occurredAt, String text) {
        return seq == 1 ? event(sessionId, seq, eventId, occurredAt, text)
                : new Event(eventId, sessionId, TENANT, seq, occurredAt, new Actor(ActorKind.USER, AGENT), HARNESS_VERSION,
                        new UserMessage(text, null));
    }
}
