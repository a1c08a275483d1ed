package dev.tether.projector.domain;

import dev.tether.core.blob.BlobRef;
import dev.tether.core.event.ApprovalDenied;
import dev.tether.core.event.ApprovalGranted;
import dev.tether.core.event.ApprovalRequested;
import dev.tether.core.event.ApprovalScope;
import dev.tether.core.event.AssistantMessage;
import dev.tether.core.event.ContextCompacted;
import dev.tether.core.event.Event;
import dev.tether.core.event.EventPayload;
import dev.tether.core.event.FrameworkState;
import dev.tether.core.event.HarnessTool;
import dev.tether.core.event.OutcomeResolution;
import dev.tether.core.event.PlanItem;
import dev.tether.core.event.PlanItemStatus;
import dev.tether.core.event.PlanUpdated;
import dev.tether.core.event.SessionClaimed;
import dev.tether.core.event.SessionClosed;
import dev.tether.core.event.SessionForked;
import dev.tether.core.event.SessionMigrated;
import dev.tether.core.event.SessionResumed;
import dev.tether.core.event.SessionStarted;
import dev.tether.core.event.StepCompleted;
import dev.tether.core.event.SubagentResult;
import dev.tether.core.event.TokenUsage;
import dev.tether.core.event.ToolCall;
import dev.tether.core.event.ToolCallAuthorized;
import dev.tether.core.event.ToolCallStarted;
import dev.tether.core.event.ToolOutcomeResolved;
import dev.tether.core.event.ToolResult;
import dev.tether.core.event.TurnInterrupted;
import dev.tether.core.event.UnknownEvent;
import dev.tether.core.event.UserMessage;
import dev.tether.core.id.IdempotencyKey;
import dev.tether.projector.domain.SessionProjection.Artifact;
import dev.tether.projector.domain.SessionProjection.CallCounts;
import dev.tether.projector.domain.SessionProjection.CallCursor;
import dev.tether.projector.domain.SessionProjection.CallState;
import dev.tether.projector.domain.SessionProjection.Compaction;
import dev.tether.projector.domain.SessionProjection.Decision;
import dev.tether.projector.domain.SessionProjection.Grant;
import dev.tether.projector.domain.SessionProjection.Lease;
import dev.tether.projector.domain.SessionProjection.PendingAction;
import dev.tether.projector.domain.SessionProjection.Position;
import dev.tether.projector.domain.SessionProjection.Progress;
import dev.tether.projector.domain.SessionProjection.Status;
import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;

/**
 * The fold from a session's events to its checkpoint: {@link #evolve} is a pure function, the
 * same for the live projection, time travel ({@code atSeq}) and a rebuild from the log, so all
 * three give the same checkpoint byte for byte. Nothing here reads a clock.
 */
public final class Projection {

    /** Finished tool calls kept in the cursor, newest last; older ones only count in {@link CallCounts}. */
    public static final int FINISHED_CALLS_KEPT = 10;
    /** Decisions and artifact handles kept, newest last. */
    public static final int RECENT_KEPT = 20;
    /** Session-scope grants kept; a session rarely has more than a handful. */
    public static final int GRANTS_KEPT = 50;

    private Projection() {}

