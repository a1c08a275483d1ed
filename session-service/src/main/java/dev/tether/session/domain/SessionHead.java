package dev.tether.session.domain;

import dev.tether.core.event.CallRunner;
import dev.tether.core.event.HarnessTool;
import dev.tether.core.event.ResumeReason;
import dev.tether.core.event.TokenUsage;
import dev.tether.core.event.ToolMode;
import dev.tether.core.event.TurnInterrupted;
import dev.tether.core.id.IdempotencyKey;
import java.time.Duration;
import java.time.Instant;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What the sequencer must know of a session to decide the next command: its position, its
 * worker, what it is pinned to, whether it is closed, its token counters, and the tool calls
 * that wait for their result. Bounded: it does not grow with the session's length (seen eventIds
 * and finished calls live in their own stores).
 *
 * @param lastClaimEventId the eventId of the last {@code session_claimed}, so a retried claim is recognized
 * @param lastClaimResume  the resume reason that claim recorded, or null
 * @param lastInterruptSeq the seq of the latest {@code turn_interrupted}, 0 if none (and in a head stored before it was
 *                         kept): a call asked for before it is never authorized ({@code TurnInterrupted.cutsOff})
 * @param harnessTools     the tools the session's harness runs itself, as its first event declared them (empty in a head
 *                         stored before they existed); every call of one is the harness's (docs/ARCHITECTURE.md §6)
 * @param startedAt        when the sequencer accepted the session's first event: which session of its id this is, since an
 *                         id is free again once its session is erased (null in a head stored before it was kept)
 * @param parentStartedAt  a subagent's: its parent's {@code startedAt} when it was started ({@code SessionStarted}), which its
 *                         {@code subagent_result} carries so that only that session of the parent's id accepts it; null if
 *                         not a subagent, or not recorded
 * @param lastEventAt      the {@code occurredAt} of the session's last event (null in a head stored before it was kept): the
 *                         sequencer's time for the session does not step back from it ({@link #timeAt})
 */
