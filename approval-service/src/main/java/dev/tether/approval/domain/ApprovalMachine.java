package dev.tether.approval.domain;

import dev.tether.approval.domain.ApprovalItem.Decision;
import dev.tether.approval.domain.ApprovalItem.Kind;
import dev.tether.approval.domain.ApprovalItem.Status;
import dev.tether.approval.domain.SessionApprovals.Grant;
import dev.tether.approval.domain.SessionApprovals.OpenCall;
import dev.tether.approval.domain.SessionApprovals.Stage;
import dev.tether.approval.domain.Verdict.Refusal;
import dev.tether.core.auth.Role;
import dev.tether.core.auth.TetherPrincipal;
import dev.tether.core.event.Actor;
import dev.tether.core.event.ActorKind;
import dev.tether.core.event.ApprovalDenied;
import dev.tether.core.event.ApprovalGranted;
import dev.tether.core.event.ApprovalRequested;
import dev.tether.core.event.ApprovalScope;
import dev.tether.core.event.AssistantMessage;
import dev.tether.core.event.AuthorizationBasis;
import dev.tether.core.event.CallRunner;
import dev.tether.core.event.ContextCompacted;
import dev.tether.core.event.Event;
import dev.tether.core.event.EventPayload;
import dev.tether.core.event.FrameworkState;
import dev.tether.core.event.HarnessTool;
import dev.tether.core.event.OutcomeResolution;
import dev.tether.core.event.PlanUpdated;
import dev.tether.core.event.ProposedEvent;
import dev.tether.core.event.SessionClaimed;
import dev.tether.core.event.SessionClosed;
import dev.tether.core.event.SessionForked;
import dev.tether.core.event.SessionMigrated;
import dev.tether.core.event.SessionResumed;
import dev.tether.core.event.SessionStarted;
import dev.tether.core.event.StepCompleted;
import dev.tether.core.event.SubagentResult;
import dev.tether.core.event.ToolCall;
import dev.tether.core.event.ToolCallAuthorized;
import dev.tether.core.event.ToolCallStarted;
import dev.tether.core.event.ToolOutcomeResolved;
import dev.tether.core.event.ToolResult;
import dev.tether.core.event.ToolStatus;
import dev.tether.core.event.TurnInterrupted;
import dev.tether.core.event.UnknownEvent;
import dev.tether.core.event.UserMessage;
import dev.tether.core.id.DerivedIds;
import dev.tether.core.id.IdempotencyKey;
import dev.tether.core.policy.GatingPolicy;
import dev.tether.core.policy.PathGlob;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * The approval state machine as pure functions over a session's log, in the decider style:
 * <ul>
 * <li>{@link #evolve}: the session's approval state after an event;</li>
 * <li>{@link #react}: what the service appends, as itself, because of an event: for every call of an assistant
 *     message exactly one of {@code tool_call_authorized} (policy allows it, or a session-scope grant covers it),
 *     {@code approval_requested} (a human must decide) or an ERROR {@code tool_result} (the tool is not in the
 *     session's registry); after a grant its authorization, after a denial its ERROR result, after an interruption
 *     a CANCELLED result for every call still waiting for a human;</li>
 * <li>{@link #expire}: a denial, in the service's name, of approvals nobody decided in time;</li>
 * <li>{@link #decide}: the event an approver's decision becomes, or why it is refused.</li>
 * </ul>
 * Every event the service proposes has an id derived from what caused it, so proposing it again (a replay, a
 * restart) appends nothing. Whatever is ambiguous fails closed: nothing is authorized, and the refusal says why.
 * No I/O except through the {@link CallInspector} it is given; no clock (times come in as arguments).
 */
public final class ApprovalMachine {

    /** Finished items kept per session for the API, newest last; older ones are only in the log. */
    public static final int FINISHED_ITEMS_KEPT = 20;
    /** Session-scope grants kept per session; the oldest is dropped first, which only makes calls ask again. */
    public static final int GRANTS_KEPT = 100;
    /** Who the service's own events are attributed to (the sequencer attributes them to the writing principal anyway). */
    public static final String SERVICE_ID = "approval-service";

    private static final Actor SERVICE = new Actor(ActorKind.SYSTEM, SERVICE_ID);

    /** What the reactions depend on besides the log: the policy and the port to registries and workspaces. */
    public record Rules(GatingPolicy policy, CallInspector inspector) {
        public Rules {
            Objects.requireNonNull(policy, "policy");
            Objects.requireNonNull(inspector, "inspector");
        }
    }

    /** The state after an expiry sweep and the results it sends. */
    public record Expiry(SessionApprovals state, List<ProposedEvent> events) {}

    private ApprovalMachine() {}

    // --- evolve ----------------------------------------------------------------------------------

    /** Whether {@code payload} starts a session: only then may {@link #evolve} be given no state. */
    public static boolean isFirstEvent(EventPayload payload) {
        return payload instanceof SessionStarted || payload instanceof SessionForked;
    }

    /**
     * The session's approval state after {@code event}.
     *
     * @param s the state before, null before the first event
     * @throws IllegalStateException for an event other than a first one on no state, or of a type not handled
     */
    public static SessionApprovals evolve(SessionApprovals s, Event event) {
        EventPayload payload = event.payload();
        if (payload instanceof SessionStarted started) {
            return SessionApprovals.started(event.sessionId(), event.tenantId(), started.toolMode(), started.modelId(), event.seq(),
                    started.harnessTools(), event.occurredAt());
        }
        if (payload instanceof SessionForked fork) {
            // a fork is a session of its own: the parent's grants do not carry over
            return SessionApprovals.started(event.sessionId(), event.tenantId(), fork.toolMode(), fork.modelId(), event.seq(),
                    fork.harnessTools(), event.occurredAt());
        }
        if (s == null) {
            throw new IllegalStateException(payload.type() + " at seq " + event.seq() + " of " + event.sessionId() + " before its start");
        }
        SessionApprovals n = s.at(event.seq());
        if (payload instanceof AssistantMessage m) {
            for (ToolCall call : m.toolCalls()) {
                n = n.withCall(call.callId(), new OpenCall(call.tool(), call.argumentsJson(), event.seq(), event.actor().id(),
                        Stage.REQUESTED, null, null, null, null, null, HarnessTool.runnerOf(n.harnessTools(), call.tool())));
            }
        } else if (payload instanceof ApprovalRequested r) {
            n = requested(n, event, r);
        } else if (payload instanceof ApprovalGranted g) {
            String conflict = grantConflict(n, g);
            n = conflict == null ? granted(n, event, g) : contested(n, g.callId(), conflict);
        } else if (payload instanceof ApprovalDenied d) {
            String conflict = conflict(n, d.callId());
            n = conflict == null ? denied(n, event, d) : contested(n, d.callId(), conflict);
        } else if (payload instanceof ToolCallAuthorized a) {
            OpenCall call = n.calls().get(a.callId());
            if (call != null && call.stage() == Stage.REQUESTED && a.basis().kind() == AuthorizationBasis.Kind.APPROVAL) {
                n = n.withGrantUsed(a.basis().approvalSeq(), a.callId()); // authorized by a session grant, without asking
            }
            n = n.withCall(a.callId(), c -> c.at(Stage.AUTHORIZED));
        } else if (payload instanceof ToolCallStarted t) {
            n = n.withCall(t.callId(), c -> c.stage() == Stage.AUTHORIZED ? c.at(Stage.STARTED) : c);
        } else if (payload instanceof ToolResult r) {
            n = result(n, event, r);
        } else if (payload instanceof ToolOutcomeResolved r) {
            n = resolved(n, event, r);
        } else if (payload instanceof TurnInterrupted) {
            n = n.interruptedAt(event.seq());
        } else if (payload instanceof SessionClosed) {
            n = n.closedNow().withItems(i -> i.status().pending() ? i.ended(Status.CANCELLED, "the session was closed") : i,
                    FINISHED_ITEMS_KEPT);
            for (String callId : List.copyOf(n.calls().keySet())) {
                n = n.withCall(callId, (OpenCall) null);
            }
        } else if (payload instanceof UserMessage || payload instanceof ContextCompacted || payload instanceof PlanUpdated
                || payload instanceof StepCompleted || payload instanceof SessionClaimed || payload instanceof SessionResumed
                || payload instanceof SessionMigrated || payload instanceof SubagentResult || payload instanceof FrameworkState
                || payload instanceof UnknownEvent) {
            // position only
        } else {
            throw new IllegalStateException("unhandled event type " + payload.type());
        }
        return n;
    }

    private static SessionApprovals requested(SessionApprovals n, Event event, ApprovalRequested r) {
        OpenCall call = n.calls().get(r.callId());
        if (call == null) {
            return n; // only a damaged log asks about a call it never made
        }
        if (call.stage() == Stage.CONFLICTED) {
            // a decision came before the request: nobody may decide this call any more; react sends its ERROR result,
            // unless the call has an answer already
            return n.withCall(r.callId(), call.shown(r));
        }
        if (call.stage() != Stage.REQUESTED) {
            // only a damaged log asks again about a call that is waiting, or asks about one answered already (authorized,
            // maybe running): the answer it has stands, and nobody is given an item to decide it again
            return n;
        }
        if (!call.tool().equals(r.tool())) {
            // a request showing another call (one made for an erased session of the id, in a log from before the sequencer
            // refused it): whatever an approver decided on it would be applied to a call nobody was shown
            return contested(n, r.callId(), "the approval request at seq " + event.seq() + " is for a '" + r.tool() + "' and the call"
                    + " is a '" + call.tool() + "'");
        }
        n = n.withCall(r.callId(), call.at(Stage.AWAITING_APPROVAL).shown(r));
        return n.withItem(new ApprovalItem(n.sessionId(), event.seq(), Kind.APPROVAL, Status.PENDING, n.tenantId(), r.callId(), r.tool(),
                call.argumentsJson(), r.shown(), r.shownRef(), call.requestSeq(), event.occurredAt(), n.modelId(), call.requestedBy(),
                null, null, null, false), FINISHED_ITEMS_KEPT);
    }

    private static SessionApprovals granted(SessionApprovals n, Event event, ApprovalGranted g) {
        OpenCall call = n.calls().get(g.callId());
        String tool = g.tool() != null ? g.tool() : call != null ? call.tool() : null;
        String problem = g.scope() == ApprovalScope.SESSION ? sessionGrantProblem(call, g.callId(), tool, g.pathGlob()) : null;
        if (call != null) {
            n = n.withCall(g.callId(), call.granted(event.seq(), problem));
        }
        if (g.scope() == ApprovalScope.SESSION && problem == null) {
            n = n.withGrant(new Grant(event.seq(), tool, g.pathGlob(), g.approver(), event.occurredAt(), 0, List.of()), GRANTS_KEPT);
        }
        if (problem != null) {
            // fail closed: a grant that cannot be read authorizes nothing, not even the call it was given for
            SessionApprovals state = n;
            return n.pendingItem(g.callId(), Kind.APPROVAL).map(i -> state.withItem(i.ended(Status.CANCELLED, "the approval at seq "
                    + event.seq() + " by " + g.approver() + " could not be used because " + problem + "; nothing was run"),
                    FINISHED_ITEMS_KEPT)).orElse(n);
        }
        DecisionKind kind = g.scope() == ApprovalScope.SESSION ? DecisionKind.GRANT_SESSION : DecisionKind.GRANT_ONCE;
        return decided(n, g.callId(), Kind.APPROVAL, Status.GRANTED, new Decision(kind, g.approver(), g.reason(), g.tool(),
                g.pathGlob(), event.seq(), event.occurredAt()));
    }

    private static SessionApprovals denied(SessionApprovals n, Event event, ApprovalDenied d) {
        n = n.withCall(d.callId(), c -> c.at(Stage.DENIED));
        if (isExpiry(event, d)) {
            SessionApprovals before = n;
            return n.pendingItem(d.callId(), Kind.APPROVAL).map(i -> before.withItem(i.ended(Status.EXPIRED, d.reason()),
                    FINISHED_ITEMS_KEPT)).orElse(n);
        }
        return decided(n, d.callId(), Kind.APPROVAL, Status.DENIED, new Decision(DecisionKind.DENY, d.approver(), d.reason(), null,
                null, event.seq(), event.occurredAt()));
    }

    /**
     * Whether {@code d} is this service's expiry of an approval nobody decided: as the event says, or, for a denial
     * written before {@code approval_denied} said so ({@code expired} null), by the eventId {@link #expire} gave it.
     */
    private static boolean isExpiry(Event event, ApprovalDenied d) {
        return d.expired() != null ? d.expired() : event.eventId().equals(expiredId(event.sessionId(), d.callId()));
    }

    /**
     * Why a decision on {@code callId} cannot be applied to {@code s}, or null if it can: only a call that exists, waits
     * for an approval and whose item is still pending takes one. The sequencer refuses any other decision; this is the
     * second line of defence against a log it did not guard (a damaged or hand-written one).
     */
    static String conflict(SessionApprovals s, String callId) {
        OpenCall call = s.calls().get(callId);
        if (call == null) {
            return "call '" + callId + "' is not open here: it is unknown, or it has its result already";
        }
        if (call.stage() != Stage.AWAITING_APPROVAL) {
            return "call '" + callId + "' is not waiting for an approval: " + switch (call.stage()) {
                case REQUESTED -> "no approval was requested for it yet";
                case GRANTED, GRANT_UNUSABLE -> "it was granted already at seq " + call.grantSeq();
                case DENIED -> "it was denied already";
                case AUTHORIZED -> "it was authorized already";
                case STARTED -> "it was authorized and its harness started it";
                case OUTCOME_UNKNOWN -> "its outcome is unknown and waits for MARK_DONE, RETRY or ABANDON";
                case CONFLICTED -> "it is conflicted already (" + call.problem() + ")";
                case AWAITING_APPROVAL -> throw new IllegalStateException("unreachable");
            };
        }
        if (s.pendingItem(callId, Kind.APPROVAL).isEmpty()) {
            return "call '" + callId + "' has no pending approval item";
        }
        return null;
    }

    /**
     * Why grant {@code g} cannot be applied to {@code s}, or null if it can: {@link #conflict}, or a grant by the principal
     * whose assistant message asked for the call ({@link #selfDecision}). The sequencer refuses such a grant appended to the
     * session-service directly, but took one for a call asked for before it kept who asked (session-heads format 5); it
     * fails closed here, as any decision the sequencer should have refused: nothing is authorized and no grant is installed.
     */
    static String grantConflict(SessionApprovals s, ApprovalGranted g) {
        String conflict = conflict(s, g.callId());
        if (conflict != null) {
            return conflict;
        }
        OpenCall call = s.calls().get(g.callId());
        return g.approver().equals(call.requestedBy()) ? "call '" + g.callId() + "' was granted by " + g.approver()
                + ", who asked for it (the assistant_message at seq " + call.requestSeq() + "): only another approver may let a"
                + " call run" : null;
    }

    /**
     * The clear error to log when {@code event} is a decision that {@link #evolve} will not apply to {@code before}
     * (the state before it), or empty when it is not such a decision.
     */
    public static Optional<String> ambiguity(SessionApprovals before, Event event) {
        String callId = event.payload() instanceof ApprovalGranted g ? g.callId()
                : event.payload() instanceof ApprovalDenied d ? d.callId() : null;
        if (callId == null || before == null) {
            return Optional.empty();
        }
        String approver = event.payload() instanceof ApprovalGranted g ? g.approver() : ((ApprovalDenied) event.payload()).approver();
        String conflict = event.payload() instanceof ApprovalGranted g ? grantConflict(before, g) : conflict(before, callId);
        return conflict == null ? Optional.empty() : Optional.of(event.type() + " at seq " + event.seq() + " of "
                + event.sessionId() + " by " + approver + " fails closed, because " + conflict
                + ": nothing is authorized and no grant is installed because of it");
    }

    /**
     * A decision that cannot be applied (see {@link #conflict}) fails closed: it installs no grant and authorizes
     * nothing; the call, if open, is marked CONFLICTED (the answer it has already stands), a session grant an earlier
     * decision on it installed is withdrawn (its later calls ask again), and a pending item of it ends.
     */
    private static SessionApprovals contested(SessionApprovals n, String callId, String conflict) {
        OpenCall call = n.calls().get(callId);
        if (call != null && call.grantSeq() != null) {
            n = n.withoutGrant(call.grantSeq());
        }
        for (ApprovalItem item : n.items()) {
            if (item.callId().equals(callId) && item.decision() != null && item.decision().decision() == DecisionKind.GRANT_SESSION) {
                n = n.withoutGrant(item.decision().seq());
            }
        }
        if (call != null) {
            n = n.withCall(callId, call.conflicted(conflict));
        }
        return n.withItems(i -> i.status().pending() && i.kind() == Kind.APPROVAL && i.callId().equals(callId)
                ? i.ended(Status.CANCELLED, "conflicting decisions: " + conflict + "; nothing was run") : i, FINISHED_ITEMS_KEPT);
    }

    /**
     * Why a session-scope grant of {@code tool} on {@code pathGlob}, given on {@code call}, cannot be used, or null if it can:
     * {@link #scopeProblem}, or a call of another tool (what the approver was shown; a standing grant of this one was never
     * asked for).
     */
    private static String sessionGrantProblem(OpenCall call, String callId, String tool, String pathGlob) {
        String problem = scopeProblem(tool, pathGlob);
        if (problem == null && call != null && !call.tool().equals(tool)) {
            return "it is for the tool '" + tool + "' and call " + callId + " is a '" + call.tool() + "'";
        }
        return problem;
    }

    /** Why a session-scope grant of {@code tool} on {@code pathGlob} cannot be used, or null if it can. */
    static String scopeProblem(String tool, String pathGlob) {
        if (tool == null || tool.isBlank()) {
            return "it names no tool";
        }
        if (pathGlob != null) {
            try {
                PathGlob.parse(pathGlob);
            } catch (PathGlob.InvalidGlobException e) {
                return "its path glob '" + pathGlob + "' cannot be parsed: it " + e.getMessage();
            }
        }
        return null;
    }

    private static SessionApprovals result(SessionApprovals n, Event event, ToolResult r) {
        OpenCall call = n.calls().get(r.callId());
        if (r.status() == ToolStatus.UNKNOWN) {
            if (call == null) {
                return n;
            }
            n = n.withCall(r.callId(), call.at(Stage.OUTCOME_UNKNOWN));
            String shown = call.shown() != null ? call.shown() : call.tool() + " " + call.argumentsJson();
            return n.withItem(new ApprovalItem(n.sessionId(), event.seq(), Kind.UNKNOWN_OUTCOME, Status.PENDING, n.tenantId(), r.callId(),
                    call.tool(), call.argumentsJson(), shown, call.shownRef(), call.requestSeq(), event.occurredAt(), n.modelId(),
                    call.requestedBy(), r.content(), null, null, false), FINISHED_ITEMS_KEPT);
        }
        n = n.withCall(r.callId(), (OpenCall) null);
        String sessionId = n.sessionId();
        return n.withItems(i -> {
            if (!i.status().pending() || i.kind() != Kind.APPROVAL || !i.callId().equals(r.callId())) {
                return i;
            }
            if (event.eventId().equals(cancelledId(sessionId, r.callId()))) {
                return i.ended(Status.CANCELLED, "the turn was interrupted before an approver decided");
            }
            return i.ended(Status.CANCELLED, "the call got a " + r.status() + " result before an approver decided");
        }, FINISHED_ITEMS_KEPT);
    }

    private static SessionApprovals resolved(SessionApprovals n, Event event, ToolOutcomeResolved r) {
        Status status = switch (r.resolution()) {
            case MARK_DONE -> Status.MARKED_DONE;
            case RETRY -> Status.RETRIED;
            case ABANDON -> Status.ABANDONED;
        };
        DecisionKind kind = DecisionKind.valueOf(r.resolution().name());
        n = r.resolution() == OutcomeResolution.RETRY ? n.withCall(r.callId(), c -> c.at(Stage.AUTHORIZED))
                : n.withCall(r.callId(), (OpenCall) null);
        return decided(n, r.callId(), Kind.UNKNOWN_OUTCOME, status, new Decision(kind, r.approver(), r.reason(), null, null,
                event.seq(), event.occurredAt()));
    }

    private static SessionApprovals decided(SessionApprovals n, String callId, Kind kind, Status status, Decision decision) {
        return n.pendingItem(callId, kind).map(i -> n.withItem(i.decided(status, decision), FINISHED_ITEMS_KEPT)).orElse(n);
    }

    // --- react -----------------------------------------------------------------------------------

    /**
     * What the service appends because of {@code event}, given the state {@code s} after it. One event per command,
     * so one refused event never holds back another.
     */
    public static List<ProposedEvent> react(SessionApprovals s, Event event, Rules rules) {
        if (s.closed()) {
            return List.of();
        }
        EventPayload payload = event.payload();
        var out = new ArrayList<ProposedEvent>();
        if (payload instanceof AssistantMessage m) {
            for (ToolCall call : m.toolCalls()) {
                OpenCall open = s.calls().get(call.callId());
                if (open != null && open.runBy() == CallRunner.RECORDED) {
                    continue; // it ran already, out of Tether's reach: no approval can hold it, and its harness reports it
                }
                out.add(decideCall(s, call, rules));
            }
        } else if (payload instanceof ApprovalRequested r) {
            OpenCall call = s.calls().get(r.callId());
            if (call != null && call.stage() == Stage.CONFLICTED && !answered(call.conflictedFrom())) {
                out.add(conflicted(s, r.callId(), call)); // a decision came before the request: the call has no answer yet
            } else if (call != null && call.stage() == Stage.AWAITING_APPROVAL && interrupted(s, call)) {
                // the turn was cut short while the request was on its way: the cancellation sent then, again (the
                // same eventId, so the sequencer appends it once)
                out.add(cancel(s, r.callId(), call));
            }
        } else if (payload instanceof ApprovalGranted || payload instanceof ApprovalDenied) {
            decided(s, event, out);
        } else if (payload instanceof TurnInterrupted) {
            s.calls().forEach((callId, call) -> {
                if (call.runBy() != CallRunner.RECORDED && (mayStillBeAuthorized(call) || harnessRunNotStarted(call))) {
                    out.add(cancel(s, callId, call));
                }
            });
        }
        return out;
    }

    /**
     * Whether {@code call} belongs to a turn that was interrupted ({@link TurnInterrupted#cutsOff}): it must not run, the
     * sequencer refuses its authorization, and this service answers it CANCELLED when it folds the interruption.
     */
    private static boolean interrupted(SessionApprovals s, OpenCall call) {
        return TurnInterrupted.cutsOff(s.lastInterruptSeq(), call.requestSeq());
    }

    /**
     * Whether a call at {@code stage} has no authorization in the log yet and may still get one: its answer is on its
     * way (REQUESTED: an authorization, an approval request or an ERROR), a human decides (AWAITING_APPROVAL), a grant's
     * authorization is on its way (GRANTED), or a conflict left it unsure (CONFLICTED). An interruption folded now comes
     * before any such authorization in the log, so the sequencer will refuse it: the call is answered CANCELLED here,
     * and never left without a result. Where an ERROR result was on its way already, the sequencer takes whichever
     * comes first and refuses the other, so the call still gets exactly one. A call authorized before the interruption
     * is the executor's to cancel (docs/ARCHITECTURE.md §6), one whose outcome is unknown a person's, and a denied or
     * unusably granted one has its ERROR on the way. So is an executor's call a conflicting decision came for after it
     * was authorized: it may be running, and a CANCELLED result ("nothing was run") would be taken by the sequencer
     * instead of what it did (a harness-run one the sequencer guards itself: it refuses a CANCELLED once it started).
     */
    private static boolean mayStillBeAuthorized(OpenCall call) {
        return switch (call.stage()) {
            case REQUESTED, AWAITING_APPROVAL, GRANTED -> true;
            case CONFLICTED -> call.runBy() == CallRunner.HARNESS || !mayRunAlready(call.conflictedFrom());
            case AUTHORIZED, STARTED, OUTCOME_UNKNOWN, DENIED, GRANT_UNUSABLE -> false;
        };
    }

    /**
     * Whether a call at {@code stage} has an answer of its own, in the log or on its way: an authorization
     * ({@link #mayRunAlready}, or a grant's), or the ERROR result of a denial or of a grant that cannot be used. A conflict
     * that finds it there sends no second one, even when a (damaged) approval request for it comes after.
     */
    private static boolean answered(Stage stage) {
        return mayRunAlready(stage) || stage == Stage.GRANTED || stage == Stage.GRANT_UNUSABLE || stage == Stage.DENIED;
    }

    /** Whether a call at {@code stage} had an answer that lets it run (or ran it already): its result is not ours to give. */
    static boolean mayRunAlready(Stage stage) {
        return stage == Stage.AUTHORIZED || stage == Stage.STARTED || stage == Stage.OUTCOME_UNKNOWN;
    }

    /**
     * Whether {@code call} is a harness-run call that is authorized and not started: an interruption cancels it here, as
     * the executor cancels an executor call it has not started (docs/ARCHITECTURE.md §6, "Harness-run tools"), and the
     * sequencer refuses its start from then on, so the harness cannot race the cancellation. A recorded-only call is its
     * harness's to report.
     */
    private static boolean harnessRunNotStarted(OpenCall call) {
        return call.runBy() == CallRunner.HARNESS && call.stage() == Stage.AUTHORIZED;
    }

    /** The answer to a decision: the call's authorization or ERROR result if it took the decision, else nothing new. */
    private static void decided(SessionApprovals s, Event event, List<ProposedEvent> out) {
        String callId = event.payload() instanceof ApprovalGranted g ? g.callId() : ((ApprovalDenied) event.payload()).callId();
        OpenCall call = s.calls().get(callId);
        if (call == null) {
            return; // a decision on a call that is not open changed nothing (see conflict)
        }
        if (interrupted(s, call)) {
            // a decision that raced the interruption: the call's CANCELLED result went out when the interruption was
            // folded, and nothing may authorize it now (the sequencer would refuse it anyway)
            return;
        }
        if (call.stage() == Stage.CONFLICTED) {
            // nothing that authorizes; an ERROR only for a call that was waiting with no answer on its way, never a
            // second result for a call authorized, denied or answered already
            if (call.conflictedFrom() == Stage.AWAITING_APPROVAL) {
                out.add(conflicted(s, callId, call));
            }
        } else if (event.payload() instanceof ApprovalGranted && call.stage() == Stage.GRANTED) {
            // with the hash of what the approver was shown, which the executor works out again right before the call starts
            out.add(authorize(s, callId, AuthorizationBasis.approvalOfShown(call.grantSeq(), call.shownSha256())));
        } else if (event.payload() instanceof ApprovalGranted && call.stage() == Stage.GRANT_UNUSABLE) {
            out.add(error(s, callId, call, "unusable-grant", "the approval at seq " + call.grantSeq() + " was not used because "
                    + call.problem() + "; nothing was run. Ask again if the call is still needed."));
        } else if (event.payload() instanceof ApprovalDenied d && call.stage() == Stage.DENIED) {
            out.add(error(s, callId, call, "denied", isExpiry(event, d) ? d.reason()
                    : "denied by " + d.approver() + ": " + (d.reason().isBlank() ? "no reason given" : d.reason())));
        }
    }

    private static ProposedEvent conflicted(SessionApprovals s, String callId, OpenCall call) {
        return error(s, callId, call, "conflict", "the approval decisions for this call conflict (" + call.problem()
                + "), so it is refused: nothing was authorized and nothing was run. Ask again if the call is still needed.");
    }

    private static ProposedEvent decideCall(SessionApprovals s, ToolCall call, Rules rules) {
        OpenCall open = s.calls().get(call.callId());
        boolean harness = open != null && open.runBy() == CallRunner.HARNESS;
        if (!harness && !rules.inspector().tools(s.toolMode()).contains(call.tool())) {
            return error(s, call.callId(), open, "unavailable", "tool '" + call.tool() + "' is not available in a " + s.toolMode()
                    + " session; its tools are " + String.join(", ", new java.util.TreeSet<>(rules.inspector().tools(s.toolMode())))
                    + ". Nothing was run.");
        }
        boolean gated = harness
                ? rules.policy().gated(s.tenantId(), s.toolMode(), call.tool(), HarnessTool.find(s.harnessTools(), call.tool()))
                : rules.policy().gated(s.tenantId(), s.toolMode(), call.tool());
        if (!gated) {
            return authorize(s, call.callId(), AuthorizationBasis.POLICY);
        }
        Inspection inspection = harness ? harnessInspection(call) : rules.inspector().inspect(s.tenantId(), s.sessionId(), s.toolMode(), call);
        Grant covering = s.grants().stream().filter(g -> g.covers(call.tool(), inspection.target()))
                .max(Comparator.comparingLong(Grant::seq)).orElse(null);
        if (covering != null) {
            // with the grant's glob, which the executor checks again right before the call starts: a link made since the
            // inspection must not carry the call outside it
            return authorize(s, call.callId(), AuthorizationBasis.approval(covering.seq(), covering.pathGlob()));
        }
        return new ProposedEvent(id(s.sessionId(), call.callId(), ApprovalRequested.TYPE), SERVICE,
                new ApprovalRequested(call.callId(), call.tool(), inspection.shown(), inspection.shownRef(), inspection.shownSha256()));
    }

    /** The longest arguments an approver is shown of a harness-run call in {@code approval_requested}. */
    static final int HARNESS_SHOWN_MAX = 8 * 1024;

    /**
     * What an approver sees of a harness-run call: its tool and arguments as the model wrote them (Tether has no code of
     * the tool to work out what it would do), cut at {@value #HARNESS_SHOWN_MAX} characters with a note of where the rest
     * is. It acts on no workspace path, so only a session grant without a path glob covers it.
     */
    static Inspection harnessInspection(ToolCall call) {
        String args = call.argumentsJson();
        String shown = args.length() <= HARNESS_SHOWN_MAX ? call.tool() + " " + args
                : call.tool() + " " + args.substring(0, HARNESS_SHOWN_MAX) + "… (" + (args.length() - HARNESS_SHOWN_MAX)
                + " more characters: the whole call is in its assistant_message)";
        return new Inspection("run by the session's harness: " + shown, null, CallTarget.NONE, null);
    }

    private static ProposedEvent authorize(SessionApprovals s, String callId, AuthorizationBasis basis) {
        return new ProposedEvent(id(s.sessionId(), callId, ToolCallAuthorized.TYPE), SERVICE, new ToolCallAuthorized(callId, basis));
    }

    /**
     * The CANCELLED result of a call whose turn was interrupted before it was authorized, under an eventId derived from
     * the call alone ({@link #cancelledId}): however often it is sent (the interruption, then an approval request that
     * was on its way, a replay), the sequencer appends it once.
     */
    private static ProposedEvent cancel(SessionApprovals s, String callId, OpenCall call) {
        String before = call.stage() == Stage.AWAITING_APPROVAL ? "before an approver decided"
                : call.stage() == Stage.AUTHORIZED ? "before its harness started it" : "before the call was authorized";
        return new ProposedEvent(cancelledId(s.sessionId(), callId), SERVICE, new ToolResult(callId, key(s, call, callId),
                ToolStatus.CANCELLED, "cancelled: the turn was interrupted (turn_interrupted at seq " + s.lastInterruptSeq() + ") "
                + before + "; nothing was run", null));
    }

    private static ProposedEvent error(SessionApprovals s, String callId, OpenCall call, String why, String content) {
        return new ProposedEvent(id(s.sessionId(), callId, ToolResult.TYPE, why), SERVICE,
                new ToolResult(callId, key(s, call, callId), ToolStatus.ERROR, content, null));
    }

    /** The call's idempotency key, the one the projector gave it ({@link IdempotencyKey}); empty for a call not open. */
    private static String key(SessionApprovals s, OpenCall call, String callId) {
        return call == null ? "" : IdempotencyKey.of(s.sessionId(), call.requestSeq(), callId);
    }

    // --- expiry ----------------------------------------------------------------------------------

    /**
     * A denial, in the service's own name, of every approval requested at least {@code timeout} before {@code now}
     * that nobody decided, each sent once: the item is marked as expiring until the denial is in the log, and
     * {@link #react} then sends the call's ERROR result. The sequencer takes a denial only while the approval is
     * still pending, so if an approver's decision gets there first the expiry is refused and the decision stands.
     */
    public static Expiry expire(SessionApprovals s, Instant now, Duration timeout) {
        if (s.closed()) {
            return new Expiry(s, List.of());
        }
        var events = new ArrayList<ProposedEvent>();
        SessionApprovals n = s;
        for (ApprovalItem item : s.pendingItems()) {
            if (item.kind() != Kind.APPROVAL || item.expiring() || item.requestedAt().plus(timeout).isAfter(now)) {
                continue;
            }
            events.add(new ProposedEvent(expiredId(s.sessionId(), item.callId()), SERVICE, ApprovalDenied.expiry(item.callId(),
                    SERVICE_ID, "no approver decided within " + text(timeout) + " of the approval request at seq " + item.seq()
                    + "; nothing was run")));
            n = n.withItem(item.withExpiring(), FINISHED_ITEMS_KEPT);
        }
        return new Expiry(n, events);
    }

    /** When a pending approval expires, for the API. */
    public static Instant expiresAt(ApprovalItem item, Duration timeout) {
        return item.kind() == Kind.APPROVAL ? item.requestedAt().plus(timeout) : null;
    }

    private static String text(Duration d) {
        return d.toString().substring(2).toLowerCase(java.util.Locale.ROOT);
    }

    // --- human decisions -------------------------------------------------------------------------

    /**
     * The event an approver's decision on the item opened at {@code seq} becomes, to be appended in the approver's
     * name, or why it is refused. The sequencer checks again when it appends (the item may have been decided or
     * ended meanwhile), so a race between two approvers ends with one decision and one refusal.
     */
    public static Verdict decide(SessionApprovals s, long seq, DecisionRequest request, TetherPrincipal by) {
        if (!by.has(Role.APPROVER)) {
            return new Verdict.Refused(Refusal.FORBIDDEN, null, "only an approver decides");
        }
        if (s == null || !s.tenantId().equals(by.tenantId())) {
            return new Verdict.Refused(Refusal.NOT_FOUND, null, "approval not found");
        }
        ApprovalItem item = s.item(seq).orElse(null);
        if (item == null) {
            return new Verdict.Refused(Refusal.NOT_FOUND, null, "approval not found");
        }
        if (request.seen() != null && !request.seen().equals(item.requestedAt())) {
            return new Verdict.Refused(Refusal.CHANGED, "requestedAt", "approval " + item.id() + " is another call now: it was"
                    + " requested at " + item.requestedAt() + ", not at " + request.seen() + " (its session was erased and made again"
                    + " under its id); read it again");
        }
        DecisionKind decision = request.decision();
        if (decision.appliesTo() != item.kind()) {
            return new Verdict.Refused(Refusal.INVALID, "decision", "a" + (item.kind() == Kind.APPROVAL ? "n " : " ") + item.kind()
                    + " item takes " + DecisionKind.on(item.kind()) + ", not " + decision);
        }
        if (!item.status().pending() && item.decision() != null) {
            return new Verdict.Refused(Refusal.CONFLICT, null, "already " + item.status() + " by " + item.decision().approver()
                    + " at seq " + item.decision().seq());
        }
        if (!item.status().pending()) {
            // expired, or cancelled (an interruption, the session closed, a grant that could not be used, a conflict): no
            // decision took effect, so "already decided" would mislead
            return new Verdict.Refused(Refusal.ENDED, null, "approval " + item.id() + " ended " + item.status() + " without a decision"
                    + " taking effect" + (item.endedBecause() != null ? ": " + item.endedBecause() : ""));
        }
        OpenCall call = s.calls().get(item.callId());
        if (item.kind() == Kind.APPROVAL && call != null && interrupted(s, call)) {
            // its CANCELLED result is on its way: nothing decided now would run it
            return new Verdict.Refused(Refusal.ENDED, null, "approval " + item.id() + " ended without a decision taking effect: the turn"
                    + " of call '" + item.callId() + "' was interrupted at seq " + s.lastInterruptSeq() + " before anyone decided, so the"
                    + " call is cancelled and nothing was run");
        }
        String self = selfDecision(item, decision, by);
        if (self != null) {
            return new Verdict.Refused(Refusal.FORBIDDEN, null, self);
        }
        if (request.reason().length() > DecisionRequest.MAX_REASON) {
            return new Verdict.Refused(Refusal.INVALID, "reason", "must be at most " + DecisionRequest.MAX_REASON + " characters");
        }
        if (decision != DecisionKind.GRANT_SESSION && (request.tool() != null || request.pathGlob() != null)) {
            return new Verdict.Refused(Refusal.INVALID, request.tool() != null ? "tool" : "pathGlob",
                    "is only for GRANT_SESSION, not " + decision);
        }
        String tool = item.tool();
        if (decision == DecisionKind.GRANT_SESSION) {
            if (request.tool() != null && !request.tool().equals(item.tool())) {
                return new Verdict.Refused(Refusal.INVALID, "tool", "a session grant covers the decided call's tool '" + item.tool()
                        + "', not '" + request.tool() + "'");
            }
            if (request.pathGlob() != null) {
                try {
                    PathGlob.parse(request.pathGlob());
                } catch (PathGlob.InvalidGlobException e) {
                    return new Verdict.Refused(Refusal.INVALID, "pathGlob", e.getMessage());
                }
                if (call != null && call.runBy() != CallRunner.EXECUTOR) {
                    // it would be granted, and cover none of the tool's later calls: each would ask again
                    return new Verdict.Refused(Refusal.INVALID, "pathGlob", "'" + item.tool() + "' is run by the session's harness, on"
                            + " no workspace path Tether knows: a path glob would cover none of its calls; grant the session without"
                            + " one, or grant once");
                }
            }
        }
        if (decision == DecisionKind.DENY && request.reason().isBlank()) {
            return new Verdict.Refused(Refusal.INVALID, "reason", "is required to deny: the model is told why");
        }
        EventPayload payload = switch (decision) {
            case GRANT_ONCE -> new ApprovalGranted(item.callId(), ApprovalScope.ONCE, null, null, by.id(), request.reason());
            case GRANT_SESSION -> new ApprovalGranted(item.callId(), ApprovalScope.SESSION, tool, request.pathGlob(), by.id(),
                    request.reason());
            case DENY -> ApprovalDenied.byApprover(item.callId(), ApprovalScope.ONCE, null, null, by.id(), request.reason());
            case MARK_DONE, RETRY, ABANDON -> new ToolOutcomeResolved(item.callId(), OutcomeResolution.valueOf(decision.name()), by.id(),
                    request.reason());
        };
        // the same decision sent again (a retried request) is the same event; any other one is a second decision
        String eventId = id(s.sessionId(), "decision", Long.toString(seq), by.id(), decision.name(), Objects.toString(tool),
                Objects.toString(request.pathGlob()), request.reason());
        return new Verdict.Append(new ProposedEvent(eventId, new Actor(ActorKind.APPROVER, by.id()), payload), item);
    }

    /**
     * The decisions the principal that asked for a call (the writer of its assistant message, {@link ApprovalItem#requestedBy})
     * may take on it itself: only those that end it without running it and without saying it ran. The gate is there so
     * that someone other than the agent decides what the agent asked for; a token holding both the agent and the approver
     * role, or an admin that is an approver and appends the session's turns itself, is not someone else. Denying or
     * abandoning one's own call fails closed and is allowed; a grant lets it run, RETRY runs it again, and MARK_DONE
     * vouches for an effect nobody checked, so those are another approver's. No role is exempt: the rule is about who
     * asked, not what the caller may do otherwise.
     */
    public static final Set<DecisionKind> SELF_DECISIONS = Set.of(DecisionKind.DENY, DecisionKind.ABANDON);

    /** Why {@code by} may not take {@code decision} on {@code item} as the principal that asked for its call, or null. */
    static String selfDecision(ApprovalItem item, DecisionKind decision, TetherPrincipal by) {
        if (SELF_DECISIONS.contains(decision) || !by.id().equals(item.requestedBy())) {
            return null;
        }
        String what = item.kind() == Kind.APPROVAL ? "whether it runs" : "whether it is done or runs again";
        return by.id() + " asked for call '" + item.callId() + "' itself (the assistant_message at seq " + item.requestSeq()
                + "), so another approver must decide " + what + "; its asker may only "
                + (item.kind() == Kind.APPROVAL ? DecisionKind.DENY : DecisionKind.ABANDON) + " it";
    }

    // --- ids -------------------------------------------------------------------------------------

    /**
     * The eventId of the service's expiry denial of {@code callId}; a denial written before {@code approval_denied} had
     * its {@code expired} field is recognised as an expiry by it.
     */
    public static String expiredId(String sessionId, String callId) {
        return id(sessionId, callId, ToolResult.TYPE, "expired");
    }

    /** The eventId of the cancellation result of {@code callId}. */
    public static String cancelledId(String sessionId, String callId) {
        return id(sessionId, callId, ToolResult.TYPE, "cancelled");
    }

    /**
     * A stable eventId derived from what caused the event: {@link DerivedIds#ofParts}, whose values are in logs already
     * (an expiry denial is recognized by its id, a retried decision must stay the same event).
     */
    static String id(String... parts) {
        return DerivedIds.ofParts(parts);
    }
}