    /**
     * The checkpoint after {@code event}, read from {@code session-events} at {@code offset} of
     * {@code partition}. {@code state} is null before the first event.
     *
     * <p>One step of the fold is made on one {@link Builder} and built once: a list is copied only where the event
     * changes it (the projector folds every event it reads, bench/README.md "Where the time goes").
     */
    public static SessionProjection evolve(SessionProjection state, Event event, int partition, long offset) {
        EventPayload payload = event.payload();
        if (state == null) {
            return started(event, partition, offset);
        }
        long seq = event.seq();
        Builder b = Builder.of(state);
        b.lastSeq = seq;
        b.updatedAt = event.occurredAt();
        b.position = new Position(partition, state.position().firstOffset(), offset);
        if (payload instanceof UserMessage m) {
            artifact(b, seq, m.contentRef(), "user_message content");
            if (b.status == Status.INTERRUPTED) {
                b.status = Status.ACTIVE;
            }
        } else if (payload instanceof AssistantMessage m) {
            assistant(b, seq, m);
        } else if (payload instanceof ApprovalRequested r) {
            call(b, r.callId(), c -> awaiting(c, true));
            artifact(b, seq, r.shownRef(), "approval_requested shown");
        } else if (payload instanceof ApprovalGranted g) {
            call(b, g.callId(), c -> awaiting(c, false));
            decision(b, seq, ApprovalGranted.TYPE, g.callId(), "granted " + g.scope() + scopeText(g.tool(), g.pathGlob())
                    + " by " + g.approver() + (g.reason().isBlank() ? "" : ": " + g.reason()));
            if (g.scope() == ApprovalScope.SESSION) {
                b.approvals = appendKeepingLast(b.approvals, new Grant(seq, g.tool() != null ? g.tool() : toolOf(b, g.callId()),
                        g.pathGlob(), g.approver()), GRANTS_KEPT);
            }
        } else if (payload instanceof ApprovalDenied d) {
            call(b, d.callId(), c -> awaiting(c, false));
            decision(b, seq, ApprovalDenied.TYPE, d.callId(), "denied by " + d.approver() + (d.reason().isBlank() ? "" : ": " + d.reason()));
        } else if (payload instanceof ToolCallAuthorized a) {
            call(b, a.callId(), c -> c.state() == CallState.REQUESTED ? c.in(CallState.AUTHORIZED) : c);
        } else if (payload instanceof ToolCallStarted t) {
            call(b, t.callId(), c -> new CallCursor(c.callId(), c.tool(), c.requestSeq(), c.idempotencyKey(), CallState.STARTED,
                    c.resultSeq(), c.awaitingApproval(), c.runBy(), t.attempt(), t.epoch()));
        } else if (payload instanceof ToolResult r) {
            result(b, seq, r);
        } else if (payload instanceof ToolOutcomeResolved r) {
            resolved(b, seq, r);
        } else if (payload instanceof TurnInterrupted) {
            b.status = Status.INTERRUPTED;
        } else if (payload instanceof ContextCompacted c) {
            artifact(b, seq, c.summaryRef(), "context_compacted summary");
            b.compaction = new Compaction(c.throughSeq(), seq, Facts.render(b.build()));
        } else if (payload instanceof PlanUpdated u) {
            b.plan = u.items();
        } else if (payload instanceof StepCompleted st) {
            step(b, seq, st);
        } else if (payload instanceof SessionClaimed c) {
            b.lease = new Lease(c.workerId(), c.epoch(), c.harnessVersion(), event.occurredAt());
        } else if (payload instanceof SessionResumed) {
            if (b.status != Status.INTERRUPTED) {
                // an interrupted turn stays interrupted until the next message: a resume is none, and the sequencer still
                // refuses to start the turn's calls
                b.status = Status.RECOVERING;
            }
        } else if (payload instanceof SessionMigrated m) {
            b.harnessVersion = m.toVersion();
        } else if (payload instanceof SubagentResult r) {
            decision(b, seq, SubagentResult.TYPE, null, "subagent " + r.childSessionId() + " finished: " + r.outcome());
        } else if (payload instanceof SessionClosed) {
            b.status = Status.CLOSED;
        } else if (payload instanceof SessionStarted || payload instanceof SessionForked) {
            throw new IllegalStateException(payload.type() + " after the first event of " + event.sessionId());
        } else if (payload instanceof FrameworkState || payload instanceof UnknownEvent) {
            // a framework's own state is Tether's to keep, never to interpret: like a type this version does not know, it
            // moves only the position
        } else {
            throw new IllegalStateException("unhandled event type " + payload.type());
        }
        settle(b, seq);
        return b.build();
    }

    // --- the first event -------------------------------------------------------------------------

    private static SessionProjection started(Event event, int partition, long offset) {
        EventPayload payload = event.payload();
        var b = new Builder();
        b.sessionId = event.sessionId();
        b.tenantId = event.tenantId();
        b.lastSeq = event.seq();
        b.owner = event.actor().id();
        b.status = Status.ACTIVE;
        b.usedTokens = TokenUsage.NONE;
        b.progress = new Progress(0, 0, null);
        b.position = new Position(partition, offset, offset);
        b.callCounts = CallCounts.NONE;
        b.updatedAt = event.occurredAt();
        b.harnessVersion = event.harnessVersion();
        if (payload instanceof SessionStarted s) {
            b.objective = s.objective();
            b.constraints = s.constraints();
            b.modelId = s.modelId();
            b.toolMode = s.toolMode();
            b.tokenBudget = s.tokenBudget();
            b.harnessTools = s.harnessTools();
        } else if (payload instanceof SessionForked f) {
            b.objective = f.objective();
            b.constraints = f.constraints();
            b.modelId = f.modelId();
            b.toolMode = f.toolMode();
            b.tokenBudget = f.tokenBudget();
            b.harnessTools = f.harnessTools();
        } else {
            throw new IllegalStateException("the first event of " + event.sessionId() + " is " + payload.type()
                    + ", not session_started or session_forked");
        }
        settle(b, event.seq());
        return b.build();
    }

