package dev.tether.session.domain;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tether.core.auth.Role;
import dev.tether.core.auth.TetherPrincipal;
import dev.tether.core.event.ApprovalDenied;
import dev.tether.core.event.ApprovalGranted;
import dev.tether.core.event.ApprovalRequested;
import dev.tether.core.event.ApprovalScope;
import dev.tether.core.event.AssistantMessage;
import dev.tether.core.event.AuthorizationBasis;
import dev.tether.core.event.ContextCompacted;
import dev.tether.core.event.Event;
import dev.tether.core.event.EventPayload;
import dev.tether.core.event.OutcomeResolution;
import dev.tether.core.event.PlanItem;
import dev.tether.core.event.PlanItemStatus;
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
import dev.tether.core.event.ToolMode;
import dev.tether.core.event.ToolOutcomeResolved;
import dev.tether.core.event.ToolResult;
import dev.tether.core.event.ToolStatus;
import dev.tether.core.event.TurnInterrupted;
import dev.tether.core.event.UnknownEvent;
import dev.tether.core.event.UserMessage;
import dev.tether.session.domain.Decision.Accepted;
import dev.tether.session.domain.Decision.Rejected;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;

/**
 * Test fixture for {@link Sequencer}: fixed principals and instants, payload factories, a fake
 * {@link Sequencer.History} fed from accepted events (as the real stores are), and {@link World},
 * one session's stores, which applies decisions the way the processor does.
 */
final class Given {

    static final Instant NOW = Instant.parse("2026-03-01T10:00:00Z");
    static final Instant LATER = Instant.parse("2026-03-01T10:05:00Z");

    static final String TENANT = "tenant-a";
    static final String OTHER_TENANT = "tenant-b";
    static final String SESSION = "session-1";
    static final String PARENT_SESSION = "parent-session-1";

    static final String MODEL = "model-x-2026";
    static final String V1 = "harness-1.0";
    static final String V2 = "harness-2.0";
    static final long BUDGET = 1_000;

    static final TetherPrincipal AGENT = principal("agent-1", Role.AGENT);
    static final TetherPrincipal OTHER_AGENT = principal("agent-2", Role.AGENT);
    static final TetherPrincipal APPROVER = principal("alice", Role.APPROVER);
    static final TetherPrincipal OTHER_APPROVER = principal("bob", Role.APPROVER);
    static final TetherPrincipal OPERATOR = principal("op-1", Role.OPERATOR);
    static final TetherPrincipal ADMIN = principal("admin-1", Role.ADMIN);
    static final TetherPrincipal SERVICE = TetherPrincipal.service("approval-service", TENANT);
    static final TetherPrincipal FOREIGN_AGENT = new TetherPrincipal("agent-9", OTHER_TENANT, Set.of(Role.AGENT));
    static final TetherPrincipal FOREIGN_ADMIN = new TetherPrincipal("admin-9", OTHER_TENANT, Set.of(Role.ADMIN));
    static final TetherPrincipal FOREIGN_OPERATOR = new TetherPrincipal("op-9", OTHER_TENANT, Set.of(Role.OPERATOR));

    private Given() {}

    static TetherPrincipal principal(String id, Role... roles) {
        return new TetherPrincipal(id, TENANT, roles.length == 0 ? Set.of() : EnumSet.copyOf(Arrays.asList(roles)));
    }

    // --- payloads ----------------------------------------------------------------------------------

    static SessionStarted started() {
        return started(BUDGET, null);
    }

    static SessionStarted started(Long tokenBudget, String parentSessionId) {
        return started(tokenBudget, parentSessionId, null);
    }

    /** A subagent's start, which records when the parent it was started under started. */
    static SessionStarted started(Long tokenBudget, String parentSessionId, Instant parentStartedAt) {
        return new SessionStarted("fix the failing build", "You are a careful coding agent.", MODEL, V1, ToolMode.WRITE,
                List.of("no network"), tokenBudget, parentSessionId, List.of(), parentStartedAt);
    }

    static UserMessage user(String text) {
        return new UserMessage(text, null);
    }

    static AssistantMessage assistant(String text) {
        return new AssistantMessage(text, null, List.of(), TokenUsage.NONE);
    }

