package dev.tether.client;

import java.util.Objects;

/**
 * One attempt of a harness-run call, as its {@link HarnessToolFunction} (or {@link ToolReconciler}) sees it.
 *
 * @param sessionId      the session
 * @param callId         the call
 * @param tool           the tool the call names
 * @param argumentsJson  the call's arguments, as the model wrote them
 * @param requestSeq     the {@code assistant_message} that asked for the call
 * @param idempotencyKey the key Tether derived for this attempt ({@code sessionId/seq/callId}): pass it to the external
 *                       system so that it applies the effect at most once, and reconcile by it
 * @param attempt        1 for the first start, one more after each RETRY
 * @param epoch          the epoch of the worker running it
 */
public record ToolInvocation(String sessionId, String callId, String tool, String argumentsJson, long requestSeq,
                             String idempotencyKey, int attempt, long epoch) {

    public ToolInvocation {
        Objects.requireNonNull(sessionId, "sessionId");
        Objects.requireNonNull(callId, "callId");
        Objects.requireNonNull(tool, "tool");
        Objects.requireNonNull(argumentsJson, "argumentsJson");
        Objects.requireNonNull(idempotencyKey, "idempotencyKey");
    }
}