    // --- tool calls ------------------------------------------------------------------------------

    private static void assistant(Builder b, long seq, AssistantMessage m) {
        if (!m.toolCalls().isEmpty()) {
            var cursor = new ArrayList<>(b.toolCursor);
            for (ToolCall call : m.toolCalls()) {
                cursor.add(new CallCursor(call.callId(), call.tool(), seq, IdempotencyKey.of(b.sessionId, seq, call.callId()),
                        CallState.REQUESTED, null, false, HarnessTool.runnerOf(b.harnessTools, call.tool()), 0, null));
            }
            b.toolCursor = cursor;
        }
        b.usedTokens = b.usedTokens.plus(m.usage());
        b.status = Status.ACTIVE;
        artifact(b, seq, m.contentRef(), "assistant_message content");
    }

    private static void result(Builder b, long seq, ToolResult r) {
        CallState state = switch (r.status()) {
            case OK -> CallState.OK;
            case ERROR -> CallState.ERROR;
            case CANCELLED -> CallState.CANCELLED;
            case UNKNOWN -> CallState.UNKNOWN;
        };
        CallCounts c = b.callCounts;
        b.callCounts = switch (state) {
            case OK -> new CallCounts(c.ok() + 1, c.error(), c.cancelled(), c.unknown());
            case ERROR -> new CallCounts(c.ok(), c.error() + 1, c.cancelled(), c.unknown());
            case CANCELLED -> new CallCounts(c.ok(), c.error(), c.cancelled() + 1, c.unknown());
            default -> new CallCounts(c.ok(), c.error(), c.cancelled(), c.unknown() + 1);
        };
        call(b, r.callId(), cursor -> new CallCursor(cursor.callId(), cursor.tool(), cursor.requestSeq(), cursor.idempotencyKey(), state,
                seq, false, cursor.runBy(), cursor.attempt(), cursor.startedEpoch()));
        b.toolCursor = trimFinished(b.toolCursor);
        artifact(b, seq, r.artifact(), "tool_result of " + r.callId());
    }

    /**
     * A human's decision on a call whose outcome was UNKNOWN: marked done (OK), abandoned (CANCELLED), or retried
     * (AUTHORIZED again, under a new idempotency key derived from the deciding event, so the executor runs it afresh).
     */
    private static void resolved(Builder b, long seq, ToolOutcomeResolved r) {
        CallCursor before = find(b.toolCursor, r.callId());
        CallState state = switch (r.resolution()) {
            case MARK_DONE -> CallState.OK;
            case ABANDON -> CallState.CANCELLED;
            case RETRY -> CallState.AUTHORIZED;
        };
        decision(b, seq, ToolOutcomeResolved.TYPE, r.callId(), r.resolution() + " by " + r.approver()
                + (r.reason().isBlank() ? "" : ": " + r.reason()));
        if (before != null && before.state() == CallState.STARTED && r.resolution() == OutcomeResolution.RETRY) {
            // a harness's hook proved the started attempt had no effect: the call may start once more, under the key
            // derived from this decision; nothing was counted for the attempt
            String key = IdempotencyKey.of(b.sessionId, seq, r.callId());
            call(b, r.callId(), c -> new CallCursor(c.callId(), c.tool(), c.requestSeq(), key, CallState.AUTHORIZED, null,
                    false, c.runBy(), c.attempt(), c.startedEpoch()));
            return;
        }
        if (before == null || before.state() != CallState.UNKNOWN) {
            return;
        }
        CallCounts c = b.callCounts;
        int unknown = Math.max(0, c.unknown() - 1);
        b.callCounts = switch (r.resolution()) {
            case MARK_DONE -> new CallCounts(c.ok() + 1, c.error(), c.cancelled(), unknown);
            case ABANDON -> new CallCounts(c.ok(), c.error(), c.cancelled() + 1, unknown);
            case RETRY -> new CallCounts(c.ok(), c.error(), c.cancelled(), unknown);
        };
        boolean retry = r.resolution() == OutcomeResolution.RETRY;
        String key = retry ? IdempotencyKey.of(b.sessionId, seq, r.callId()) : before.idempotencyKey();
        call(b, r.callId(), cursor -> new CallCursor(cursor.callId(), cursor.tool(), cursor.requestSeq(), key, state,
                retry ? null : seq, false, cursor.runBy(), cursor.attempt(), cursor.startedEpoch()));
    }