    static AssistantMessage assistant(String text, long inputTokens, long outputTokens, ToolCall... calls) {
        return new AssistantMessage(text, null, List.of(calls), new TokenUsage(inputTokens, outputTokens));
    }

    static AssistantMessage asking(ToolCall... calls) {
        return assistant("let me use a tool", 0, 0, calls);
    }

    static ToolCall call(String callId) {
        return call(callId, "write_file");
    }

    static ToolCall call(String callId, String tool) {
        return new ToolCall(callId, tool, "{\"path\":\"src/Main.java\"}");
    }

    static ToolResult result(String callId) {
        return new ToolResult(callId, "idem-" + callId, ToolStatus.OK, "done", null);
    }

    static ToolResult unknownResult(String callId) {
        return new ToolResult(callId, "idem-" + callId, ToolStatus.UNKNOWN, "the file changed; the outcome cannot be proven", null);
    }

    static ToolOutcomeResolved resolved(String callId, OutcomeResolution resolution, String approver) {
        return new ToolOutcomeResolved(callId, resolution, approver, "checked by hand");
    }

    static SessionForked forked(long atSeq) {
        return new SessionForked(PARENT_SESSION, atSeq, "the parent's objective", "be careful", MODEL, V1, ToolMode.WRITE, List.of());
    }

    /** The approval-service's request for {@code callId}, a {@code write_file} ({@link #call(String)}). */
    static ApprovalRequested approvalRequested(String callId) {
        return approvalRequested(callId, "write_file");
    }

    /** The approval-service's request for {@code callId}, a call of {@code tool}: it names the call's tool. */
    static ApprovalRequested approvalRequested(String callId, String tool) {
        return new ApprovalRequested(callId, tool, tool + " src/Main.java", null);
    }

    static ApprovalGranted granted(String callId, String approver) {
        return new ApprovalGranted(callId, ApprovalScope.ONCE, "write_file", null, approver, "looks fine");
    }

    static ApprovalDenied denied(String callId, String approver) {
        return ApprovalDenied.byApprover(callId, ApprovalScope.ONCE, "write_file", null, approver, "no");
    }

    static ToolCallAuthorized authorizedByPolicy(String callId) {
        return new ToolCallAuthorized(callId, AuthorizationBasis.POLICY);
    }

    static ToolCallAuthorized authorizedByApproval(String callId, long approvalSeq) {
        return new ToolCallAuthorized(callId, AuthorizationBasis.approval(approvalSeq));
    }

    static ContextCompacted compacted(long throughSeq, Long... sourceSeqs) {
        return new ContextCompacted(throughSeq, "summary of the early turns", null, List.of(sourceSeqs));
    }

    static PlanUpdated plan() {
        return new PlanUpdated(List.of(new PlanItem("reproduce", PlanItemStatus.DONE), new PlanItem("fix", PlanItemStatus.IN_PROGRESS)));
    }

    static StepCompleted step(int n) {
        return new StepCompleted(n, "step " + n, true, "tests green");
    }

    static TurnInterrupted interrupted() {
        return new TurnInterrupted("I was about to", "user pressed stop");
    }

    static SessionClosed closed(String outcome) {
        return new SessionClosed(outcome);
    }

    static SubagentResult subagentResult(String childSessionId) {
        return new SubagentResult(childSessionId, "child finished");
    }

    /**
     * A valid instance of every {@link EventPayload} subtype, for the callId {@code c1}; fails for a
     * type this fixture does not know, so a new event type cannot slip past the evolve test.
     */
    static dev.tether.core.event.FrameworkState frameworkState(String key) {
        return new dev.tether.core.event.FrameworkState("langgraph", "checkpoint", key, "{\"v\":1,\"versions_seen\":{}}");
    }

