package dev.tether.client;

import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * What a worker taking over a session must know before it does anything: who the session belongs to
 * and what it is pinned to, where it stands, what its tool calls did (confirmed, cancelled, unknown,
 * still in flight), what authority is in force or pending, and the actions that are safe next.
 *
 * @param identity        whose session, pinned to what, claimed by whom
 * @param position        where it stands
 * @param effects         what its tool calls did
 * @param authority       grants in force and approvals pending
 * @param nextSafeActions what is safe to do next, in words (e.g. "wait for the result of call c1 …; do not issue it again")
 * @param json            the whole answer, as JSON text
 */
public record RecoveryReport(Identity identity, Position position, Effects effects, Authority authority, List<String> nextSafeActions,
                             String json) {

    public RecoveryReport {
        nextSafeActions = List.copyOf(nextSafeActions);
    }

    /**
     * @param epoch    the latest claim's epoch; 0 before any
     * @param workerId the latest claim's worker
     */
    public record Identity(String sessionId, String tenantId, String owner, String modelId, String harnessVersion, long epoch,
                           Optional<String> workerId) {}

    /** @param status as in the checkpoint, e.g. {@code RECOVERING} */
    public record Position(long lastSeq, int step, int lastVerifiedStep, String status, Optional<String> lastNote) {}

    /** A tool call; {@code state} as in the checkpoint. */
    public record Call(String callId, String tool, String state, long requestSeq, OptionalLong resultSeq, String idempotencyKey) {}

    /**
     * @param confirmed calls that finished OK or ERROR: their effect is known; never run them again
     * @param cancelled calls that were cancelled
     * @param unknown   calls whose outcome is unknown: a human decides; never re-run them
     * @param inFlight  calls requested, authorized or running
     * @param totals    finished calls by outcome over the whole session
     * @param harnessRun every harness-run call the checkpoint tracks, as confirmed, unknown, not started or cancelled
     *                   (docs/ARCHITECTURE.md §6, "Harness-run tools"); empty from older projectors
     */
    public record Effects(List<Call> confirmed, List<Call> cancelled, List<Call> unknown, List<Call> inFlight, Totals totals,
                          List<HarnessCall> harnessRun) {
        public Effects {
            confirmed = List.copyOf(confirmed);
            cancelled = List.copyOf(cancelled);
            unknown = List.copyOf(unknown);
            inFlight = List.copyOf(inFlight);
            harnessRun = List.copyOf(harnessRun);
        }

        /** The harness-run call with this id, if the report lists it. */
        public java.util.Optional<HarnessCall> harnessCall(String callId) {
            return harnessRun.stream().filter(c -> c.callId().equals(callId)).findFirst();
        }
    }

    /**
     * A harness-run call, for the worker that resumes the session.
     *
     * @param outcome        {@code CONFIRMED} (its result is OK or ERROR), {@code UNKNOWN} (started with no result, or
     *                       reported UNKNOWN: reconcile it by its key, never run it again), {@code NOT_STARTED} (safe to
     *                       run once authorized) or {@code CANCELLED}
     * @param state          as in the checkpoint, e.g. {@code STARTED}
     * @param recordedOnly   the harness only reports its result: Tether gives it no exactly-once guarantee
     * @param exactlyOnce    whether Tether's start-and-result protocol guards it
     * @param attempt        the attempts started, 0 before the first
     * @param startedEpoch   the epoch of the worker that started the latest attempt
     * @param idempotencyKey the call's key now
     */
    public record HarnessCall(String callId, String tool, String outcome, String state, boolean recordedOnly, boolean exactlyOnce,
                              int attempt, OptionalLong startedEpoch, String idempotencyKey) {}

    public record Totals(int ok, int error, int cancelled, int unknown) {}

    /**
     * @param approvalsInForce session-scope grants in force
     * @param pendingApprovals calls waiting for an approver
     */
    public record Authority(List<Grant> approvalsInForce, List<Call> pendingApprovals) {
        public Authority {
            approvalsInForce = List.copyOf(approvalsInForce);
            pendingApprovals = List.copyOf(pendingApprovals);
        }
    }

    /** A session-scope grant: {@code tool} on paths matching {@code pathGlob} (any path when empty). */
    public record Grant(long grantSeq, String tool, Optional<String> pathGlob, String approver) {}
}
