package dev.tether.executor.domain;

import dev.tether.core.event.AuthorizationBasis;
import dev.tether.core.event.ToolMode;
import dev.tether.core.event.CallRunner;
import dev.tether.core.id.IdempotencyKey;
import java.time.Instant;
import java.util.Objects;

/**
 * An authorized call to run, as the projector requested it ({@code tool-requests}). Immutable.
 *
 * @param idempotencyKey {@code sessionId/requestSeq/callId}, derived from the requesting event; never null
 * @param sessionId      never null
 * @param tenantId       never null
 * @param callId         never blank: the call's {@code tool_result} names it
 * @param tool           the tool's name, never null
 * @param argumentsJson  the arguments as the model gave them, {@code secret://} references unresolved; never null,
 *                       not necessarily JSON
 * @param requestSeq     the seq of the event that asked for this run of the call, the one in its idempotency key: its
 *                       {@code assistant_message}, or the RETRY decision that gave it this key. An interruption after
 *                       it ({@code TurnInterrupted.cutsOff}) means the call does not start, or is cancelled if it runs
 * @param toolMode       the session's tool mode, which picks the registry; never null
 * @param basis          why it may run, checked again by {@link Authority}; never null
 * @param runBy          who runs the call, as the projector read the session's declaration; a request of a projector before
 *                       harness-run tools says nothing, which is EXECUTOR. Anything else is never run, refused or answered
 *                       here ({@link CallRules#decide})
 * @param requestedAt    when the call's authorization was appended: which authorization of its key this is (a session
 *                       made under an erased session's id repeats its keys, not this); never null
 * @param sessionStartedAt when the session's first event was appended, from which the key handed to the tool is derived
 *                       ({@link #externalKey()}); null in a request of a projector before it
 */
public record CallRequest(String idempotencyKey, String sessionId, String tenantId, String callId, String tool,
                          String argumentsJson, long requestSeq, ToolMode toolMode, AuthorizationBasis basis, CallRunner runBy,
                          Instant requestedAt, Instant sessionStartedAt) {

    /** A request for a call the executor runs, of a projector that did not say when the session started. */
    public CallRequest(String idempotencyKey, String sessionId, String tenantId, String callId, String tool, String argumentsJson,
                       long requestSeq, ToolMode toolMode, AuthorizationBasis basis, Instant requestedAt) {
        this(idempotencyKey, sessionId, tenantId, callId, tool, argumentsJson, requestSeq, toolMode, basis, CallRunner.EXECUTOR,
                requestedAt, null);
    }

    /** A request of a projector that did not say when the session started. */
    public CallRequest(String idempotencyKey, String sessionId, String tenantId, String callId, String tool, String argumentsJson,
                       long requestSeq, ToolMode toolMode, AuthorizationBasis basis, CallRunner runBy, Instant requestedAt) {
        this(idempotencyKey, sessionId, tenantId, callId, tool, argumentsJson, requestSeq, toolMode, basis, runBy, requestedAt, null);
    }

    public CallRequest {
        Objects.requireNonNull(idempotencyKey, "idempotencyKey");
        Objects.requireNonNull(sessionId, "sessionId");
        Objects.requireNonNull(tenantId, "tenantId");
        Objects.requireNonNull(callId, "callId");
        if (callId.isBlank()) {
            throw new IllegalArgumentException("callId must not be blank: a tool_result names its call");
        }
        Objects.requireNonNull(tool, "tool");
        Objects.requireNonNull(argumentsJson, "argumentsJson");
        Objects.requireNonNull(toolMode, "toolMode");
        Objects.requireNonNull(basis, "basis");
        Objects.requireNonNull(requestedAt, "requestedAt");
        runBy = runBy == null ? CallRunner.EXECUTOR : runBy;
    }

    /**
     * The key a start of this call hands the tool for external systems: {@code IdempotencyKey.external}, which no later
     * session under the id repeats; the call's key itself when the request does not say when the session started.
     */
    public String externalKey() {
        return IdempotencyKey.external(idempotencyKey, sessionStartedAt);
    }
}
