package dev.tether.projector.domain;

import dev.tether.core.event.CallRunner;
import dev.tether.core.event.HarnessTool;
import dev.tether.projector.domain.SessionProjection.CallCursor;
import dev.tether.projector.domain.SessionProjection.CallState;
import dev.tether.projector.domain.SessionProjection.Grant;
import dev.tether.projector.domain.SessionProjection.Status;
import java.util.ArrayList;
import java.util.List;

/**
 * What a worker taking over a session must know before it does anything (docs/ARCHITECTURE.md §5): who
 * the session belongs to and what it is pinned to, where it stands, what its tool calls did —
 * confirmed, cancelled, unknown or still in flight, and each harness-run call on its own — what authority is in force
 * or pending, and the actions that are safe next. Built from the checkpoint alone. Pure.
 */
public record RecoveryReport(Identity identity, Position position, Effects effects, Authority authority, List<String> nextSafeActions) {

    public record Identity(String sessionId, String tenantId, String owner, String modelId, String harnessVersion, long epoch,
                           String workerId) {}

    public record Position(long lastSeq, int step, int lastVerifiedStep, String status, String lastNote) {}

    /** A tool call and where it stands; {@code state} as in the checkpoint. */
    public record Call(String callId, String tool, String state, long requestSeq, Long resultSeq, String idempotencyKey) {}

    /**
     * @param harnessRun every harness-run call in the checkpoint's cursor (docs/ARCHITECTURE.md §6, "Harness-run tools"),
     *                   as confirmed, unknown, not started or cancelled
     */
    public record Effects(List<Call> confirmed, List<Call> cancelled, List<Call> unknown, List<Call> inFlight,
                          SessionProjection.CallCounts totals, List<HarnessCall> harnessRun) {}

    /** Where a harness-run call stands, for the worker that resumes the session. */
    public enum HarnessOutcome {
        /** Its result is in the log (OK or ERROR). */
        CONFIRMED,
        /** Started with no result, or reported UNKNOWN: it may or may not have taken effect. */
        UNKNOWN,
        /** No attempt started (or, recorded-only, no result reported yet). */
        NOT_STARTED,
        /** Cancelled or abandoned. */
        CANCELLED
    }

    /**
     * A harness-run call.
     *
     * @param recordedOnly the harness only reports its result: Tether gives it no exactly-once guarantee
     * @param exactlyOnce  whether Tether's start-and-result protocol guards it (false for a recorded-only call)
     * @param attempt      the attempts started, 0 before the first
     * @param startedEpoch the epoch of the worker that started the latest attempt, null if none
     */
    public record HarnessCall(String callId, String tool, HarnessOutcome outcome, String state, boolean recordedOnly,
                              boolean exactlyOnce, int attempt, Long startedEpoch, String idempotencyKey) {}

    public record Authority(List<Grant> approvalsInForce, List<Call> pendingApprovals) {}

    public static RecoveryReport of(SessionProjection s) {
        var confirmed = new ArrayList<Call>();
        var cancelled = new ArrayList<Call>();
        var unknown = new ArrayList<Call>();
        var inFlight = new ArrayList<Call>();
        var pending = new ArrayList<Call>();
        for (CallCursor c : s.toolCursor()) {
            Call call = new Call(c.callId(), c.tool(), c.state().name(), c.requestSeq(), c.resultSeq(), c.idempotencyKey());
            switch (c.state()) {
                case OK, ERROR -> confirmed.add(call);
                case CANCELLED -> cancelled.add(call);
                case UNKNOWN, STARTED -> unknown.add(call);
                default -> {
                    inFlight.add(call);
                    if (c.awaitingApproval()) {
                        pending.add(call);
                    }
                }
            }
        }
        var lease = s.lease();
        return new RecoveryReport(
                new Identity(s.sessionId(), s.tenantId(), s.owner(), s.modelId(), s.harnessVersion(), lease == null ? 0 : lease.epoch(),
                        lease == null ? null : lease.workerId()),
                new Position(s.lastSeq(), s.step(), s.progress().lastVerifiedStep(), s.status().name(), s.progress().lastNote()),
                new Effects(confirmed, cancelled, unknown, inFlight, s.callCounts(), harnessRun(s)),
                new Authority(s.approvals(), pending),
                nextSafeActions(s));
    }

