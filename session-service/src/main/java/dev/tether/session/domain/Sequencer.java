package dev.tether.session.domain;

import dev.tether.core.auth.Role;
import dev.tether.core.auth.TetherPrincipal;
import dev.tether.core.event.Actor;
import dev.tether.core.event.ActorKind;
import dev.tether.core.event.ApprovalDenied;
import dev.tether.core.event.ApprovalGranted;
import dev.tether.core.event.ApprovalRequested;
import dev.tether.core.event.ApprovalScope;
import dev.tether.core.event.AssistantMessage;
import dev.tether.core.event.CallRunner;
import dev.tether.core.event.ContextCompacted;
import dev.tether.core.event.Event;
import dev.tether.core.event.EventPayload;
import dev.tether.core.event.FrameworkState;
import dev.tether.core.event.HarnessTool;
import dev.tether.core.event.OutcomeResolution;
import dev.tether.core.event.PlanUpdated;
import dev.tether.core.event.ProposedEvent;
import dev.tether.core.event.ResumeReason;
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
import dev.tether.core.event.ToolStatus;
import dev.tether.core.event.TurnInterrupted;
import dev.tether.core.event.UnknownEvent;
import dev.tether.core.event.UserMessage;
import dev.tether.core.id.DerivedIds;
import dev.tether.core.id.IdempotencyKey;
import dev.tether.session.domain.Command.AppendEvents;
import dev.tether.session.domain.Command.ClaimSession;
import dev.tether.session.domain.Command.EraseSession;
import dev.tether.session.domain.Command.MigrateSession;
import dev.tether.session.domain.Decision.Accepted;
import dev.tether.session.domain.Decision.Appended;
import dev.tether.session.domain.Decision.FollowUp;
import dev.tether.session.domain.Decision.Rejected;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The rules of a session's log, as two pure functions: {@link #decide} turns a command and the
 * session's head into a verdict (new events with their seqs, or a rejection), and {@link #evolve}
 * folds an event into the head. No I/O: what the decision needs beyond the head comes through
 * {@link History}.
 */
public final class Sequencer {

    /** What the sequencer remembers of a session beyond its head. */
    public interface History {
        /** The seq of an event of this session with that eventId, if one was appended. */
        OptionalLong seqOf(String eventId);

        /** Whether a tool call with that callId was ever asked for in this session. */
        boolean knownCall(String callId);
    }

    /** Event types only Tether itself writes; a client proposing one is refused. */
    private static final Set<String> WRITTEN_BY_TETHER = Set.of(
            SessionClaimed.TYPE, SessionResumed.TYPE, SessionMigrated.TYPE, SubagentResult.TYPE);

    /**
     * The most calls a session may have open at once, and the longest callId and tool name (in characters): the head, one
     * record of its store's changelog written in every append's transaction, holds every open call by its id and tool, and
     * must stay well within a Kafka record (1 MiB by default) and cheap to copy.
     */
    static final int MAX_OPEN_CALLS = 512;
    static final int MAX_CALL_ID = 128;
    static final int MAX_TOOL_NAME = HarnessTool.MAX_NAME;

    private Sequencer() {}

    /**
     * The verdict on {@code envelope} for the session whose head is {@code head} (null: none yet), at {@code clock}, the
     * sequencer's clock; the session's time is not before its last event's unless the clock is far behind it
     * ({@link SessionHead#timeAt}).
     */
    public static Decision decide(CommandEnvelope envelope, SessionHead head, History history, Instant clock) {
        if (head != null && !head.tenantId().equals(envelope.tenantId())) {
            return notFound(); // another tenant's session is answered exactly like a missing one, and never overwritten
        }
        Instant now = head == null ? clock : head.timeAt(clock);
        Command command = envelope.command();
        if (command instanceof AppendEvents append) {
            return append(envelope, append, head, history, now);
        }
        if (head == null) {
            return notFound();
        }
        if (command instanceof ClaimSession claim) {
            return claim(envelope, claim, head, history, now);
        }
        if (command instanceof MigrateSession migrate) {
            return migrate(envelope, migrate, head, history, now);
        }
        if (command instanceof EraseSession erase) {
            return erase(envelope, erase, head, now);
        }
        throw new IllegalStateException("unhandled command " + command.getClass().getName());
    }

