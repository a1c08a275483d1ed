package dev.tether.core.event;

/**
 * {@code tool_call_started}: an attempt of a harness-run call started, recorded by the session's harness after the
 * call's authorization and before its effect (docs/ARCHITECTURE.md §6, "Harness-run tools"). A start without a result
 * is an unknown outcome: a second start of it is refused.
 *
 * @param callId         the call
 * @param idempotencyKey the key the attempt runs with ({@code IdempotencyKey.of(sessionId, requestSeq, callId)})
 * @param epoch          the epoch of the worker that starts it
 * @param attempt        1 for the first start, one more after each RETRY
 */
public record ToolCallStarted(String callId, String idempotencyKey, long epoch, int attempt) implements EventPayload {

    public static final String TYPE = "tool_call_started";

    public ToolCallStarted {
        Fields.nonBlank(callId, "callId");
        Fields.nonBlank(idempotencyKey, "idempotencyKey");
        Fields.nonNegative(epoch, "epoch");
        Fields.positive(attempt, "attempt");
    }

    @Override
    public String type() {
        return TYPE;
    }
}
