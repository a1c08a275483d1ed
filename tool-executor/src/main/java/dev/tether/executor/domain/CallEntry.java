package dev.tether.executor.domain;

import dev.tether.core.blob.BlobRef;
import dev.tether.core.event.ToolResult;
import java.time.Instant;
import java.util.Objects;

/**
 * A call's entry in the executor's ledger ({@code tool-outcomes}, one per idempotency key): the latest of what was
 * recorded of it. Made by {@link CallRules#evolve}, or read back from the ledger. Immutable.
 *
 * @param idempotencyKey  never null
 * @param sessionId       never null
 * @param tenantId        never null
 * @param callId          never null
 * @param tool            never null
 * @param state           never null
 * @param attempt         from 1; a reconciliation is an attempt that does not run the effect again
 * @param executorId      the executor instance that wrote the entry, never null
 * @param startedAt       when the latest STARTED was recorded; an end reached without running keeps it, or is its
 *                        own time when the call was never STARTED; never null
 * @param finishedAt      when the end was known; null while STARTED
 * @param content         what the model sees (a preview when offloaded); null while STARTED
 * @param artifact        the offloaded content, else null
 * @param beforeHash      for file tools, the target's SHA-256 before the effect ({@code ""}: absent); else null
 * @param afterHash       for file tools, the SHA-256 the target has after the effect; else null
 * @param reportedEventId the eventId of the {@code tool_result} reporting an ended entry; null while STARTED
 * @param externalKey     the key the latest start handed the tool ({@link CallRequest#externalKey()}), which an end
 *                        keeps; null for a call never started, or started by an executor before it, which handed
 *                        {@code idempotencyKey}
 */
public record CallEntry(String idempotencyKey, String sessionId, String tenantId, String callId, String tool,
                        CallState state, int attempt, String executorId, Instant startedAt, Instant finishedAt,
                        String content, BlobRef artifact, String beforeHash, String afterHash,
                        String reportedEventId, String externalKey) {

    public CallEntry {
        Objects.requireNonNull(idempotencyKey, "idempotencyKey");
        Objects.requireNonNull(sessionId, "sessionId");
        Objects.requireNonNull(tenantId, "tenantId");
        Objects.requireNonNull(callId, "callId");
        Objects.requireNonNull(tool, "tool");
        Objects.requireNonNull(state, "state");
        Objects.requireNonNull(executorId, "executorId");
        Objects.requireNonNull(startedAt, "startedAt");
    }

    /** The key the call's start handed the tool: the one a reconciliation looks the effect up by. */
    public String handedKey() {
        return externalKey != null ? externalKey : idempotencyKey;
    }

    /** The {@code tool_result} that reports this entry for {@code request}: the same however often it is sent. */
    public ToolResult resultFor(CallRequest request) {
        return new ToolResult(request.callId(), request.idempotencyKey(), state.resultStatus(),
                content == null ? "" : content, artifact);
    }
}