    static EventPayload sampleOf(Class<?> type) {
        if (type == SessionStarted.class) {
            return started();
        } else if (type == UserMessage.class) {
            return user("hello");
        } else if (type == AssistantMessage.class) {
            return assistant("calling", 10, 5, call("c-new", "read_file"));
        } else if (type == ApprovalRequested.class) {
            return approvalRequested("c1");
        } else if (type == ApprovalGranted.class) {
            return granted("c1", APPROVER.id());
        } else if (type == ApprovalDenied.class) {
            return denied("c1", APPROVER.id());
        } else if (type == ToolCallAuthorized.class) {
            return authorizedByPolicy("c1");
        } else if (type == ToolResult.class) {
            return result("c1");
        } else if (type == TurnInterrupted.class) {
            return interrupted();
        } else if (type == ContextCompacted.class) {
            return compacted(1, 1L);
        } else if (type == PlanUpdated.class) {
            return plan();
        } else if (type == StepCompleted.class) {
            return step(1);
        } else if (type == SessionClaimed.class) {
            return new SessionClaimed("worker-9", 7, V1);
        } else if (type == SessionResumed.class) {
            return new SessionResumed(ResumeReason.MANUAL, 3, "no tool call in flight");
        } else if (type == SessionMigrated.class) {
            return new SessionMigrated(V1, V2);
        } else if (type == SessionForked.class) {
            return forked(3);
        } else if (type == SubagentResult.class) {
            return subagentResult("child-1");
        } else if (type == SessionClosed.class) {
            return closed("done");
        } else if (type == ToolOutcomeResolved.class) {
            return resolved("c1", OutcomeResolution.ABANDON, APPROVER.id());
        } else if (type == dev.tether.core.event.ToolCallStarted.class) {
            return new dev.tether.core.event.ToolCallStarted("c1", "idem-c1", 0, 1);
        } else if (type == dev.tether.core.event.FrameworkState.class) {
            return frameworkState("cp-1");
        } else if (type == UnknownEvent.class) {
            return new UnknownEvent("from_the_future");
        }
        throw new AssertionError("Given.sampleOf knows no sample for " + type.getName() + ": add one and decide how evolve folds it");
    }

    /** An event as the sequencer would have stored it, attributed to {@link #AGENT}'s kind for its type. */
    static Event event(long seq, EventPayload payload) {
        return new Event("ev-" + payload.type() + "-" + seq, SESSION, TENANT, seq, NOW, Sequencer.actorFor(payload.type(), AGENT), V1,
                payload);
    }

    /** An open call as the head holds it when {@link #AGENT} asked for it at {@code requestSeq} (the tool-executor runs it). */
    static SessionHead.OpenCall openCall(String tool, long requestSeq, SessionHead.Approval approval, boolean authorized,
                                         boolean outcomeUnknown) {
        return new SessionHead.OpenCall(tool, requestSeq, approval, authorized, outcomeUnknown,
                dev.tether.core.event.CallRunner.EXECUTOR, 0, false, 0, AGENT.id());
    }

    static Accepted accepted(Decision decision) {
        assertThat(decision).as("decision").isInstanceOf(Accepted.class);
        return (Accepted) decision;
    }

    static Rejected rejected(Decision decision) {
        assertThat(decision).as("decision").isInstanceOf(Rejected.class);
        return (Rejected) decision;
    }

    /** The head folded by {@link Sequencer#evolve} from nothing over {@code events}. */
    static SessionHead fold(List<Event> events) {
        SessionHead head = null;
        for (Event e : events) {
            head = Sequencer.evolve(head, e);
        }
        return head;
    }

    // --- history -----------------------------------------------------------------------------------

    /** The eventId and callId stores of one session, fed only from accepted events, as the processor feeds them. */
    static final class FakeHistory implements Sequencer.History {
        final Map<String, Long> seqByEventId = new HashMap<>();
        final Set<String> callIds = new HashSet<>();

        @Override
        public OptionalLong seqOf(String eventId) {
            Long seq = seqByEventId.get(eventId);
            return seq == null ? OptionalLong.empty() : OptionalLong.of(seq);
        }

        @Override
        public boolean knownCall(String callId) {
            return callIds.contains(callId);
        }

        void record(Event e) {
            seqByEventId.put(e.eventId(), e.seq());
            if (e.payload() instanceof AssistantMessage m) {
                m.toolCalls().forEach(c -> callIds.add(c.callId()));
            }
        }
    }

    // --- one session's stores ------------------------------------------------------------------------

    /**
     * The state the processor keeps for one session (head, eventIds, callIds, the log) and the way it
     * applies a decision: on Accepted it appends the events, records their ids and stores the new head.
     */
    static final class World {
        final String sessionId;
        final FakeHistory history = new FakeHistory();
        final List<Event> log = new ArrayList<>();
        SessionHead head;
        Instant now = NOW;
        private int eventIds;
        private int commandIds;

