package dev.tether.session.kafka;

import dev.tether.core.event.CallRunner;
import dev.tether.core.event.HarnessTool;
import dev.tether.core.event.ResumeReason;
import dev.tether.core.event.TokenUsage;
import dev.tether.core.event.ToolMode;
import dev.tether.session.domain.SessionHead;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A {@link SessionHead} as the {@value StoreNames#HEADS} store and its changelog keep it: the fields of the current
 * version of its format ({@link SequencerStoreFormats#HEADS}), in order. It changes only with a new version of the format
 * (docs/ARCHITECTURE.md §5, "How to change a store format"); the domain record may change freely, and is mapped here.
 */
record StoredHead(
        String sessionId,
        String tenantId,
        String owner,
        long lastSeq,
        long epoch,
        String workerId,
        String modelId,
        String harnessVersion,
        ToolMode toolMode,
        boolean closed,
        Usage used,
        Long tokenBudget,
        String parentSessionId,
        Map<String, Call> openCalls,
        String lastClaimEventId,
        ResumeReason lastClaimResume,
        long lastInterruptSeq,
        List<Tool> harnessTools,
        Instant startedAt,
        Instant parentStartedAt,
        Instant lastEventAt) {

    /** The token counters. */
    record Usage(long inputTokens, long outputTokens) {}

    /** An open tool call. */
    record Call(String tool, long requestSeq, SessionHead.Approval approval, boolean authorized, boolean outcomeUnknown,
                CallRunner runBy, int attempts, boolean running, long retrySeq, String requestedBy) {}

    /** A declared harness-run tool. */
    record Tool(String name, boolean mutating, boolean canReconcile, boolean recordedOnly) {}

    static StoredHead of(SessionHead h) {
        var calls = new LinkedHashMap<String, Call>();
        h.openCalls().forEach((id, c) -> calls.put(id, new Call(c.tool(), c.requestSeq(), c.approval(), c.authorized(), c.outcomeUnknown(),
                c.runBy(), c.attempts(), c.running(), c.retrySeq(), c.requestedBy())));
        return new StoredHead(h.sessionId(), h.tenantId(), h.owner(), h.lastSeq(), h.epoch(), h.workerId(), h.modelId(), h.harnessVersion(),
                h.toolMode(), h.closed(), new Usage(h.used().inputTokens(), h.used().outputTokens()), h.tokenBudget(), h.parentSessionId(),
                calls, h.lastClaimEventId(), h.lastClaimResume(), h.lastInterruptSeq(),
                h.harnessTools().stream().map(t -> new Tool(t.name(), t.mutating(), t.canReconcile(), t.recordedOnly())).toList(),
                h.startedAt(), h.parentStartedAt(), h.lastEventAt());
    }

    SessionHead toHead() {
        var calls = new LinkedHashMap<String, SessionHead.OpenCall>();
        openCalls.forEach((id, c) -> calls.put(id, new SessionHead.OpenCall(c.tool(), c.requestSeq(), c.approval(), c.authorized(),
                c.outcomeUnknown(), c.runBy(), c.attempts(), c.running(), c.retrySeq(), c.requestedBy())));
        return new SessionHead(sessionId, tenantId, owner, lastSeq, epoch, workerId, modelId, harnessVersion, toolMode, closed,
                new TokenUsage(used.inputTokens(), used.outputTokens()), tokenBudget, parentSessionId, calls, lastClaimEventId,
                lastClaimResume, lastInterruptSeq,
                harnessTools.stream().map(t -> new HarnessTool(t.name(), t.mutating(), t.canReconcile(), t.recordedOnly())).toList(),
                startedAt, parentStartedAt, lastEventAt);
    }
}
