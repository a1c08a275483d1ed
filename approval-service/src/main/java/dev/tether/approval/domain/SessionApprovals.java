package dev.tether.approval.domain;

import dev.tether.core.blob.BlobRef;
import dev.tether.core.event.ApprovalRequested;
import dev.tether.core.event.CallRunner;
import dev.tether.core.event.HarnessTool;
import dev.tether.core.event.ToolMode;
import dev.tether.core.policy.PathGlob;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.UnaryOperator;

/**
 * What the approval-service knows of one session, folded from its log by {@link ApprovalMachine#evolve}: what it is
 * pinned to, the tool calls not yet finished and where each stands, the session-scope grants in force, and the items
 * for approvers (every pending one, and the last {@value ApprovalMachine#FINISHED_ITEMS_KEPT} finished ones).
 * Bounded by the session's open work, not its length. Immutable; stored as JSON.
 *
 * @param lastInterruptSeq the seq of the latest {@code turn_interrupted}, 0 if none: a call asked for before it and not
 *                         authorized before it is never authorized, and is answered CANCELLED
 * @param harnessTools     the tools the session's harness runs itself (docs/ARCHITECTURE.md §6), as its first event
 *                         declared them; empty in a state stored before they existed
 * @param startedAt        when the sequencer accepted the session's first event, which every answer of the service carries
 *                         so that the sequencer never takes it for a later session under the id; null in a state stored
 *                         before it was kept (its answers then carry none, and are taken as before)
 */