    /** The head after {@code event}; {@code head} is null before the first event. */
    public static SessionHead evolve(SessionHead head, Event event) {
        EventPayload payload = event.payload();
        if (head != null && isFirstEvent(payload)) {
            throw new IllegalStateException(payload.type() + " is only a first event (seq " + event.seq() + " of " + event.sessionId() + ")");
        }
        if (payload instanceof SessionStarted s) {
            return new SessionHead(event.sessionId(), event.tenantId(), event.actor().id(), event.seq(), 0, null, s.modelId(),
                    s.harnessVersion(), s.toolMode(), false, TokenUsage.NONE, s.tokenBudget(), s.parentSessionId(), Map.of(),
                    null, null, 0, s.harnessTools(), event.occurredAt(), s.parentStartedAt(), event.occurredAt());
        }
        if (payload instanceof SessionForked f) {
            // a fork is a session of its own: not a subagent, so nothing reports back to the parent
            return new SessionHead(event.sessionId(), event.tenantId(), event.actor().id(), event.seq(), 0, null, f.modelId(),
                    f.harnessVersion(), f.toolMode(), false, TokenUsage.NONE, f.tokenBudget(), null, Map.of(), null, null, 0, f.harnessTools(),
                    event.occurredAt(), null, event.occurredAt());
        }
        if (head == null) {
            throw new IllegalStateException("event " + event.seq() + " of " + event.sessionId() + " before its session_started");
        }
        SessionHead next = head.withLastEvent(event.seq(), event.occurredAt());
        if (payload instanceof AssistantMessage m) {
            next = next.withUsage(m.usage());
            if (!m.toolCalls().isEmpty()) {
                // one copy of the calls per message, not one per call
                var calls = new java.util.LinkedHashMap<>(next.openCalls());
                for (ToolCall call : m.toolCalls()) {
                    calls.put(call.callId(), SessionHead.OpenCall.asked(call.tool(), event.seq(),
                            HarnessTool.runnerOf(head.harnessTools(), call.tool()), event.actor().id()));
                }
                next = next.withOpenCalls(calls);
            }
        } else if (payload instanceof ApprovalRequested r) {
            next = withCall(next, r.callId(), call -> call.with(SessionHead.Approval.REQUESTED));
        } else if (payload instanceof ApprovalGranted g) {
            next = withCall(next, g.callId(), call -> call.with(SessionHead.Approval.GRANTED));
        } else if (payload instanceof ApprovalDenied d) {
            next = withCall(next, d.callId(), call -> call.with(SessionHead.Approval.DENIED));
        } else if (payload instanceof ToolCallAuthorized a) {
            next = withCall(next, a.callId(), SessionHead.OpenCall::withAuthorized);
        } else if (payload instanceof ToolCallStarted t) {
            next = withCall(next, t.callId(), call -> call.started(t.attempt()));
        } else if (payload instanceof ToolResult r) {
            // an UNKNOWN outcome keeps the call open, unauthorized, until a human resolves it
            next = r.status() == ToolStatus.UNKNOWN ? withCall(next, r.callId(), SessionHead.OpenCall::withOutcomeUnknown)
                    : next.withCall(r.callId(), null);
        } else if (payload instanceof ToolOutcomeResolved r) {
            next = r.resolution() == OutcomeResolution.RETRY ? withCall(next, r.callId(), call -> call.retried(event.seq()))
                    : next.withCall(r.callId(), null);
        } else if (payload instanceof SessionClaimed c) {
            next = next.withClaim(c.epoch(), c.workerId()).withLastClaim(event.eventId(), null);
        } else if (payload instanceof SessionResumed r) {
            next = next.withLastClaim(next.lastClaimEventId(), r.reason());
        } else if (payload instanceof SessionMigrated m) {
            next = next.withHarnessVersion(m.toVersion());
        } else if (payload instanceof SessionClosed) {
            next = next.closedNow();
        } else if (payload instanceof TurnInterrupted) {
            next = next.withLastInterruptSeq(event.seq());
        } else if (payload instanceof UserMessage || payload instanceof ContextCompacted
                || payload instanceof PlanUpdated || payload instanceof StepCompleted || payload instanceof SubagentResult
                || payload instanceof FrameworkState || payload instanceof UnknownEvent) {
            // position only
        } else {
            throw new IllegalStateException("unhandled event type " + payload.type());
        }
        return next;
    }

    /** The head with {@code callId}'s entry changed; a call that is not open (only a damaged log has that) stays as it is. */
    private static SessionHead withCall(SessionHead head, String callId, java.util.function.UnaryOperator<SessionHead.OpenCall> change) {
        SessionHead.OpenCall call = head.openCalls().get(callId);
        return call == null ? head : head.withCall(callId, change.apply(call));
    }

    /** The actor an event of {@code type} proposed by {@code principal} is attributed to. */
    public static Actor actorFor(String type, TetherPrincipal principal) {
        ActorKind kind = switch (type) {
            case SessionStarted.TYPE, UserMessage.TYPE, TurnInterrupted.TYPE, SessionClosed.TYPE ->
                    principal.has(Role.SERVICE) ? ActorKind.SYSTEM : ActorKind.USER;
            case AssistantMessage.TYPE, PlanUpdated.TYPE, StepCompleted.TYPE, FrameworkState.TYPE -> ActorKind.MODEL;
            case ToolResult.TYPE, ToolCallStarted.TYPE -> ActorKind.TOOL;
            case ApprovalDenied.TYPE -> principal.has(Role.SERVICE) ? ActorKind.SYSTEM : ActorKind.APPROVER;
            case ApprovalGranted.TYPE -> ActorKind.APPROVER;
            // a harness's own reconciliation of a harness-run call (RETRY: proven not done) is its tool's word, not an approver's
            case ToolOutcomeResolved.TYPE -> principal.has(Role.APPROVER) ? ActorKind.APPROVER : ActorKind.TOOL;
            default -> ActorKind.SYSTEM;
        };
        return new Actor(kind, principal.id());
    }

    // --- append --------------------------------------------------------------------------------