    /**
     * Drops the oldest closed calls (OK, ERROR, CANCELLED) beyond {@link #FINISHED_CALLS_KEPT}. An UNKNOWN call is never
     * dropped: it waits for a human's {@code tool_outcome_resolved} (schemaVersion 3; version 2 dropped it too).
     */
    private static List<CallCursor> trimFinished(List<CallCursor> cursor) {
        int finished = 0;
        for (CallCursor c : cursor) {
            if (closed(c)) {
                finished++;
            }
        }
        if (finished <= FINISHED_CALLS_KEPT) {
            return cursor;
        }
        var kept = new ArrayList<CallCursor>(cursor.size());
        int toDrop = finished - FINISHED_CALLS_KEPT;
        for (CallCursor c : cursor) {
            if (closed(c) && toDrop > 0) {
                toDrop--;
            } else {
                kept.add(c);
            }
        }
        return kept;
    }

    private static boolean closed(CallCursor c) {
        return c.state().finished() && c.state() != CallState.UNKNOWN;
    }

    /** Changes the first call {@code callId} in the cursor; a call not in it changes nothing. */
    private static void call(Builder b, String callId, UnaryOperator<CallCursor> change) {
        List<CallCursor> cursor = b.toolCursor;
        for (int i = 0; i < cursor.size(); i++) {
            CallCursor c = cursor.get(i);
            if (c.callId().equals(callId)) {
                var changed = new ArrayList<>(cursor);
                changed.set(i, change.apply(c));
                b.toolCursor = changed;
                return;
            }
        }
    }

    private static CallCursor find(List<CallCursor> cursor, String callId) {
        for (CallCursor c : cursor) {
            if (c.callId().equals(callId)) {
                return c;
            }
        }
        return null;
    }

    private static CallCursor awaiting(CallCursor c, boolean awaiting) {
        return new CallCursor(c.callId(), c.tool(), c.requestSeq(), c.idempotencyKey(), c.state(), c.resultSeq(), awaiting, c.runBy(),
                c.attempt(), c.startedEpoch());
    }

    private static String toolOf(Builder b, String callId) {
        CallCursor c = find(b.toolCursor, callId);
        return c == null ? null : c.tool();
    }

    // --- progress, decisions, artifacts ----------------------------------------------------------

    private static void step(Builder b, long seq, StepCompleted st) {
        Progress p = b.progress;
        b.step = Math.max(b.step, st.step());
        b.progress = new Progress(st.verified() ? Math.max(p.lastVerifiedStep(), st.step()) : p.lastVerifiedStep(),
                p.stepsCompleted() + 1, st.note());
        if (st.evidence() != null && !st.evidence().isBlank()) {
            b.artifacts = appendKeepingLast(b.artifacts, new Artifact(seq, st.evidence(), null, 0, "evidence of step " + st.step()),
                    RECENT_KEPT);
        }
    }

    private static void decision(Builder b, long seq, String kind, String callId, String summary) {
        b.decisions = appendKeepingLast(b.decisions, new Decision(seq, kind, callId, summary), RECENT_KEPT);
    }

    private static void artifact(Builder b, long seq, BlobRef ref, String label) {
        if (ref != null) {
            b.artifacts = appendKeepingLast(b.artifacts, new Artifact(seq, ref.uri(), ref.sha256(), ref.size(), label), RECENT_KEPT);
        }
    }

    private static String scopeText(String tool, String pathGlob) {
        return (tool == null ? "" : " for " + tool) + (pathGlob == null ? "" : " on " + pathGlob);
    }

    // --- status and what the session waits for ---------------------------------------------------

    /** Derives what follows from the rest: AWAITING_APPROVAL while a decision is pending, and the pending action. */
    private static void settle(Builder b, long seq) {
        CallCursor approval = null;
        CallCursor unknown = null;
        CallCursor inFlight = null;
        for (CallCursor c : b.toolCursor) { // the first of each, in one pass
            boolean finished = c.state().finished();
            if (approval == null && c.awaitingApproval() && !finished) {
                approval = c;
            }
            if (unknown == null && c.state() == CallState.UNKNOWN) {
                unknown = c;
            }
            if (inFlight == null && !finished) {
                inFlight = c;
            }
        }
        Status status = b.status;
        if (status != Status.CLOSED) {
            // an interrupted turn stays interrupted while a call of it waits for an approver: the approval-service cancels
            // that call, and the checkpoint must not come out of it ACTIVE, as if the turn had not been interrupted
            if (approval != null && status != Status.INTERRUPTED) {
                status = Status.AWAITING_APPROVAL;
            } else if (status == Status.AWAITING_APPROVAL) {
                status = Status.ACTIVE;
            }
        }
        PendingAction pending;
        if (status == Status.CLOSED) {
            pending = null;
        } else if (approval != null) {
            pending = new PendingAction(PendingAction.Kind.APPROVAL, approval.callId(), approval.requestSeq());
        } else if (unknown != null) {
            pending = new PendingAction(PendingAction.Kind.HUMAN_DECISION, unknown.callId(),
                    unknown.resultSeq() == null ? seq : unknown.resultSeq());
        } else if (inFlight != null) {
            pending = new PendingAction(PendingAction.Kind.TOOL_RESULT, inFlight.callId(), inFlight.requestSeq());
        } else {
            PendingAction previous = b.pendingAction;
            pending = previous != null && previous.kind() == PendingAction.Kind.MODEL_TURN ? previous
                    : new PendingAction(PendingAction.Kind.MODEL_TURN, null, seq);
        }
        b.status = status;
        b.pendingAction = pending;
    }

