package dev.tether.projector.kafka;

import dev.tether.core.event.ApprovalScope;
import dev.tether.core.event.ToolStatus;
import dev.tether.projector.domain.CallRecord;
import java.time.Instant;
import java.util.List;

/**
 * A {@link CallRecord} as the {@value ProjectorStores#CALLS} store and its changelog keep it: the fields of the current
 * version of its format ({@link ProjectorStoreFormats#CALLS}), in order. It changes only with a new version of the
 * format (docs/ARCHITECTURE.md §5, "How to change a store format"); the domain record, which is also what the REST API
 * serves, may change freely, and is mapped here.
 */
record StoredCallRecord(
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

    /** The human decision on the call. */
    record Approval(long seq, CallRecord.Approval.Decision decision, ApprovalScope scope, String approver, String reason,
                    Instant decidedAt) {}

    /** One attempt the executor recorded. */
    record Attempt(int attempt, String state, String executorId, Instant startedAt, Instant finishedAt) {}

    static StoredCallRecord of(CallRecord c) {
        CallRecord.Approval a = c.approval();
        return new StoredCallRecord(c.sessionId(), c.callId(), c.tool(), c.argumentsJson(), c.requestSeq(), c.idempotencyKey(),
                c.authorizedSeq(), c.basis(),
                a == null ? null : new Approval(a.seq(), a.decision(), a.scope(), a.approver(), a.reason(), a.decidedAt()),
                c.resultSeq(), c.resultStatus(), c.traceId(),
                c.attempts().stream().map(t -> new Attempt(t.attempt(), t.state(), t.executorId(), t.startedAt(), t.finishedAt())).toList());
    }

    CallRecord toCallRecord() {
        return new CallRecord(sessionId, callId, tool, argumentsJson, requestSeq, idempotencyKey, authorizedSeq, basis,
                approval == null ? null : new CallRecord.Approval(approval.seq(), approval.decision(), approval.scope(), approval.approver(),
                        approval.reason(), approval.decidedAt()),
                resultSeq, resultStatus, traceId,
                attempts.stream().map(t -> new CallRecord.Attempt(t.attempt(), t.state(), t.executorId(), t.startedAt(), t.finishedAt()))
                        .toList());
    }
}