    private static Decision append(CommandEnvelope envelope, AppendEvents append, SessionHead head, History history, Instant now) {
        List<ProposedEvent> proposed = append.events();
        if (proposed.isEmpty()) {
            return illegal("events", "a batch needs at least one event");
        }
        var idsInBatch = new HashSet<String>();
        for (int i = 0; i < proposed.size(); i++) {
            if (!idsInBatch.add(proposed.get(i).eventId())) {
                return illegal("events[" + i + "].eventId", "appears twice in the batch");
            }
        }
        boolean creates = head == null;
        if (creates && !isFirstEvent(proposed.get(0).payload())) {
            return notFound();
        }
        // made for an erased session of this id (an answer of Tether's services still on its way when a session was made
        // again under the id, whose seqs and call ids repeat): not for this one, which it would authorize or end calls of
        if (!creates && append.sessionStartedAt() != null && head.startedAt() != null
                && append.sessionStartedAt().toEpochMilli() != head.startedAt().toEpochMilli()) {
            return new Rejected(Rejection.NOT_FOUND, "the append was made for the session of this id that started at "
                    + append.sessionStartedAt() + ", which was erased; this one started at " + head.startedAt(), null);
        }

        // re-sent events keep their original seqs and are not appended again
        var known = new ArrayList<OptionalLong>();
        for (ProposedEvent e : proposed) {
            known.add(creates ? OptionalLong.empty() : history.seqOf(e.eventId()));
        }
        if (known.stream().allMatch(OptionalLong::isPresent)) {
            var appended = new ArrayList<Appended>();
            for (int i = 0; i < proposed.size(); i++) {
                appended.add(new Appended(proposed.get(i).eventId(), known.get(i).getAsLong(), true, proposed.get(i).type()));
            }
            return new Accepted(List.of(), appended, head, null, List.of());
        }

        // fencing first: a worker that lost the session must learn that, not that it should re-read
        if (!creates && append.epoch() != null && append.epoch() != head.epoch()) {
            return new Rejected(Rejection.STALE_EPOCH, staleEpoch(append.epoch(), head.epoch()), null);
        }
        if (!creates && head.closed()) {
            return new Rejected(Rejection.SESSION_CLOSED, "the session is closed; nothing may be appended", null);
        }
        long lastSeq = creates ? 0 : head.lastSeq();
        if (append.expectedSeq() != null && append.expectedSeq() != lastSeq) {
            return new Rejected(Rejection.SEQ_CONFLICT, "expectedSeq " + append.expectedSeq() + " but the session's last seq is "
                    + lastSeq, null);
        }

        SessionHead h = head;
        var events = new ArrayList<Event>();
        var appended = new ArrayList<Appended>();
        var callsInBatch = new HashSet<String>();
        var followUps = new ArrayList<FollowUp>();
        for (int i = 0; i < proposed.size(); i++) {
            ProposedEvent p = proposed.get(i);
            if (known.get(i).isPresent()) {
                appended.add(new Appended(p.eventId(), known.get(i).getAsLong(), true, p.type()));
                continue;
            }
            String field = "events[" + i + "]";
            if (h != null && h.closed()) {
                return new Rejected(Rejection.SESSION_CLOSED, field + " comes after session_closed in the same batch", field);
            }
            Rejected refused = check(p, i, h, envelope.principal(), append.epoch(), history, callsInBatch);
            if (refused != null) {
                return refused;
            }
            long seq = (h == null ? 0 : h.lastSeq()) + 1;
            String version = h == null ? pinnedVersion(p.payload()) : h.harnessVersion();
            // attributed to the authenticated caller, whatever the proposal says
            var event = new Event(p.eventId(), envelope.sessionId(), envelope.tenantId(), seq, now,
                    actorFor(p.type(), envelope.principal()), version, p.payload());
            h = evolve(h, event);
            events.add(event);
            appended.add(new Appended(p.eventId(), seq, false, p.type()));
            if (p.payload() instanceof SessionClosed closed && h.parentSessionId() != null) {
                followUps.add(notifyParent(h, closed));
            }
        }
        return new Accepted(events, appended, h, null, followUps);
    }

    /** The events a session may start with: a new session, or a fork of another one. */
    private static String pinnedVersion(EventPayload first) {
        return first instanceof SessionStarted s ? s.harnessVersion() : ((SessionForked) first).harnessVersion();
    }

    private static boolean isFirstEvent(EventPayload payload) {
        return payload instanceof SessionStarted || payload instanceof SessionForked;
    }

    /**
     * Why event {@code i} may not be appended to a session with head {@code h}, or null if it may: first what holds for
     * every event (a type this version knows and clients may write, and a session that has started, unless the event
     * starts it), then the rule of its type: who may write it, and in which state of its call or session.
     */
    private static Rejected check(ProposedEvent p, int i, SessionHead h, TetherPrincipal principal, Long epoch, History history,
                                  Set<String> callsInBatch) {
        String field = "events[" + i + "]";
        String type = p.type();
        EventPayload payload = p.payload();
        if (payload instanceof UnknownEvent) {
            return illegal(field + ".type", "unknown event type '" + type + "'");
        }
        if (WRITTEN_BY_TETHER.contains(type) && !(payload instanceof SubagentResult && principal.has(Role.SERVICE))) {
            return illegal(field + ".type", "'" + type + "' events are written by Tether itself, not by clients");
        }
        if (isFirstEvent(payload)) {
            return start(field, payload, h, principal);
        }
        if (h == null) {
            return illegal(field + ".type", "a session starts with session_started");
        }
        if (payload instanceof ApprovalGranted g) {
            return grant(field, g, h, principal);
        }
        if (payload instanceof ApprovalDenied d) {
            return denial(field, d, h, principal);
        }
        if (payload instanceof ToolOutcomeResolved r) {
            return principal.has(Role.APPROVER) && !ownHarnessAttempt(r, h, principal) ? resolution(field, r, h, principal)
                    : harnessResolution(field, r, h, principal, epoch);
        }
        if (payload instanceof ApprovalRequested r) {
            return approvalRequest(field, r, h, principal);
        }
        if (payload instanceof ToolCallAuthorized a) {
            return authorization(field, a, h, principal);
        }
        // the rest is the session's own record, written by its agent (or by Tether's services on its behalf)
        if (!principal.hasAny(Role.AGENT, Role.ADMIN, Role.SERVICE)) {
            return illegal(field + ".type", "the caller's role may not write '" + type + "'");
        }
        if (payload instanceof AssistantMessage m) {
            return turn(field, m, h, history, callsInBatch);
        }
        if (payload instanceof ToolResult r) {
            return toolResult(field, r, h, principal, epoch);
        }
        if (payload instanceof ToolCallStarted t) {
            return callStart(field, t, h, principal);
        }
        if (payload instanceof ContextCompacted c) {
            return compaction(field, c, h);
        }
        if (payload instanceof FrameworkState) {
            // the framework's own record: its agent writes it; no service has any to write
            return principal.has(Role.SERVICE) ? illegal(field + ".type", "'" + FrameworkState.TYPE + "' is written by clients, not by"
                    + " Tether's services") : null;
        }
        if (payload instanceof SubagentResult r) {
            return subagentResult(r, h);
        }
        if (payload instanceof UserMessage || payload instanceof TurnInterrupted || payload instanceof PlanUpdated
                || payload instanceof StepCompleted || payload instanceof SessionClosed) {
            return null; // nothing to check beyond the caller's role
        }
        throw new IllegalStateException("no append rule for event type " + type); // session_claimed etc. are refused above
    }