    private static List<HarnessCall> harnessRun(SessionProjection s) {
        var calls = new ArrayList<HarnessCall>();
        for (CallCursor c : s.toolCursor()) {
            if (!c.runBy().harness()) {
                continue;
            }
            HarnessOutcome outcome = switch (c.state()) {
                case OK, ERROR -> HarnessOutcome.CONFIRMED;
                case STARTED, UNKNOWN, RUNNING -> HarnessOutcome.UNKNOWN;
                case REQUESTED, AUTHORIZED -> HarnessOutcome.NOT_STARTED;
                case CANCELLED -> HarnessOutcome.CANCELLED;
            };
            boolean recorded = c.runBy() == CallRunner.RECORDED;
            calls.add(new HarnessCall(c.callId(), c.tool(), outcome, c.state().name(), recorded, !recorded, c.attempt(),
                    c.startedEpoch(), c.idempotencyKey()));
        }
        return calls;
    }

    /** The next safe action for harness-run call {@code c}, or null when the executor's wording fits it. */
    private static String harnessAction(SessionProjection s, CallCursor c, String call) {
        if (c.runBy() == CallRunner.RECORDED && !c.state().finished()) {
            return "report the result of recorded-only " + call + " with key " + c.idempotencyKey()
                    + " when the harness has it; Tether gives it no exactly-once guarantee and no approval gate";
        }
        if (c.runBy() != CallRunner.HARNESS) {
            return null;
        }
        if (c.state() == CallState.STARTED) {
            HarnessTool tool = HarnessTool.find(s.harnessTools(), c.tool());
            boolean hook = tool != null && tool.canReconcile();
            return call + " started (attempt " + c.attempt() + ", epoch " + c.startedEpoch() + ") and has no result: its outcome is"
                    + " unknown; do not run it again. " + (hook ? "Reconcile it by its key " + c.idempotencyKey() + ": append the"
                    + " tool_result you find, or tool_outcome_resolved RETRY if it had no effect; if you cannot tell, append"
                    : "Its tool has no reconciliation hook: append") + " tool_result UNKNOWN with key " + c.idempotencyKey()
                    + " for a person to decide (mark done, retry or abandon)";
        }
        if (c.state() == CallState.AUTHORIZED && !c.awaitingApproval() && s.status() == Status.INTERRUPTED) {
            // asked for before the interruption (a later turn would have ended it): the sequencer refuses its start
            return call + " is authorized but its turn was interrupted before it started: do not run it; the approval-service"
                    + " answers it CANCELLED";
        }
        if (c.state() == CallState.AUTHORIZED && !c.awaitingApproval()) {
            return call + " is authorized and not started: safe to run. Append tool_call_started (attempt " + (c.attempt() + 1)
                    + ", key " + c.idempotencyKey() + ", your epoch), run it with that key, then append its tool_result";
        }
        return null;
    }

    static List<String> nextSafeActions(SessionProjection s) {
        if (s.status() == Status.CLOSED) {
            return List.of("nothing: the session is closed");
        }
        var actions = new ArrayList<String>();
        for (CallCursor c : s.toolCursor()) {
            String call = "call " + c.callId() + " (" + c.tool() + ")";
            String harness = harnessAction(s, c, call);
            if (harness != null) {
                actions.add(harness);
            } else if (c.state() == CallState.UNKNOWN) {
                actions.add("a human decides on " + call + ", whose outcome is unknown: mark it done, retry or abandon it; do not re-run it");
            } else if (c.awaitingApproval() && !c.state().finished()) {
                actions.add("wait for the approver's decision on " + call + "; do not run it");
            } else if (c.state() == CallState.AUTHORIZED || c.state() == CallState.RUNNING) {
                actions.add("wait for the result of " + call + ": the executor runs it once, keyed by " + c.idempotencyKey()
                        + "; do not issue it again");
            } else if (c.state() == CallState.REQUESTED) {
                actions.add(call + " waits for authorization; do not run it before tool_call_authorized");
            }
        }
        if (s.status() == Status.INTERRUPTED) {
            actions.add("re-issue the interrupted model turn from the context (its partial text is kept and marked)");
        }
        if (actions.isEmpty()) {
            actions.add("continue with a model turn from the context at seq " + s.lastSeq() + ": next is step " + (s.step() + 1)
                    + " (last verified step " + s.progress().lastVerifiedStep() + ")");
        }
        return actions;
    }
}