public record SessionApprovals(
        String sessionId,
        String tenantId,
        ToolMode toolMode,
        String modelId,
        long lastSeq,
        boolean closed,
        long lastInterruptSeq,
        Map<String, OpenCall> calls,
        List<Grant> grants,
        List<ApprovalItem> items,
        List<HarnessTool> harnessTools,
        Instant startedAt) {

    public SessionApprovals {
        calls = new TreeMap<>(calls == null ? Map.of() : calls);
        calls = java.util.Collections.unmodifiableMap(calls);
        grants = grants == null ? List.of() : List.copyOf(grants);
        items = items == null ? List.of() : List.copyOf(items);
        harnessTools = harnessTools == null ? List.of() : List.copyOf(harnessTools);
    }

    /** The state of a session whose every call the tool-executor runs, whose start is not known. */
    public SessionApprovals(String sessionId, String tenantId, ToolMode toolMode, String modelId, long lastSeq, boolean closed,
                            long lastInterruptSeq, Map<String, OpenCall> calls, List<Grant> grants, List<ApprovalItem> items) {
        this(sessionId, tenantId, toolMode, modelId, lastSeq, closed, lastInterruptSeq, calls, grants, items, List.of(), null);
    }

    /** Where a tool call stands, from the approval-service's side. */
    public enum Stage {
        /** Asked for; the service's answer (authorize, request approval, refuse) is on its way. */
        REQUESTED,
        /** An approval was requested; a human decides. */
        AWAITING_APPROVAL,
        /** An approver granted it; its authorization is on its way. */
        GRANTED,
        /** An approver granted it with a scope that cannot be parsed: nothing is authorized (fail closed). */
        GRANT_UNUSABLE,
        /** An approver denied it; its error result is on its way. */
        DENIED,
        /** Authorized; the executor runs it (a harness-run call: its harness may start it). */
        AUTHORIZED,
        /** A harness-run call its harness recorded started ({@code tool_call_started}); its result is the harness's. */
        STARTED,
        /** Its result was UNKNOWN; a human decides. */
        OUTCOME_UNKNOWN,
        /**
         * A decision the log cannot explain came for it (after it was decided or answered, or before its approval was
         * requested): nothing is authorized or granted because of it, an answer already given stands, and a call that
         * has none gets an ERROR result naming the conflict (fail closed).
         */
        CONFLICTED
    }

    /**
     * A tool call without a final result.
     *
     * @param shown    what the approver was shown, if an approval was requested
     * @param grantSeq the seq of the grant that decided it, if any
     * @param problem  why a grant could not be used, for GRANT_UNUSABLE; what the conflict is, for CONFLICTED
     * @param conflictedFrom for CONFLICTED: the stage the call was at when the conflicting decision came; null otherwise
     * @param runBy    who runs it, fixed when it was asked for (EXECUTOR in a state stored before harness-run tools)
     * @param shownSha256 the hash of what the approver was shown, from its {@code approval_requested}
     *                 ({@link ApprovalRequested#shownSha256}), which the call's grant carries; null if none (not shown yet,
     *                 shown as written, or stored before the hash)
     */
    public record OpenCall(String tool, String argumentsJson, long requestSeq, String requestedBy, Stage stage, String shown,
                           BlobRef shownRef, Long grantSeq, String problem, Stage conflictedFrom, CallRunner runBy, String shownSha256) {

        /** A call the tool-executor runs, without a hash of what was shown. */
        public OpenCall(String tool, String argumentsJson, long requestSeq, String requestedBy, Stage stage, String shown,
                        BlobRef shownRef, Long grantSeq, String problem, Stage conflictedFrom) {
            this(tool, argumentsJson, requestSeq, requestedBy, stage, shown, shownRef, grantSeq, problem, conflictedFrom, CallRunner.EXECUTOR);
        }

        /** A call without a hash of what was shown. */
        public OpenCall(String tool, String argumentsJson, long requestSeq, String requestedBy, Stage stage, String shown,
                        BlobRef shownRef, Long grantSeq, String problem, Stage conflictedFrom, CallRunner runBy) {
            this(tool, argumentsJson, requestSeq, requestedBy, stage, shown, shownRef, grantSeq, problem, conflictedFrom, runBy, null);
        }

        OpenCall at(Stage next) {
            return new OpenCall(tool, argumentsJson, requestSeq, requestedBy, next, shown, shownRef, grantSeq, problem, conflictedFrom, runBy,
                    shownSha256);
        }

        OpenCall shown(ApprovalRequested request) {
            return new OpenCall(tool, argumentsJson, requestSeq, requestedBy, stage, request.shown(), request.shownRef(), grantSeq, problem,
                    conflictedFrom, runBy, request.shownSha256());
        }

        OpenCall granted(long seq, String why) {
            return new OpenCall(tool, argumentsJson, requestSeq, requestedBy, why == null ? Stage.GRANTED : Stage.GRANT_UNUSABLE,
                    shown, shownRef, seq, why, null, runBy, shownSha256);
        }

        /**
         * The call after a decision the log cannot explain. A second conflict keeps the first one's account, and its
         * {@code conflictedFrom} becomes CONFLICTED, so whatever the first one sent is not sent again; except that a call
         * that could run already (authorized, started, or its outcome unknown) stays known as one, so that nothing ever
         * answers it as if it had not run.
         */
        OpenCall conflicted(String why) {
            Stage from = stage != Stage.CONFLICTED ? stage
                    : ApprovalMachine.mayRunAlready(conflictedFrom) ? conflictedFrom : Stage.CONFLICTED;
            return new OpenCall(tool, argumentsJson, requestSeq, requestedBy, Stage.CONFLICTED, shown, shownRef, grantSeq,
                    stage == Stage.CONFLICTED ? problem : why, from, runBy, shownSha256);
        }
    }

    /**
     * A session-scope grant in force: later calls of {@code tool} (on a path under {@code pathGlob}, if it has one)
     * are authorized without asking.
     */
    public record Grant(long seq, String tool, String pathGlob, String approver, java.time.Instant grantedAt, int uses,
                        List<String> usedBy) {

        /** How many of the calls a grant authorized are kept by id; {@link #uses} counts them all. */
        public static final int USED_BY_KEPT = 10;

        public Grant {
            usedBy = usedBy == null ? List.of() : List.copyOf(usedBy);
        }

        /** The grant after it authorized {@code callId} without asking. */
        Grant usedBy(String callId) {
            var calls = new ArrayList<>(usedBy);
            calls.add(callId);
            while (calls.size() > USED_BY_KEPT) {
                calls.remove(0);
            }
            return new Grant(seq, tool, pathGlob, approver, grantedAt, uses + 1, calls);
        }

        /** Whether this grant covers a call of {@code callTool} on {@code target}; a grant it cannot read covers nothing. */
        public boolean covers(String callTool, CallTarget target) {
            if (!tool.equals(callTool)) {
                return false;
            }
            if (pathGlob == null) {
                return true;
            }
            PathGlob glob;
            try {
                glob = PathGlob.parse(pathGlob);
            } catch (PathGlob.InvalidGlobException e) {
                return false;
            }
            return glob.covers(target.path(), target.realPath());
        }
    }

    static SessionApprovals started(String sessionId, String tenantId, ToolMode mode, String modelId, long seq,
                                    List<HarnessTool> harnessTools, Instant startedAt) {
        return new SessionApprovals(sessionId, tenantId, mode, modelId, seq, false, 0, Map.of(), List.of(), List.of(), harnessTools,
                startedAt);
    }

    public Optional<ApprovalItem> item(long seq) {
        return items.stream().filter(i -> i.seq() == seq).findFirst();
    }

    /** The pending item of {@code kind} for {@code callId}, if any. */
    public Optional<ApprovalItem> pendingItem(String callId, ApprovalItem.Kind kind) {
        return items.stream().filter(i -> i.status().pending() && i.kind() == kind && i.callId().equals(callId)).findFirst();
    }

    /**
     * Who runs {@code callId}, as its open call says; null for a call no longer open. A path glob covers none of the
     * calls the session's harness runs: the executor's workspace is not where they run.
     */
    public CallRunner runBy(String callId) {
        OpenCall call = calls.get(callId);
        return call == null ? null : call.runBy();
    }

    public List<ApprovalItem> pendingItems() {
        return items.stream().filter(i -> i.status().pending()).toList();
    }

    SessionApprovals at(long seq) {
        return new SessionApprovals(sessionId, tenantId, toolMode, modelId, seq, closed, lastInterruptSeq, calls, grants, items, harnessTools, startedAt);
    }

    SessionApprovals closedNow() {
        return new SessionApprovals(sessionId, tenantId, toolMode, modelId, lastSeq, true, lastInterruptSeq, calls, grants, items, harnessTools, startedAt);
    }

    SessionApprovals interruptedAt(long seq) {
        return new SessionApprovals(sessionId, tenantId, toolMode, modelId, lastSeq, closed, seq, calls, grants, items, harnessTools, startedAt);
    }

    SessionApprovals withCall(String callId, OpenCall call) {
        var next = new TreeMap<>(calls);
        if (call == null) {
            next.remove(callId);
        } else {
            next.put(callId, call);
        }
        return new SessionApprovals(sessionId, tenantId, toolMode, modelId, lastSeq, closed, lastInterruptSeq, next, grants, items, harnessTools, startedAt);
    }

    SessionApprovals withCall(String callId, UnaryOperator<OpenCall> change) {
        OpenCall call = calls.get(callId);
        return call == null ? this : withCall(callId, change.apply(call));
    }

    SessionApprovals withGrant(Grant grant, int kept) {
        var next = new ArrayList<>(grants);
        next.add(grant);
        while (next.size() > kept) {
            next.remove(0); // the oldest goes: its calls need an approval again, which is the safe side
        }
        return new SessionApprovals(sessionId, tenantId, toolMode, modelId, lastSeq, closed, lastInterruptSeq, calls, next, items, harnessTools, startedAt);
    }

    /** The state without the session-scope grant of {@code seq}, if it is in force. */
    SessionApprovals withoutGrant(long seq) {
        List<Grant> next = grants.stream().filter(g -> g.seq() != seq).toList();
        return new SessionApprovals(sessionId, tenantId, toolMode, modelId, lastSeq, closed, lastInterruptSeq, calls, next, items, harnessTools, startedAt);
    }

    /** The state with the grant of {@code seq} recorded as having authorized {@code callId}. */
    SessionApprovals withGrantUsed(long seq, String callId) {
        var next = new ArrayList<Grant>();
        for (Grant g : grants) {
            next.add(g.seq() == seq ? g.usedBy(callId) : g);
        }
        return new SessionApprovals(sessionId, tenantId, toolMode, modelId, lastSeq, closed, lastInterruptSeq, calls, next, items, harnessTools, startedAt);
    }

    SessionApprovals withItem(ApprovalItem item, int finishedKept) {
        var next = new ArrayList<ApprovalItem>();
        for (ApprovalItem i : items) {
            if (i.seq() != item.seq()) {
                next.add(i);
            }
        }
        next.add(item);
        next.sort(Comparator.comparingLong(ApprovalItem::seq));
        long finished = next.stream().filter(i -> !i.status().pending()).count();
        var kept = new ArrayList<ApprovalItem>();
        for (ApprovalItem i : next) {
            if (!i.status().pending() && finished > finishedKept) {
                finished--;
            } else {
                kept.add(i);
            }
        }
        return new SessionApprovals(sessionId, tenantId, toolMode, modelId, lastSeq, closed, lastInterruptSeq, calls, grants, kept, harnessTools, startedAt);
    }

    SessionApprovals withItems(UnaryOperator<ApprovalItem> change, int finishedKept) {
        SessionApprovals s = this;
        for (ApprovalItem i : items) {
            ApprovalItem changed = change.apply(i);
            if (changed != i) {
                s = s.withItem(changed, finishedKept);
            }
        }
        return s;
    }
}