    /**
     * subagent_result (the sequencer's own, for a child that closed): only for the session of the parent's id the child was
     * started under. An id is free again once its session is erased, and a later session made under it is another one; a
     * result of a child that did not record its parent's start, or for a head that did not keep its own, is taken as
     * before they were recorded.
     */
    private static Rejected subagentResult(SubagentResult r, SessionHead h) {
        if (r.parentStartedAt() != null && h.startedAt() != null && !r.parentStartedAt().equals(h.startedAt())) {
            return new Rejected(Rejection.NOT_FOUND, "subagent " + r.childSessionId() + " was started under a session of this id that"
                    + " started at " + r.parentStartedAt() + " and was erased; this one started at " + h.startedAt(), null);
        }
        return null;
    }

    /**
     * session_started, session_forked: an agent's, on no session yet; a session_started with an objective, which every
     * model context of the session is pinned to (as {@code POST /v1/sessions} requires one).
     */
    private static Rejected start(String field, EventPayload payload, SessionHead h, TetherPrincipal principal) {
        if (h != null) {
            return illegal(field + ".type", "the session has started already");
        }
        if (!principal.hasAny(Role.AGENT, Role.ADMIN, Role.SERVICE)) {
            return forbidden(field, "only an agent may start a session");
        }
        if (payload instanceof SessionStarted s && s.objective().isBlank()) {
            return illegal(field + ".objective", "must not be blank: every model context of the session is pinned to it");
        }
        return null;
    }

    /**
     * approval_granted: an approver's, in its own name, on a call whose approval is pending; a session-scope grant for that
     * call's tool, never another (a standing grant of a tool no call of which was shown).
     */
    private static Rejected grant(String field, ApprovalGranted g, SessionHead h, TetherPrincipal principal) {
        if (!principal.has(Role.APPROVER)) {
            return illegal(field + ".type", "only an approver may write '" + ApprovalGranted.TYPE + "'");
        }
        Rejected pending = decisionOnPendingCall(field, g.callId(), g.approver(), h, principal);
        if (pending != null) {
            return pending;
        }
        SessionHead.OpenCall call = h.openCalls().get(g.callId());
        if (call.askedBy(principal.id())) {
            return selfDecision(field, g.callId(), call, "grant");
        }
        String tool = call.tool();
        if (g.scope() == ApprovalScope.SESSION && g.tool() != null && !g.tool().equals(tool)) {
            return illegal(field + ".tool", "a grant of call '" + g.callId() + "' covers its tool '" + tool + "', not '" + g.tool() + "'");
        }
        return null;
    }

    /**
     * approval_denied: an approver's, or the approval-service's in its own name (an approval nobody decided in time,
     * the only denial that says {@code expired}), in the writer's name, on a call whose approval is pending. The
     * approval-service may deny, never grant.
     */
    private static Rejected denial(String field, ApprovalDenied d, SessionHead h, TetherPrincipal principal) {
        boolean service = principal.has(Role.SERVICE);
        if (!principal.has(Role.APPROVER) && !service) {
            return illegal(field + ".type", "only an approver may write '" + ApprovalDenied.TYPE + "'");
        }
        if (Boolean.TRUE.equals(d.expired()) && !service) {
            return illegal(field + ".expired", "is set only by the approval-service, when no approver decided in time");
        }
        return decisionOnPendingCall(field, d.callId(), d.approver(), h, principal);
    }

    private static Rejected decisionOnPendingCall(String field, String callId, String approver, SessionHead h,
                                                  TetherPrincipal principal) {
        if (!approver.equals(principal.id())) {
            return notTheCaller(field);
        }
        SessionHead.OpenCall call = h.openCalls().get(callId);
        if (call == null || call.approval() != SessionHead.Approval.REQUESTED) {
            return illegal(field + ".callId", "no approval is pending for call '" + callId + "'");
        }
        return null;
    }

    /** tool_outcome_resolved: an approver's, in its own name, on a call whose outcome is unknown. */
    private static Rejected resolution(String field, ToolOutcomeResolved r, SessionHead h, TetherPrincipal principal) {
        if (!principal.has(Role.APPROVER)) {
            return illegal(field + ".type", "only an approver may write '" + ToolOutcomeResolved.TYPE + "'");
        }
        if (!r.approver().equals(principal.id())) {
            return notTheCaller(field);
        }
        SessionHead.OpenCall call = h.openCalls().get(r.callId());
        if (call == null || !call.outcomeUnknown()) {
            return illegal(field + ".callId", "call '" + r.callId() + "' has no unknown outcome to resolve");
        }
        if (r.resolution() != OutcomeResolution.ABANDON && call.askedBy(principal.id())) {
            return selfDecision(field, r.callId(), call, r.resolution() == OutcomeResolution.RETRY ? "retry" : "mark done");
        }
        return null;
    }

    /**
     * Nobody decides to run their own call (docs/ARCHITECTURE.md §7): the principal that asked for it may deny it or abandon
     * its unknown outcome, which end it without running it, but not grant it, mark it done or retry it, whatever its roles.
     */
    private static Rejected selfDecision(String field, String callId, SessionHead.OpenCall call, String decision) {
        return forbidden(field + ".approver", "the caller asked for call '" + callId + "' itself (the assistant_message at seq "
                + call.requestSeq() + "), so it may not " + decision + " it; another approver must decide");
    }

