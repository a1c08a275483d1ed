package dev.tether.projector.domain;

import dev.tether.core.event.ApprovalScope;
import dev.tether.core.event.ToolStatus;
import dev.tether.core.event.WireNamed;
import dev.tether.core.id.IdempotencyKey;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * Why a tool call happened and what became of it: the event that asked for it, what authorized
 * it (policy, or an approval: who, when, with which scope), its idempotency key, each attempt the
 * executor recorded, and its result. One per call; it grows only with the call's own attempts.
 *
 * @param resultStatus the status of its {@code tool_result} (or, for an unknown outcome a human resolved, OK for MARK_DONE
 *                     and CANCELLED for ABANDON); null until then
 */
public record CallRecord(
        String sessionId,
        String callId,
        String tool,
        String argumentsJson,
        long requestSeq,
        String idempotencyKey,
        Long authorizedSeq,
        String basis,
        Approval approval,
        Long resultSeq,
        ToolStatus resultStatus,
        String traceId,
        List<Attempt> attempts) {

    public CallRecord {
        attempts = attempts == null ? List.of() : List.copyOf(attempts);
    }

    /** The human decision that authorized (or refused) the call. */
    public record Approval(long seq, Decision decision, ApprovalScope scope, String approver, String reason, Instant decidedAt) {

        /** Which way it went; {@code granted} or {@code denied} on the wire, as it always was. */
        public enum Decision implements WireNamed { GRANTED, DENIED }
    }

    /** One attempt as the executor's ledger recorded it. */
    public record Attempt(int attempt, String state, String executorId, Instant startedAt, Instant finishedAt) {}

    public static CallRecord requested(String sessionId, String callId, String tool, String argumentsJson, long requestSeq) {
        return new CallRecord(sessionId, callId, tool, argumentsJson, requestSeq, IdempotencyKey.of(sessionId, requestSeq, callId),
                null, null, null, null, null, null, List.of());
    }

    public CallRecord authorized(long seq, String basis, String traceId) {
        return new CallRecord(sessionId, callId, tool, argumentsJson, requestSeq, idempotencyKey, seq, basis, approval, resultSeq,
                resultStatus, traceId, attempts);
    }

    /** A human had the call, whose outcome was unknown, run again: a new idempotency key and authorization. */
    public CallRecord retried(long seq, String newIdempotencyKey, String basis, String traceId) {
        return new CallRecord(sessionId, callId, tool, argumentsJson, requestSeq, newIdempotencyKey, seq, basis, approval, null, null,
                traceId, attempts);
    }

    public CallRecord decided(Approval decision) {
        return new CallRecord(sessionId, callId, tool, argumentsJson, requestSeq, idempotencyKey, authorizedSeq, basis, decision,
                resultSeq, resultStatus, traceId, attempts);
    }

    public CallRecord finished(long seq, ToolStatus status) {
        return new CallRecord(sessionId, callId, tool, argumentsJson, requestSeq, idempotencyKey, authorizedSeq, basis, approval, seq,
                status, traceId, attempts);
    }

    /** The record with the attempt added, or replaced when the ledger reports a later state of the same attempt. */
    public CallRecord attempt(Attempt attempt) {
        var all = new ArrayList<Attempt>();
        for (Attempt a : attempts) {
            if (a.attempt() != attempt.attempt()) {
                all.add(a);
            }
        }
        all.add(attempt);
        all.sort(java.util.Comparator.comparingInt(Attempt::attempt));
        return new CallRecord(sessionId, callId, tool, argumentsJson, requestSeq, idempotencyKey, authorizedSeq, basis, approval,
                resultSeq, resultStatus, traceId, all);
    }
}
