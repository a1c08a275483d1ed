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
 * @param idempotencyKey the key to hand the external system so that it applies the effect at most once, and to
 *                       reconcile by: {@code <sessionId>/<seq>/<callId>~<the session's start, epoch ms>}, which a session
 *                       made again under an erased session's id does not repeat. Recorded with the attempt's start; a
 *                       reconciliation gets the key its start recorded (the {@code logKey} alone for an attempt started by
 *                       an SDK before it)
 * @param attempt        1 for the first start, one more after each RETRY
 * @param epoch          the epoch of the worker running it
 * @param logKey         the call's key in the log, {@code <sessionId>/<seq>/<callId>}: what its {@code tool_call_started}
 *                       and {@code tool_result} carry as {@code idempotencyKey}
 */
public record ToolInvocation(String sessionId, String callId, String tool, String argumentsJson, long requestSeq,
                             String idempotencyKey, int attempt, long epoch, String logKey) {

    public ToolInvocation {
        Objects.requireNonNull(sessionId, "sessionId");
        Objects.requireNonNull(callId, "callId");
        Objects.requireNonNull(tool, "tool");
        Objects.requireNonNull(argumentsJson, "argumentsJson");
        Objects.requireNonNull(idempotencyKey, "idempotencyKey");
        Objects.requireNonNull(logKey, "logKey");
    }
}