public record SessionHead(
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
        TokenUsage used,
        Long tokenBudget,
        String parentSessionId,
        Map<String, OpenCall> openCalls,
        String lastClaimEventId,
        ResumeReason lastClaimResume,
        long lastInterruptSeq,
        List<HarnessTool> harnessTools,
        Instant startedAt,
        Instant parentStartedAt,
        Instant lastEventAt) {

    public SessionHead {
        openCalls = Collections.unmodifiableMap(new TreeMap<>(openCalls)); // sorted: deterministic everywhere
        harnessTools = List.copyOf(harnessTools);
    }

    /** A head that does not know when its session, or its parent, started (as one stored before they were kept). */
    public SessionHead(String sessionId, String tenantId, String owner, long lastSeq, long epoch, String workerId, String modelId,
                       String harnessVersion, ToolMode toolMode, boolean closed, TokenUsage used, Long tokenBudget,
                       String parentSessionId, Map<String, OpenCall> openCalls, String lastClaimEventId, ResumeReason lastClaimResume,
                       long lastInterruptSeq, List<HarnessTool> harnessTools) {
        this(sessionId, tenantId, owner, lastSeq, epoch, workerId, modelId, harnessVersion, toolMode, closed, used, tokenBudget,
                parentSessionId, openCalls, lastClaimEventId, lastClaimResume, lastInterruptSeq, harnessTools, null, null, null);
    }

    /** A head of a session whose every call the tool-executor runs. */
    public SessionHead(String sessionId, String tenantId, String owner, long lastSeq, long epoch, String workerId, String modelId,
                       String harnessVersion, ToolMode toolMode, boolean closed, TokenUsage used, Long tokenBudget,
                       String parentSessionId, Map<String, OpenCall> openCalls, String lastClaimEventId, ResumeReason lastClaimResume,
                       long lastInterruptSeq) {
        this(sessionId, tenantId, owner, lastSeq, epoch, workerId, modelId, harnessVersion, toolMode, closed, used, tokenBudget,
                parentSessionId, openCalls, lastClaimEventId, lastClaimResume, lastInterruptSeq, List.of());
    }

    /** Where the human decision on a gated call stands. */
    public enum Approval { NONE, REQUESTED, GRANTED, DENIED }

    /**
     * A tool call asked for and not yet finished: no {@code tool_result} yet, or one with status UNKNOWN
     * ({@code outcomeUnknown}) that waits for a human's {@code tool_outcome_resolved}.
     *
     * @param runBy    who runs it, fixed when it was asked for (EXECUTOR in a head stored before harness-run tools)
     * @param attempts for a harness-run call: the attempts started ({@code tool_call_started}), 0 before the first
     * @param running  for a harness-run call: its latest attempt started and has no result yet (an unknown outcome)
     * @param retrySeq the seq of the RETRY that gave the call its current idempotency key, 0 if never retried (the key is
     *                 then derived from {@code requestSeq})
     * @param requestedBy the principal whose {@code assistant_message} asked for the call (its actor), who may not grant it,
     *                 mark it done or retry it (docs/ARCHITECTURE.md §7); null in a head stored before it was kept
     */
    public record OpenCall(String tool, long requestSeq, Approval approval, boolean authorized, boolean outcomeUnknown,
                           CallRunner runBy, int attempts, boolean running, long retrySeq, String requestedBy) {
        public OpenCall(String tool, long requestSeq, Approval approval, boolean authorized) {
            this(tool, requestSeq, approval, authorized, false);
        }

        public OpenCall(String tool, long requestSeq, Approval approval, boolean authorized, boolean outcomeUnknown) {
            this(tool, requestSeq, approval, authorized, outcomeUnknown, CallRunner.EXECUTOR, 0, false, 0, null);
        }

        /** A call just asked for, at {@code seq}, by {@code requestedBy}, run by {@code runBy}. */
        static OpenCall asked(String tool, long seq, CallRunner runBy, String requestedBy) {
            return new OpenCall(tool, seq, Approval.NONE, false, false, runBy, 0, false, 0, requestedBy);
        }

        /** Whether {@code principalId} asked for this call (never, as far as a head stored before it was kept can tell). */
        public boolean askedBy(String principalId) {
            return principalId.equals(requestedBy);
        }

        /** The call's idempotency key now: from its request, or from the RETRY that gave it a new one. */
        public String key(String sessionId, String callId) {
            return IdempotencyKey.of(sessionId, retrySeq > 0 ? retrySeq : requestSeq, callId);
        }

        OpenCall with(Approval next) {
            return new OpenCall(tool, requestSeq, next, authorized, outcomeUnknown, runBy, attempts, running, retrySeq, requestedBy);
        }

        OpenCall withAuthorized() {
            return new OpenCall(tool, requestSeq, approval, true, outcomeUnknown, runBy, attempts, running, retrySeq, requestedBy);
        }

        /** A harness-run call's attempt {@code attempt} started. */
        OpenCall started(int attempt) {
            return new OpenCall(tool, requestSeq, approval, authorized, outcomeUnknown, runBy, attempt, true, retrySeq, requestedBy);
        }

        /** The UNKNOWN result consumed the authorization: nothing runs again until a human decides. */
        OpenCall withOutcomeUnknown() {
            return new OpenCall(tool, requestSeq, approval, false, true, runBy, attempts, false, retrySeq, requestedBy);
        }

        /** A retry (a human's, or a harness that proved the attempt had no effect) at {@code seq}: the call may run once more. */
        OpenCall retried(long seq) {
            return new OpenCall(tool, requestSeq, approval, true, false, runBy, attempts, false, seq, requestedBy);
        }
    }

    /** The head after an event at {@code seq} that occurred at {@code at}. */
    SessionHead withLastEvent(long seq, Instant at) {
        return new SessionHead(sessionId, tenantId, owner, seq, epoch, workerId, modelId, harnessVersion, toolMode, closed, used,
                tokenBudget, parentSessionId, openCalls, lastClaimEventId, lastClaimResume, lastInterruptSeq, harnessTools,
                startedAt, parentStartedAt, at);
    }

    /**
     * How far behind the session's last event a clock may be and still be taken for one that stepped back (an NTP step,
     * another instance's clock after a failover, which are seconds): further, it is the last event's time that was wrong (a
     * clock that ran ahead, since put right), and holding the session there would stamp its calls so far ahead that the
     * tool-executor's ledger could not record them (the broker's {@code message.timestamp.after.max.ms}, an hour).
     */
    public static final Duration MAX_STEP_BACK = Duration.ofMinutes(10);

    /**
     * The session's time when the sequencer's clock says {@code now}: the last event's time if the clock is behind it by up
     * to {@link #MAX_STEP_BACK}, else {@code now}. Every event's {@code occurredAt}, and the erasure's time, is so not
     * before an earlier event's: a call's authorization is not after its session's erasure, which is how the executor tells
     * an erased session's calls from a later session's (docs/ARCHITECTURE.md §6, item 6).
     */
    public Instant timeAt(Instant now) {
        return lastEventAt != null && lastEventAt.isAfter(now) && !lastEventAt.isAfter(now.plus(MAX_STEP_BACK)) ? lastEventAt : now;
    }

    SessionHead withLastInterruptSeq(long seq) {
        return new SessionHead(sessionId, tenantId, owner, lastSeq, epoch, workerId, modelId, harnessVersion, toolMode, closed, used,
                tokenBudget, parentSessionId, openCalls, lastClaimEventId, lastClaimResume, seq, harnessTools,
                startedAt, parentStartedAt, lastEventAt);
    }

    /**
     * Whether {@code call}'s turn was interrupted: a {@code turn_interrupted} came after the event that asked for this run
     * of it ({@code TurnInterrupted.cutsOff}), so it must not run. That event is the one in the call's key: its
     * {@code assistant_message}, or the RETRY that gave it a new key, so a retry asked for after the interruption is a
     * request of its own (docs/ARCHITECTURE.md §6, item 5), as the executor and the SDKs take it.
     */
    public boolean interrupted(OpenCall call) {
        return TurnInterrupted.cutsOff(lastInterruptSeq, call.retrySeq() > 0 ? call.retrySeq() : call.requestSeq());
    }

    SessionHead withClaim(long newEpoch, String newWorkerId) {
        return new SessionHead(sessionId, tenantId, owner, lastSeq, newEpoch, newWorkerId, modelId, harnessVersion, toolMode, closed,
                used, tokenBudget, parentSessionId, openCalls, lastClaimEventId, lastClaimResume, lastInterruptSeq, harnessTools,
                startedAt, parentStartedAt, lastEventAt);
    }

    SessionHead withLastClaim(String eventId, ResumeReason resume) {
        return new SessionHead(sessionId, tenantId, owner, lastSeq, epoch, workerId, modelId, harnessVersion, toolMode, closed, used,
                tokenBudget, parentSessionId, openCalls, eventId, resume, lastInterruptSeq, harnessTools,
                startedAt, parentStartedAt, lastEventAt);
    }

    SessionHead withHarnessVersion(String version) {
        return new SessionHead(sessionId, tenantId, owner, lastSeq, epoch, workerId, modelId, version, toolMode, closed, used,
                tokenBudget, parentSessionId, openCalls, lastClaimEventId, lastClaimResume, lastInterruptSeq, harnessTools,
                startedAt, parentStartedAt, lastEventAt);
    }

    SessionHead closedNow() {
        return new SessionHead(sessionId, tenantId, owner, lastSeq, epoch, workerId, modelId, harnessVersion, toolMode, true, used,
                tokenBudget, parentSessionId, openCalls, lastClaimEventId, lastClaimResume, lastInterruptSeq, harnessTools,
                startedAt, parentStartedAt, lastEventAt);
    }

    SessionHead withUsage(TokenUsage usage) {
        return new SessionHead(sessionId, tenantId, owner, lastSeq, epoch, workerId, modelId, harnessVersion, toolMode, closed,
                used.plus(usage), tokenBudget, parentSessionId, openCalls, lastClaimEventId, lastClaimResume, lastInterruptSeq, harnessTools,
                startedAt, parentStartedAt, lastEventAt);
    }

    SessionHead withOpenCalls(Map<String, OpenCall> calls) {
        return new SessionHead(sessionId, tenantId, owner, lastSeq, epoch, workerId, modelId, harnessVersion, toolMode, closed, used,
                tokenBudget, parentSessionId, calls, lastClaimEventId, lastClaimResume, lastInterruptSeq, harnessTools,
                startedAt, parentStartedAt, lastEventAt);
    }

    SessionHead withCall(String callId, OpenCall call) {
        var calls = new LinkedHashMap<>(openCalls);
        if (call == null) {
            calls.remove(callId);
        } else {
            calls.put(callId, call);
        }
        return withOpenCalls(calls);
    }
}
