package dev.tether.client;

import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * The story of one tool call: the event that asked for it, what authorized it (policy, or an
 * approval: who, when, with which scope), its idempotency key, each attempt the executor recorded,
 * and its result.
 *
 * @param sessionId      the session
 * @param callId         the call
 * @param tool           its tool
 * @param argumentsJson  its arguments, as JSON text
 * @param requestSeq     the assistant message that asked for it
 * @param idempotencyKey the key it runs under (a RETRY decision gives a new one)
 * @param authorizedSeq  its {@code tool_call_authorized}, once authorized
 * @param basis          what authorized it, e.g. {@code POLICY} or {@code APPROVAL}
 * @param approval       the human decision on it, if any
 * @param resultSeq      its {@code tool_result}, once there is one
 * @param resultStatus   {@code OK}, {@code ERROR}, {@code CANCELLED} or {@code UNKNOWN}
 * @param traceId        the trace of its execution
 * @param attempts       each attempt the executor recorded
 * @param requestedBy    the event that asked for it
 * @param authorizedBy   the event that authorized it
 * @param result         its {@code tool_result} event
 * @param json           the whole answer, as JSON text
 */
public record CallRecord(String sessionId, String callId, String tool, String argumentsJson, long requestSeq, String idempotencyKey,
                         OptionalLong authorizedSeq, Optional<String> basis, Optional<Decision> approval, OptionalLong resultSeq,
                         Optional<String> resultStatus, Optional<String> traceId, List<Attempt> attempts, Optional<SessionEvent> requestedBy,
                         Optional<SessionEvent> authorizedBy, Optional<SessionEvent> result, String json) {

    public CallRecord {
        attempts = List.copyOf(attempts);
    }

    /** The human decision that authorized (or refused) the call. */
    public record Decision(long seq, String decision, Optional<String> scope, String approver, String reason, Instant decidedAt) {}

    /** One attempt as the executor's ledger recorded it ({@code state}: STARTED, OK, ERROR, UNKNOWN…). */
    public record Attempt(int attempt, String state, String executorId, Instant startedAt, Optional<Instant> finishedAt) {}
}
