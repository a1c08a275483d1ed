package dev.tether.executor.kafka;

import dev.tether.avro.OutcomeState;
import dev.tether.avro.ToolOutcome;
import dev.tether.avro.ToolRequest;
import dev.tether.core.event.ToolMode;
import dev.tether.core.id.IdempotencyKey;
import dev.tether.executor.domain.CallEntry;
import dev.tether.executor.domain.CallRequest;
import dev.tether.executor.domain.CallState;
import dev.tether.kit.kafka.EventAvro;

/** The one mapping between the executor's Avro records ({@code tool-requests}, {@code tool-outcomes}) and its domain. */
final class CallAvro {

    private CallAvro() {}

    static CallRequest request(ToolRequest request) {
        return new CallRequest(request.getIdempotencyKey(), request.getSessionId(), request.getTenantId(),
                request.getCallId(), request.getTool(), request.getArgumentsJson(), requestSeq(request),
                ToolMode.valueOf(request.getToolMode().name()), EventAvro.fromAvro(request.getBasis()),
                request.getRunBy() == null ? null : dev.tether.core.event.CallRunner.valueOf(request.getRunBy().name()),
                request.getRequestedAt(), request.getSessionStartedAt());
    }

    /**
     * The seq of the event that asked for this run of the call: the one in its key, which is a RETRY decision's for a
     * call run again ({@code requestSeq} stays its assistant message's). A key of another shape (only a writer other
     * than the projector makes one) falls back to the assistant message's, the earlier seq: an interruption after it
     * still stops the call.
     */
    private static long requestSeq(ToolRequest request) {
        try {
            return IdempotencyKey.requestSeqOf(request.getIdempotencyKey());
        } catch (IllegalArgumentException e) {
            return request.getRequestSeq();
        }
    }

    static CallEntry entry(ToolOutcome outcome) {
        return new CallEntry(outcome.getIdempotencyKey(), outcome.getSessionId(), outcome.getTenantId(),
                outcome.getCallId(), outcome.getTool(), CallState.valueOf(outcome.getState().name()),
                outcome.getAttempt(), outcome.getExecutorId(), outcome.getStartedAt(), outcome.getFinishedAt(),
                outcome.getContent(), EventAvro.fromAvro(outcome.getContentRef()), outcome.getBeforeHash(),
                outcome.getAfterHash(), outcome.getReportedEventId(), outcome.getExternalKey());
    }

    static ToolOutcome outcome(CallEntry entry) {
        return ToolOutcome.newBuilder()
                .setIdempotencyKey(entry.idempotencyKey())
                .setSessionId(entry.sessionId())
                .setTenantId(entry.tenantId())
                .setCallId(entry.callId())
                .setTool(entry.tool())
                .setState(OutcomeState.valueOf(entry.state().name()))
                .setAttempt(entry.attempt())
                .setExecutorId(entry.executorId())
                .setStartedAt(entry.startedAt())
                .setFinishedAt(entry.finishedAt())
                .setContent(entry.content())
                .setContentRef(EventAvro.toAvro(entry.artifact()))
                .setBeforeHash(entry.beforeHash())
                .setAfterHash(entry.afterHash())
                .setReportedEventId(entry.reportedEventId())
                .setExternalKey(entry.externalKey())
                .build();
    }
}