    // --- plumbing --------------------------------------------------------------------------------

    /** {@code list} with {@code item} appended, then only its last {@code n}: one copy. */
    private static <T> List<T> appendKeepingLast(List<T> list, T item, int n) {
        int from = Math.max(0, list.size() + 1 - n);
        var kept = new ArrayList<T>(list.size() + 1 - from);
        kept.addAll(list.subList(from, list.size()));
        kept.add(item);
        return kept;
    }

    /** Mutable only inside this class, for one step of the fold. */
    private static final class Builder {
        String sessionId;
        String tenantId;
        long lastSeq;
        String owner;
        String objective = "";
        List<String> constraints = List.of();
        String modelId;
        String harnessVersion;
        dev.tether.core.event.ToolMode toolMode;
        Status status;
        int step;
        TokenUsage usedTokens;
        Long tokenBudget;
        PendingAction pendingAction;
        List<CallCursor> toolCursor = List.of();
        List<PlanItem> plan = List.of();
        Progress progress;
        List<Grant> approvals = List.of();
        Compaction compaction;
        Position position;
        Lease lease;
        List<Decision> decisions = List.of();
        List<Artifact> artifacts = List.of();
        CallCounts callCounts;
        java.time.Instant updatedAt;
        List<HarnessTool> harnessTools = List.of();

        static Builder of(SessionProjection s) {
            var b = new Builder();
            b.sessionId = s.sessionId();
            b.tenantId = s.tenantId();
            b.lastSeq = s.lastSeq();
            b.owner = s.owner();
            b.objective = s.objective();
            b.constraints = s.constraints();
            b.modelId = s.modelId();
            b.harnessVersion = s.harnessVersion();
            b.toolMode = s.toolMode();
            b.status = s.status();
            b.step = s.step();
            b.usedTokens = s.usedTokens();
            b.tokenBudget = s.tokenBudget();
            b.pendingAction = s.pendingAction();
            b.toolCursor = s.toolCursor();
            b.plan = s.plan();
            b.progress = s.progress();
            b.approvals = s.approvals();
            b.compaction = s.compaction();
            b.position = s.position();
            b.lease = s.lease();
            b.decisions = s.decisions();
            b.artifacts = s.artifacts();
            b.callCounts = s.callCounts();
            b.updatedAt = s.updatedAt();
            b.harnessTools = s.harnessTools();
            return b;
        }

        SessionProjection build() {
            return new SessionProjection(sessionId, tenantId, SessionProjection.SCHEMA_VERSION, lastSeq, owner, objective, constraints,
                    modelId, harnessVersion, toolMode, status, step, usedTokens, tokenBudget, pendingAction, toolCursor, plan, progress,
                    approvals, compaction, position, lease, decisions, artifacts, callCounts, updatedAt, harnessTools);
        }
    }

    /**
     * The same checkpoint at a known log position. A fold of the log ({@code SessionLog.fold}) knows no offsets; when it
     * replaces a stored checkpoint it cannot read (one this projector rebuilds rather than migrates), that checkpoint
     * still says where the session's events lie, and a consumer that replays a session from its checkpoint's first
     * offset must not be handed -1.
     */
    public static SessionProjection placed(SessionProjection s, Position position) {
        Builder b = Builder.of(s);
        b.position = position;
        return b.build();
    }

    /** Plan items not done yet, for the facts and the tail. */
    public static List<PlanItem> openPlanItems(SessionProjection s) {
        return s.plan().stream().filter(i -> i.status() != PlanItemStatus.DONE && i.status() != PlanItemStatus.CANCELLED).toList();
    }
}