    /**
     * Whether {@code r} is a harness reconciling its own harness-run call (an attempt started, no result yet): the harness's
     * rule, even when its principal is an approver too, since an approver resolves only an unknown outcome.
     */
    private static boolean ownHarnessAttempt(ToolOutcomeResolved r, SessionHead h, TetherPrincipal principal) {
        SessionHead.OpenCall call = h.openCalls().get(r.callId());
        return call != null && call.runBy() == CallRunner.HARNESS && call.running() && principal.hasAny(Role.AGENT, Role.ADMIN);
    }

    private static Rejected notTheCaller(String field) {
        return illegal(field + ".approver", "must be the authenticated approver");
    }

    /** approval_requested: the approval-service's, on a call nobody has decided or authorized yet. */
    private static Rejected approvalRequest(String field, ApprovalRequested r, SessionHead h, TetherPrincipal principal) {
        if (!principal.has(Role.SERVICE)) {
            return illegal(field + ".type", "'approval_requested' is written by the approval-service");
        }
        SessionHead.OpenCall call = h.openCalls().get(r.callId());
        if (call == null || call.authorized() || call.outcomeUnknown() || call.approval() != SessionHead.Approval.NONE) {
            return illegal(field + ".callId", "call '" + r.callId() + "' is not waiting for a decision");
        }
        if (!call.tool().equals(r.tool())) {
            // what an approver is shown must be the call that runs if granted
            return illegal(field + ".tool", "call '" + r.callId() + "' is a '" + call.tool() + "', not a '" + r.tool() + "'");
        }
        return null;
    }

    /**
     * tool_call_authorized: the approval-service's, on an open call that is not gated, or gated and granted, and whose
     * turn was not interrupted before it.
     */
    private static Rejected authorization(String field, ToolCallAuthorized a, SessionHead h, TetherPrincipal principal) {
        if (!principal.has(Role.SERVICE)) {
            return illegal(field + ".type", "'tool_call_authorized' is written by the approval-service");
        }
        SessionHead.OpenCall call = h.openCalls().get(a.callId());
        if (call == null || call.authorized() || call.outcomeUnknown()) {
            return illegal(field + ".callId", "call '" + a.callId() + "' is not waiting for authorization");
        }
        if (call.approval() == SessionHead.Approval.REQUESTED || call.approval() == SessionHead.Approval.DENIED) {
            return illegal(field + ".callId", "call '" + a.callId() + "' is gated and has no grant");
        }
        if (h.interrupted(call)) {
            // the second line of defence (docs/ARCHITECTURE.md §6): the approval-service answers such a call CANCELLED
            return illegal(field + ".callId", "call '" + a.callId() + "' was asked for at seq " + call.requestSeq()
                    + " and its turn was interrupted at seq " + h.lastInterruptSeq() + ": it must not run");
        }
        return null;
    }

    /** assistant_message: call ids never used before in the session (nor twice in the batch), within the token budget. */
    private static Rejected turn(String field, AssistantMessage m, SessionHead h, History history, Set<String> callsInBatch) {
        if (h.openCalls().size() + m.toolCalls().size() > MAX_OPEN_CALLS) {
            return illegal(field + ".toolCalls", "the session has " + h.openCalls().size() + " open tool calls; at most "
                    + MAX_OPEN_CALLS + " may be open at once");
        }
        for (int c = 0; c < m.toolCalls().size(); c++) {
            String callId = m.toolCalls().get(c).callId();
            if (callId.length() > MAX_CALL_ID) {
                return illegal(field + ".toolCalls[" + c + "].callId", "must be at most " + MAX_CALL_ID + " characters");
            }
            if (m.toolCalls().get(c).tool().length() > MAX_TOOL_NAME) {
                return illegal(field + ".toolCalls[" + c + "].tool", "must be at most " + MAX_TOOL_NAME + " characters");
            }
            if (h.openCalls().containsKey(callId) || history.knownCall(callId) || !callsInBatch.add(callId)) {
                return illegal(field + ".toolCalls[" + c + "].callId", "call '" + callId + "' was used before in this session");
            }
        }
        String tooLarge = m.usage().tooLarge();
        if (tooLarge != null) {
            return illegal(field + ".usage", tooLarge);
        }
        if (h.tokenBudget() != null && h.used().plus(m.usage()).total() > h.tokenBudget()) {
            return new Rejected(Rejection.BUDGET_EXCEEDED, "the session used " + h.used().total() + " of its "
                    + h.tokenBudget() + " tokens; this turn needs " + m.usage().total() + " more", field + ".usage");
        }
        return null;
    }

    /**
     * tool_result: for an open call whose outcome is not already unknown (an approver resolves that one). A harness-run
     * call's result is its harness's (docs/ARCHITECTURE.md §6, "Harness-run tools"): see {@link #harnessResult}.
     */
    private static Rejected toolResult(String field, ToolResult r, SessionHead h, TetherPrincipal principal, Long epoch) {
        SessionHead.OpenCall call = h.openCalls().get(r.callId());
        if (call == null) {
            return illegal(field + ".callId", "call '" + r.callId() + "' is not an open tool call (unknown, or already finished)");
        }
        if (call.outcomeUnknown()) {
            return illegal(field + ".callId", "call '" + r.callId() + "' has an unknown outcome; an approver resolves it");
        }
        if (!call.runBy().harness() && r.status() == ToolStatus.UNKNOWN && !call.authorized()) {
            // never authorized, so never run: an UNKNOWN would make it an item whose RETRY authorizes it without a grant
            return illegal(field + ".callId", "call '" + r.callId() + "' was never authorized, so it never ran: its outcome"
                    + " cannot be unknown");
        }
        return call.runBy().harness() ? harnessResult(field, r, call, h, principal, epoch) : null;
    }

