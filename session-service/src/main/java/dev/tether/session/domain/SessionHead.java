package dev.tether.session.domain;

import dev.tether.core.event.ResumeReason;
import dev.tether.core.event.TokenUsage;
import dev.tether.core.event.ToolMode;
import dev.tether.core.event.TurnInterrupted;
import java.util.Collections;
import java.util.LinkedHashMap;
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
        long lastInterruptSeq) {

    public SessionHead {
        openCalls = Collections.unmodifiableMap(new TreeMap<>(openCalls)); // sorted: deterministic everywhere
    }

    /** Where the human decision on a gated call stands. */
    public enum Approval { NONE, REQUESTED, GRANTED, DENIED }

    /**
     * A tool call asked for and not yet finished: no {@code tool_result} yet, or one with status UNKNOWN
     * ({@code outcomeUnknown}) that waits for a human's {@code tool_outcome_resolved}.
     */
    public record OpenCall(String tool, long requestSeq, Approval approval, boolean authorized, boolean outcomeUnknown) {
        public OpenCall(String tool, long requestSeq, Approval approval, boolean authorized) {
            this(tool, requestSeq, approval, authorized, false);
        }

        OpenCall with(Approval next) {
            return new OpenCall(tool, requestSeq, next, authorized, outcomeUnknown);
        }

        OpenCall withAuthorized() {
            return new OpenCall(tool, requestSeq, approval, true, outcomeUnknown);
        }

        /** The UNKNOWN result consumed the authorization: nothing runs again until a human decides. */
        OpenCall withOutcomeUnknown() {
            return new OpenCall(tool, requestSeq, approval, false, true);
        }

        /** A human asked for a retry: the call may run once more. */
        OpenCall retried() {
            return new OpenCall(tool, requestSeq, approval, true, false);
        }
    }

    SessionHead withLastSeq(long seq) {
        return new SessionHead(sessionId, tenantId, owner, seq, epoch, workerId, modelId, harnessVersion, toolMode, closed, used,
                tokenBudget, parentSessionId, openCalls, lastClaimEventId, lastClaimResume, lastInterruptSeq);
    }

    SessionHead withLastInterruptSeq(long seq) {
        return new SessionHead(sessionId, tenantId, owner, lastSeq, epoch, workerId, modelId, harnessVersion, toolMode, closed, used,
                tokenBudget, parentSessionId, openCalls, lastClaimEventId, lastClaimResume, seq);
    }

    /**
     * Whether {@code call}'s turn was interrupted: a {@code turn_interrupted} came after the event that asked for it
     * ({@code TurnInterrupted.cutsOff}), so it must not run.
     */
    public boolean interrupted(OpenCall call) {
        return TurnInterrupted.cutsOff(lastInterruptSeq, call.requestSeq());
    }

    SessionHead withClaim(long newEpoch, String newWorkerId) {
        return new SessionHead(sessionId, tenantId, owner, lastSeq, newEpoch, newWorkerId, modelId, harnessVersion, toolMode, closed,
                used, tokenBudget, parentSessionId, openCalls, lastClaimEventId, lastClaimResume, lastInterruptSeq);
    }

    SessionHead withLastClaim(String eventId, ResumeReason resume) {
        return new SessionHead(sessionId, tenantId, owner, lastSeq, epoch, workerId, modelId, harnessVersion, toolMode, closed, used,
                tokenBudget, parentSessionId, openCalls, eventId, resume, lastInterruptSeq);
    }

    SessionHead withHarnessVersion(String version) {
        return new SessionHead(sessionId, tenantId, owner, lastSeq, epoch, workerId, modelId, version, toolMode, closed, used,
                tokenBudget, parentSessionId, openCalls, lastClaimEventId, lastClaimResume, lastInterruptSeq);
    }

    SessionHead closedNow() {
        return new SessionHead(sessionId, tenantId, owner, lastSeq, epoch, workerId, modelId, harnessVersion, toolMode, true, used,
                tokenBudget, parentSessionId, openCalls, lastClaimEventId, lastClaimResume, lastInterruptSeq);
    }

    SessionHead withUsage(TokenUsage usage) {
        return new SessionHead(sessionId, tenantId, owner, lastSeq, epoch, workerId, modelId, harnessVersion, toolMode, closed,
                used.plus(usage), tokenBudget, parentSessionId, openCalls, lastClaimEventId, lastClaimResume, lastInterruptSeq);
    }

    SessionHead withOpenCalls(Map<String, OpenCall> calls) {
        return new SessionHead(sessionId, tenantId, owner, lastSeq, epoch, workerId, modelId, harnessVersion, toolMode, closed, used,
                tokenBudget, parentSessionId, calls, lastClaimEventId, lastClaimResume, lastInterruptSeq);
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