        private World(String sessionId) {
            this.sessionId = sessionId;
        }

        /** No session yet. */
        static World empty() {
            return new World(SESSION);
        }

        static World empty(String sessionId) {
            return new World(sessionId);
        }

        /** A session {@link #AGENT} started (seq 1), pinned to {@link #V1}, budget {@link #BUDGET}. */
        static World started() {
            return started(SESSION, Given.started());
        }

        static World started(String sessionId, SessionStarted payload) {
            World w = new World(sessionId);
            w.accept(w.append(AGENT, payload));
            assertThat(w.lastSeq()).isEqualTo(1);
            return w;
        }

        /** A started session claimed by {@code worker-1} (epoch 1). */
        static World claimed() {
            World w = started();
            w.accept(w.claim(AGENT, "worker-1", V1, false));
            assertThat(w.head.epoch()).isEqualTo(1);
            return w;
        }

        // envelopes

        String nextEventId() {
            return sessionId + "-ev-" + (++eventIds);
        }

        String nextCommandId() {
            return sessionId + "-cmd-" + (++commandIds);
        }

        ProposedEvent ev(TetherPrincipal by, EventPayload payload) {
            return ev(nextEventId(), by, payload);
        }

        static ProposedEvent ev(String eventId, TetherPrincipal by, EventPayload payload) {
            return new ProposedEvent(eventId, Sequencer.actorFor(payload.type(), by), payload);
        }

        CommandEnvelope append(TetherPrincipal by, EventPayload... payloads) {
            var events = new ArrayList<ProposedEvent>();
            for (EventPayload p : payloads) {
                events.add(ev(by, p));
            }
            return appendEvents(by, null, null, events.toArray(ProposedEvent[]::new));
        }

        CommandEnvelope appendEvents(TetherPrincipal by, Long expectedSeq, Long epoch, ProposedEvent... events) {
            return envelope(by, new Command.AppendEvents(List.of(events), expectedSeq, epoch));
        }

        CommandEnvelope claim(TetherPrincipal by, String workerId, String harnessVersion, boolean rollout) {
            return envelope(by, new Command.ClaimSession(workerId, harnessVersion, rollout));
        }

        CommandEnvelope migrate(TetherPrincipal by, String toVersion) {
            return envelope(by, new Command.MigrateSession(toVersion));
        }

        CommandEnvelope erase(TetherPrincipal by) {
            return envelope(by, new Command.EraseSession("user asked to be forgotten"));
        }

        /** The caller's tenant is the principal's, as the REST edge and CommandAvro set it. */
        CommandEnvelope envelope(TetherPrincipal by, Command command) {
            return new CommandEnvelope(nextCommandId(), sessionId, by.tenantId(), by, now, command);
        }

        // deciding

        /** The verdict, without applying it. */
        Decision decide(CommandEnvelope envelope) {
            return Sequencer.decide(envelope, head, history, now);
        }

        /** The verdict, applied as the processor applies it. */
        Decision apply(CommandEnvelope envelope) {
            Decision d = decide(envelope);
            if (d instanceof Accepted a) {
                for (Event e : a.events()) {
                    log.add(e);
                    history.record(e);
                }
                head = a.head();
            }
            return d;
        }

        /** Applies a command that must be accepted. */
        Accepted accept(CommandEnvelope envelope) {
            return accepted(apply(envelope));
        }

        /** Applies a command that must be rejected, and checks that nothing changed. */
        Rejected reject(CommandEnvelope envelope) {
            SessionHead before = head;
            int logSize = log.size();
            int ids = history.seqByEventId.size();
            Rejected r = rejected(apply(envelope));
            assertThat(head).as("head after a rejection").isEqualTo(before);
            assertThat(log).as("log after a rejection").hasSize(logSize);
            assertThat(history.seqByEventId).as("eventIds after a rejection").hasSize(ids);
            return r;
        }

        long lastSeq() {
            return head == null ? 0 : head.lastSeq();
        }

        List<Long> seqs() {
            return log.stream().map(Event::seq).toList();
        }
    }
}