    /**
     * The result of a harness-run call. From a service (Tether's own): only the approval-service's answers, an ERROR for a
     * call never authorized or a CANCELLED for one not started, so the tool-executor is never the writer of one. From its
     * harness: in an append that carries the worker's epoch (checked against the session's before this), with the call's
     * key, and for a HARNESS call only once an attempt started (a RECORDED call reports its result without a start).
     */
    private static Rejected harnessResult(String field, ToolResult r, SessionHead.OpenCall call, SessionHead h,
                                          TetherPrincipal principal, Long epoch) {
        if (principal.has(Role.SERVICE)) {
            boolean approvalsAnswer = (r.status() == ToolStatus.ERROR && !call.authorized() && !call.running())
                    || (r.status() == ToolStatus.CANCELLED && !call.running());
            return approvalsAnswer ? null : illegal(field + ".callId", "call '" + r.callId() + "' is run by the session's harness ("
                    + call.runBy() + "): its " + r.status() + " result is the harness's to write, never the tool-executor's");
        }
        if (epoch == null) {
            return illegal(field, "the result of harness-run call '" + r.callId() + "' must come in an append that carries the"
                    + " worker's epoch, so a fenced worker cannot write it");
        }
        if (call.runBy() == CallRunner.HARNESS && !call.running()) {
            return illegal(field + ".callId", "harness-run call '" + r.callId() + "' was never started"
                    + (call.attempts() > 0 ? " again after its RETRY" : "") + ": append tool_call_started first");
        }
        String key = call.key(h.sessionId(), r.callId());
        if (!r.idempotencyKey().equals(key)) {
            return illegal(field + ".idempotencyKey", "must be the call's key '" + key + "'");
        }
        return null;
    }

    /**
     * tool_call_started: the harness's, for a HARNESS call that is authorized, whose turn was not interrupted, whose latest
     * attempt has a result (a start without one is an unknown outcome: it is reconciled or resolved, never started again),
     * with the call's key, the next attempt and the session's epoch.
     */
    private static Rejected callStart(String field, ToolCallStarted t, SessionHead h, TetherPrincipal principal) {
        if (principal.has(Role.SERVICE) && !principal.hasAny(Role.AGENT, Role.ADMIN)) {
            return illegal(field + ".type", "'" + ToolCallStarted.TYPE + "' is written by the session's harness, not by a service");
        }
        SessionHead.OpenCall call = h.openCalls().get(t.callId());
        if (call == null) {
            return illegal(field + ".callId", "call '" + t.callId() + "' is not an open tool call (unknown, or already finished)");
        }
        if (call.runBy() == CallRunner.EXECUTOR) {
            return illegal(field + ".callId", "call '" + t.callId() + "' (" + call.tool() + ") is run by the tool-executor, not by"
                    + " the harness: the session did not declare '" + call.tool() + "' in harnessTools");
        }
        if (call.runBy() == CallRunner.RECORDED) {
            return illegal(field + ".callId", "call '" + t.callId() + "' (" + call.tool() + ") is recorded-only: report its"
                    + " tool_result without a start");
        }
        if (t.epoch() != h.epoch()) {
            return new Rejected(Rejection.STALE_EPOCH, staleEpoch(t.epoch(), h.epoch()), field + ".epoch");
        }
        if (call.running()) {
            return illegal(field + ".callId", "attempt " + call.attempts() + " of call '" + t.callId() + "' started and has no"
                    + " result: its outcome is unknown. Reconcile it by its key (a tool_result, or tool_outcome_resolved RETRY"
                    + " if it had no effect), or report tool_result UNKNOWN for a person to decide; never start it again");
        }
        if (call.outcomeUnknown()) {
            return illegal(field + ".callId", "call '" + t.callId() + "' has an unknown outcome; an approver resolves it");
        }
        if (!call.authorized()) {
            return illegal(field + ".callId", "call '" + t.callId() + "' is not authorized"
                    + (call.approval() == SessionHead.Approval.REQUESTED ? ": it waits for an approver" : " yet")
                    + "; wait for tool_call_authorized");
        }
        if (h.interrupted(call)) {
            return illegal(field + ".callId", "call '" + t.callId() + "' was asked for at seq " + call.requestSeq()
                    + " and its turn was interrupted at seq " + h.lastInterruptSeq() + ": it must not run");
        }
        if (t.attempt() != call.attempts() + 1) {
            return illegal(field + ".attempt", "must be " + (call.attempts() + 1) + ", the call's next attempt");
        }
        String key = call.key(h.sessionId(), t.callId());
        if (!t.idempotencyKey().equals(key)) {
            return illegal(field + ".idempotencyKey", "must be the call's key '" + key + "'");
        }
        // a head written before startedAt was recorded cannot tell the start: the key's shape is all that is checked then
        String external = h.startedAt() == null ? null : IdempotencyKey.external(key, h.startedAt());
        if (t.externalKey() != null && !(external == null ? t.externalKey().startsWith(key + "~") : t.externalKey().equals(external))) {
            return illegal(field + ".externalKey", "must be the key handed to the tool, " + (external == null ? "'" + key + "~…'"
                    : "'" + external + "'") + ": the call's key, '~' and the session's start (the occurredAt of its seq 1) in epoch milliseconds");
        }
        return null;
    }

