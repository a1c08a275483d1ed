package dev.tether.projector.domain;

import dev.tether.projector.domain.SessionProjection.CallCursor;
import dev.tether.projector.domain.SessionProjection.CallState;
import dev.tether.projector.domain.SessionProjection.Grant;
import dev.tether.projector.domain.SessionProjection.Status;
import java.util.ArrayList;
import java.util.List;

/**
 * What a worker taking over a session must know before it does anything (docs/ARCHITECTURE.md §5): who
 * the session belongs to and what it is pinned to, where it stands, what its tool calls did —
 * confirmed, cancelled, unknown or still in flight — what authority is in force or pending, and
 * the actions that are safe next. Built from the checkpoint alone. Pure.
 */
public record RecoveryReport(Identity identity, Position position, Effects effects, Authority authority, List<String> nextSafeActions) {

    public record Identity(String sessionId, String tenantId, String owner, String modelId, String harnessVersion, long epoch,
                           String workerId) {}

    public record Position(long lastSeq, int step, int lastVerifiedStep, String status, String lastNote) {}

    /** A tool call and where it stands; {@code state} as in the checkpoint. */
    public record Call(String callId, String tool, String state, long requestSeq, Long resultSeq, String idempotencyKey) {}

    public record Effects(List<Call> confirmed, List<Call> cancelled, List<Call> unknown, List<Call> inFlight,
                          SessionProjection.CallCounts totals) {}

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
                case UNKNOWN -> unknown.add(call);
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
                new Effects(confirmed, cancelled, unknown, inFlight, s.callCounts()),
                new Authority(s.approvals(), pending),
                nextSafeActions(s));
    }

    static List<String> nextSafeActions(SessionProjection s) {
        if (s.status() == Status.CLOSED) {
            return List.of("nothing: the session is closed");
        }
        var actions = new ArrayList<String>();
        for (CallCursor c : s.toolCursor()) {
            String call = "call " + c.callId() + " (" + c.tool() + ")";
            if (c.state() == CallState.UNKNOWN) {
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
