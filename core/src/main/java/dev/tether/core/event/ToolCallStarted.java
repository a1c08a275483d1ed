package dev.tether.core.event;

/**
 * {@code tool_call_started}: an attempt of a harness-run call started, recorded by the session's harness after the
 * call's authorization and before its effect (docs/ARCHITECTURE.md §6, "Harness-run tools"). A start without a result
 * is an unknown outcome: a second start of it is refused.
 *
 * @param callId         the call
 * @param idempotencyKey the call's key in the log ({@code IdempotencyKey.of(sessionId, requestSeq, callId)})
 * @param epoch          the epoch of the worker that starts it
 * @param attempt        1 for the first start, one more after each RETRY
 * @param externalKey    the key the harness handed the tool for this attempt ({@code IdempotencyKey.external}), by which
 *                       its reconciliation looks the effect up; null from a harness before it, which handed
 *                       {@code idempotencyKey}
 */
public record ToolCallStarted(String callId, String idempotencyKey, long epoch, int attempt, String externalKey)
        implements EventPayload {

    public static final String TYPE = "tool_call_started";

    public ToolCallStarted {
        Fields.nonBlank(callId, "callId");
        Fields.nonBlank(idempotencyKey, "idempotencyKey");
        Fields.nonNegative(epoch, "epoch");
        Fields.positive(attempt, "attempt");
        if (externalKey != null) {
            Fields.nonBlank(externalKey, "externalKey");
        }
    }

    /** A start that records no external key: a harness before it, which handed the tool {@code idempotencyKey}. */
    public ToolCallStarted(String callId, String idempotencyKey, long epoch, int attempt) {
        this(callId, idempotencyKey, epoch, attempt, null);
    }

    @Override
    public String type() {
        return TYPE;
    }
}