    /**
     * tool_outcome_resolved by the session's harness rather than an approver: only RETRY, in its own name and its epoch,
     * for a HARNESS call of a tool declared {@code canReconcile} whose latest attempt started and has no result: its hook
     * proved the attempt had no effect, so the call may start once more (under a new key, as for an approver's RETRY).
     * Whatever it cannot prove it reports as tool_result UNKNOWN, for a person.
     */
    private static Rejected harnessResolution(String field, ToolOutcomeResolved r, SessionHead h, TetherPrincipal principal,
                                              Long epoch) {
        SessionHead.OpenCall call = h.openCalls().get(r.callId());
        if (!principal.hasAny(Role.AGENT, Role.ADMIN) || call == null || call.runBy() != CallRunner.HARNESS) {
            return illegal(field + ".type", "only an approver may write '" + ToolOutcomeResolved.TYPE + "' (a harness only for"
                    + " its own harness-run call)");
        }
        if (!r.approver().equals(principal.id())) {
            return illegal(field + ".approver", "must be the authenticated caller");
        }
        HarnessTool tool = HarnessTool.find(h.harnessTools(), call.tool());
        if (tool == null || !call.running()) {
            return illegal(field + ".callId", "call '" + r.callId() + "' is not a harness-run call with a started attempt"
                    + " and no result; only an approver resolves other calls");
        }
        if (!tool.canReconcile()) {
            return illegal(field + ".callId", "tool '" + call.tool() + "' was not declared canReconcile: report tool_result"
                    + " UNKNOWN for a person to decide");
        }
        if (r.resolution() != OutcomeResolution.RETRY) {
            return illegal(field + ".resolution", "a harness resolves its own call only with RETRY (its attempt had no effect);"
                    + " a result it found is a tool_result, and only an approver marks a call done or abandons it");
        }
        if (epoch == null) {
            return illegal(field, "a harness's resolution must come in an append that carries the worker's epoch");
        }
        return null;
    }

    /** context_compacted: through a seq the session has, summarizing events at or before it. */
    private static Rejected compaction(String field, ContextCompacted c, SessionHead h) {
        if (c.throughSeq() > h.lastSeq()) {
            return illegal(field + ".throughSeq", "is after the session's last seq " + h.lastSeq());
        }
        for (int s = 0; s < c.summarySourceSeqs().size(); s++) {
            long source = c.summarySourceSeqs().get(s);
            if (source < 1 || source > c.throughSeq()) {
                return illegal(field + ".summarySourceSeqs[" + s + "]", "must be an event at or before throughSeq");
            }
        }
        return null;
    }

    /** Why {@code given} is not the session's epoch: a worker's older claim, or an epoch no claim of it has given. */
    private static String staleEpoch(long given, long current) {
        return "epoch " + given + " is not the session's current epoch " + current
                + (given < current ? ": another worker claimed it" : ": no claim of the session has given it yet");
    }

    /**
     * The parent's {@code subagent_result}. Its eventId names the child session, not only its id: a child made again
     * under an erased child's id (a client may choose a subagent's id) reports a result of its own, which the parent would
     * take for a duplicate of the first child's under an id derived from the child's id alone (as a child whose head did
     * not keep its start still reports).
     */
    private static FollowUp notifyParent(SessionHead child, SessionClosed closed) {
        String eventId = child.startedAt() == null ? DerivedIds.of(child.sessionId(), "subagent_result")
                : DerivedIds.ofParts(child.sessionId(), "subagent_result", Long.toString(child.startedAt().toEpochMilli()));
        var event = new ProposedEvent(eventId, new Actor(ActorKind.SYSTEM, "session-service"),
                new SubagentResult(child.sessionId(), closed.outcome(), child.parentStartedAt()));
        return new Decision.NotifyParent(child.parentSessionId(), child.tenantId(), event);
    }

    // --- claim, migrate, erase -------------------------------------------------------------------

    private static Decision claim(CommandEnvelope envelope, ClaimSession claim, SessionHead head, History history, Instant now) {
        if (!envelope.principal().hasAny(Role.AGENT, Role.ADMIN)) {
            return forbidden(null, "only an agent may claim a session");
        }
        if (claim.workerId() == null || claim.workerId().isBlank()) {
            return illegal("workerId", "must not be blank"); // else session_claimed's constructor throws on the stream thread
        }
        String claimedId = DerivedIds.of(envelope.commandId(), "session_claimed");
        if (claimedId.equals(head.lastClaimEventId())) {
            if (!claim.workerId().equals(head.workerId())) {
                // the latest claim's request id, sent by another worker: answered as that claim, it would hand this worker
                // an epoch it does not hold, which fences nobody
                return illegal("requestId", "is the request id of the session's latest claim, by another worker; a claim"
                        + " needs a request id of its own");
            }
            // the same claim again (a retry) and still the latest: nothing new, the original outcome
            return new Accepted(List.of(), List.of(), head, head.lastClaimResume(), List.of());
        }
        if (history.seqOf(claimedId).isPresent()) {
            return new Rejected(Rejection.STALE_EPOCH, "this claim was superseded by a later one; the session's epoch is "
                    + head.epoch(), null);
        }
        if (head.closed()) {
            return new Rejected(Rejection.SESSION_CLOSED, "the session is closed; there is nothing to claim", null);
        }
        if (!head.harnessVersion().equals(claim.harnessVersion())) {
            return new Rejected(Rejection.VERSION_PINNED, "the session is pinned to harness version " + head.harnessVersion()
                    + ", the worker runs " + claim.harnessVersion() + "; an operator may migrate it", null);
        }
        var actor = new Actor(ActorKind.SYSTEM, envelope.principal().id());
        var events = new ArrayList<Event>();
        SessionHead h = head;
        long epoch = head.epoch() + 1;
        events.add(new Event(claimedId, head.sessionId(), head.tenantId(),
                h.lastSeq() + 1, now, actor, h.harnessVersion(), new SessionClaimed(claim.workerId(), epoch, claim.harnessVersion())));
        h = evolve(h, events.get(0));
        ResumeReason reason = null;
        if (head.epoch() > 0) {
            // another worker held the session and never closed it: it crashed, or a deploy moves the session
            reason = claim.rollout() ? ResumeReason.DEPLOY : ResumeReason.CRASH;
            var resumed = new Event(DerivedIds.of(envelope.commandId(), "session_resumed"), head.sessionId(), head.tenantId(),
                    h.lastSeq() + 1, now, actor, h.harnessVersion(), new SessionResumed(reason, head.lastSeq(), reconciliation(head)));
            h = evolve(h, resumed);
            events.add(resumed);
        }
        return new Accepted(events, appendedOf(events), h, reason, List.of());
    }

    /** What a resuming worker must know of the effects in flight: the calls still open. */
    static String reconciliation(SessionHead head) {
        if (head.openCalls().isEmpty()) {
            return "no tool call in flight";
        }
        return head.openCalls().entrySet().stream()
                .map(e -> e.getKey() + " (" + e.getValue().tool() + ", "
                        + (e.getValue().runBy().harness() ? "run by the harness" + (e.getValue().runBy() == CallRunner.RECORDED
                        ? " (recorded-only)" : "") + ", " : "")
                        + (e.getValue().outcomeUnknown() ? "outcome reported unknown, awaiting a human decision"
                        : e.getValue().running() ? "attempt " + e.getValue().attempts() + " started with no result: outcome unknown,"
                        + " reconcile it by key " + e.getValue().key(head.sessionId(), e.getKey())
                        // the sequencer refuses its start (callStart), and the approval-service answers it CANCELLED
                        : e.getValue().authorized() && e.getValue().runBy() == CallRunner.HARNESS && head.interrupted(e.getValue())
                        ? "authorized, not started, its turn interrupted at seq " + head.lastInterruptSeq() + ": it must not run"
                        : e.getValue().authorized() && e.getValue().runBy() == CallRunner.HARNESS
                        ? "authorized, not started: safe to run with key " + e.getValue().key(head.sessionId(), e.getKey())
                        : e.getValue().authorized() ? "authorized, outcome unknown"
                        : e.getValue().approval() == SessionHead.Approval.REQUESTED ? "awaiting approval"
                        : e.getValue().approval() == SessionHead.Approval.DENIED ? "denied" : "requested") + ")")
                .collect(Collectors.joining("; ", "open tool calls: ", ""));
    }

    private static Decision migrate(CommandEnvelope envelope, MigrateSession migrate, SessionHead head, History history, Instant now) {
        if (!envelope.principal().hasAny(Role.OPERATOR, Role.ADMIN)) {
            return forbidden(null, "only an operator may migrate a session");
        }
        if (migrate.toVersion() == null || migrate.toVersion().isBlank()) {
            return illegal("toVersion", "must not be blank"); // else session_migrated's constructor throws on the stream thread
        }
        String eventId = DerivedIds.of(envelope.commandId(), "session_migrated");
        OptionalLong seen = history.seqOf(eventId);
        if (seen.isPresent()) {
            return new Accepted(List.of(), List.of(new Appended(eventId, seen.getAsLong(), true, SessionMigrated.TYPE)), head, null,
                    List.of());
        }
        if (head.closed()) {
            return new Rejected(Rejection.SESSION_CLOSED, "the session is closed", null);
        }
        if (head.harnessVersion().equals(migrate.toVersion())) {
            return new Accepted(List.of(), List.of(), head, null, List.of());
        }
        var event = new Event(eventId, head.sessionId(), head.tenantId(), head.lastSeq() + 1, now,
                new Actor(ActorKind.SYSTEM, envelope.principal().id()), head.harnessVersion(),
                new SessionMigrated(head.harnessVersion(), migrate.toVersion()));
        return new Accepted(List.of(event), appendedOf(List.of(event)), evolve(head, event), null, List.of());
    }

    private static Decision erase(CommandEnvelope envelope, EraseSession erase, SessionHead head, Instant now) {
        TetherPrincipal principal = envelope.principal();
        if (!principal.has(Role.ADMIN) && !principal.id().equals(head.owner())) {
            return forbidden(null, "only the session's owner or an admin may erase it");
        }
        // a writer's erasure, of the session it holds: not a later one under its id, not after another worker claimed it
        if (erase.sessionStartedAt() != null && head.startedAt() != null
                && erase.sessionStartedAt().toEpochMilli() != head.startedAt().toEpochMilli()) {
            return new Rejected(Rejection.NOT_FOUND, "the erasure was asked for the session of this id that started at "
                    + erase.sessionStartedAt() + ", which was erased; this one started at " + head.startedAt() + ": nothing was erased", null);
        }
        if (erase.epoch() != null && erase.epoch() != head.epoch()) {
            return new Rejected(Rejection.STALE_EPOCH, staleEpoch(erase.epoch(), head.epoch()) + ": nothing was erased", null);
        }
        return new Accepted(List.of(), List.of(), null, null,
                List.of(new Decision.EraseLog(head.sessionId(), head.tenantId(), head.lastSeq(), now)));
    }

    // --- helpers ---------------------------------------------------------------------------------

    private static List<Appended> appendedOf(List<Event> events) {
        return events.stream().map(e -> new Appended(e.eventId(), e.seq(), false, e.type())).toList();
    }

    private static Rejected notFound() {
        return new Rejected(Rejection.NOT_FOUND, "session not found", null);
    }

    private static Rejected illegal(String field, String message) {
        return new Rejected(Rejection.ILLEGAL_EVENT, message, field);
    }

    private static Rejected forbidden(String field, String message) {
        return new Rejected(Rejection.FORBIDDEN, message, field);
    }
}
