package dev.tether.session.domain;

import static dev.tether.session.domain.Given.ADMIN;
import static dev.tether.session.domain.Given.AGENT;
import static dev.tether.session.domain.Given.APPROVER;
import static dev.tether.session.domain.Given.FOREIGN_AGENT;
import static dev.tether.session.domain.Given.MODEL;
import static dev.tether.session.domain.Given.OPERATOR;
import static dev.tether.session.domain.Given.OTHER_AGENT;
import static dev.tether.session.domain.Given.SERVICE;
import static dev.tether.session.domain.Given.V1;
import static dev.tether.session.domain.Given.V2;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tether.avro.CommandReply;
import dev.tether.avro.SessionCommand;
import dev.tether.avro.SessionEvent;
import dev.tether.core.auth.TetherPrincipal;
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
import dev.tether.core.event.HarnessTool;
import dev.tether.core.event.OutcomeResolution;
import dev.tether.core.event.ProposedEvent;
import dev.tether.core.event.SessionClaimed;
import dev.tether.core.event.SessionForked;
import dev.tether.core.event.SessionMigrated;
import dev.tether.core.event.SessionResumed;
import dev.tether.core.event.SessionStarted;
import dev.tether.core.event.TokenUsage;
import dev.tether.core.event.ToolCall;
import dev.tether.core.event.ToolCallAuthorized;
import dev.tether.core.event.ToolCallStarted;
import dev.tether.core.event.ToolMode;
import dev.tether.core.event.ToolOutcomeResolved;
import dev.tether.core.event.ToolResult;
import dev.tether.core.event.ToolStatus;
import dev.tether.core.event.UserMessage;
import dev.tether.core.id.IdempotencyKey;
import dev.tether.kit.kafka.EventAvro;
import dev.tether.session.domain.Decision.Accepted;
import dev.tether.session.domain.Given.World;
import dev.tether.session.kafka.CommandAvro;
import dev.tether.session.kafka.SequencerStoreFormats;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;

/**
 * Random commands, in random order, from every kind of principal, against one session: the sequencer answers each with a
 * verdict and never throws, and whatever it accepts the processor can write. A command the sequencer throws on, or whose
 * events, head or reply do not encode, would stop the processing of its partition, every other session's on it too,
 * until someone removed the command from {@code session-commands}: it is retried for ever.
 *
 * <p>Each action is resolved against the session as it is when the action runs (the call's real key and seq, the
 * worker's epoch), so that many commands are accepted and the walk reaches deep states, with a random share made
 * slightly wrong (another key, epoch or seq) so that the refusals are walked too.
 */
class SequencerRandomCommandsPropertyTest {

    private static final List<String> CALL_IDS = List.of("c1", "c2", "c3", "c4");
    private static final List<String> TOOLS = List.of("write_file", "read_file", "send_email", "web_search", "log_note");
    /** A mutating harness tool that can be reconciled, one that is read-only, and one recorded only. */
    private static final List<HarnessTool> HARNESS_TOOLS = List.of(new HarnessTool("send_email", true, true, false),
            new HarnessTool("web_search", false, false, false), new HarnessTool("log_note", false, false, true));
    private static final List<TetherPrincipal> PRINCIPALS = List.of(AGENT, AGENT, AGENT, OTHER_AGENT, APPROVER, SERVICE, SERVICE,
            OPERATOR, ADMIN, FOREIGN_AGENT);

    /** What the walk does next; {@code pick}s choose among calls, principals and variants, resolved when it runs. */
    sealed interface Action {}

    /** An append of one to three events, with the worker's epoch and the expected seq right, wrong or left out. */
    record Append(List<Proposal> events, int by, int epochMode, int seqMode, boolean resend) implements Action {}

    record Claim(int worker, boolean toV2, boolean rollout, int by) implements Action {}

    record Migrate(boolean toV2, int by) implements Action {}

    record Erase(int by) implements Action {}

    /** The next step of an open call's life, by the one who takes it: authorize or ask, decide, start, report, resolve. */
    record Drive(int call, int variant) implements Action {}

    /** Time passes (a stale claim's lease, an approval's age). */
    record Wait(int minutes) implements Action {}

    /** One event of an append, by kind; {@code call} picks a callId, {@code variant} one of the kind's shapes. */
    record Proposal(int kind, int call, int variant) {}

    @Property(tries = 400, seed = "20261206")
    void everyCommandIsAnsweredWithAVerdict_andWhatIsAcceptedCanBeWritten(@ForAll("walks") List<Action> walk) {
        World w = World.started(Given.SESSION, start());
        w.accept(w.claim(AGENT, "worker-0", V1, false));
        for (Action action : walk) {
            CommandEnvelope envelope = envelopeFor(w, action);
            if (envelope == null) {
                continue;
            }
            SessionHead before = w.head;
            Decision decision = w.decide(envelope);
            assertWritable(envelope, decision, before);
            if (decision instanceof Accepted a && a.head() == null) {
                var later = w.now;
                w = World.empty(Given.SESSION); // erased: the id is free for a new session, which the walk starts
                w.now = later;
                w.accept(w.append(AGENT, start()));
                w.accept(w.claim(AGENT, "worker-0", V1, false));
            } else {
                w.apply(envelope);
                assertThat(w.head).as("the head the walk reached, folded again from its log")
                        .isEqualTo(Given.fold(w.log));
            }
        }
    }

    @Provide
    Arbitrary<List<Action>> walks() {
        // the tool lifecycle's kinds (1-8) most, Tether's own and a second start (16, 17) least
        Arbitrary<Integer> kind = Arbitraries.frequencyOf(Tuple.of(24, Arbitraries.integers().between(1, 8)),
                Tuple.of(10, Arbitraries.integers().between(9, 15)), Tuple.of(3, Arbitraries.just(0)),
                Tuple.of(1, Arbitraries.integers().between(16, 17)));
        Arbitrary<Proposal> proposal = Combinators.combine(kind,
                Arbitraries.integers().between(0, CALL_IDS.size() - 1), Arbitraries.integers().between(0, 5)).as(Proposal::new);
        Arbitrary<Integer> by = Arbitraries.integers().between(0, PRINCIPALS.size() + 9); // from PRINCIPALS.size(): the writer of its kind
        Arbitrary<Integer> mode = Arbitraries.frequency(Tuple.of(6, 0), Tuple.of(1, 1), Tuple.of(1, 2));
        Arbitrary<Action> action = Arbitraries.frequencyOf(
                Tuple.of(12, Combinators.combine(proposal.list().ofMinSize(1).ofMaxSize(3), by, mode, mode,
                        Arbitraries.of(false, false, false, true)).as(Append::new)),
                Tuple.of(8, Combinators.combine(Arbitraries.integers().between(0, CALL_IDS.size() - 1),
                        Arbitraries.integers().between(0, 5)).as(Drive::new)),
                Tuple.of(2, Combinators.combine(Arbitraries.integers().between(0, 2), Arbitraries.of(false, true),
                        Arbitraries.of(false, true), by).as(Claim::new)),
                Tuple.of(1, Combinators.combine(Arbitraries.of(false, true), by).as(Migrate::new)),
                Tuple.of(1, by.map(Erase::new)),
                Tuple.of(1, Arbitraries.integers().between(1, 120).map(Wait::new)));
        return action.list().ofMinSize(20).ofMaxSize(60);
    }

    private static SessionStarted start() {
        return new SessionStarted("send the weekly report", "You are careful.", MODEL, V1, ToolMode.WRITE, List.of(), 1_500L, null,
                HARNESS_TOOLS);
    }

    /** The command an action makes of the session as it is; null for a pause. */
    private static CommandEnvelope envelopeFor(World w, Action action) {
        if (action instanceof Wait wait) {
            w.now = w.now.plus(Duration.ofMinutes(wait.minutes()));
            return null;
        } else if (action instanceof Claim c) {
            return w.claim(PRINCIPALS.get(c.by() % PRINCIPALS.size()), "worker-" + c.worker(), c.toV2() ? V2 : V1, c.rollout());
        } else if (action instanceof Migrate m) {
            return w.migrate(PRINCIPALS.get(m.by() % PRINCIPALS.size()), m.toV2() ? V2 : V1);
        } else if (action instanceof Drive d) {
            return drive(w, d);
        } else if (action instanceof Erase e) {
            return w.erase(PRINCIPALS.get(e.by() % PRINCIPALS.size()));
        }
        return append(w, (Append) action);
    }

    private static CommandEnvelope append(World w, Append a) {
        TetherPrincipal by = a.by() < PRINCIPALS.size() ? PRINCIPALS.get(a.by()) : writerOf(w, a.events().get(0));
        long epoch = w.head == null ? 0 : w.head.epoch();
        var events = new ArrayList<ProposedEvent>();
        for (Proposal p : a.events()) {
            EventPayload payload = payload(w, p, epoch + (a.epochMode() == 2 ? 1 : 0));
            String eventId = a.resend() && events.isEmpty() && !w.log.isEmpty() ? w.log.get(w.log.size() - 1).eventId() : w.nextEventId();
            events.add(World.ev(eventId, by, payload));
        }
        Long epochCondition = switch (a.epochMode()) {
            case 0 -> w.head == null ? null : epoch;
            case 1 -> null;
            default -> epoch + 1;
        };
        Long seqCondition = switch (a.seqMode()) {
            case 0 -> null;
            case 1 -> w.lastSeq();
            default -> w.lastSeq() - 1;
        };
        return w.appendEvents(by, seqCondition, epochCondition, events.toArray(ProposedEvent[]::new));
    }

    /** The next step of the open call {@code d} picks, in an append by its writer under the worker's epoch; null if none is open. */
    private static CommandEnvelope drive(World w, Drive d) {
        if (w.head == null || w.head.openCalls().isEmpty()) {
            return null;
        }
        var ids = List.copyOf(w.head.openCalls().keySet());
        String callId = ids.get(d.call() % ids.size());
        SessionHead.OpenCall call = w.head.openCalls().get(callId);
        String key = call.key(w.sessionId, callId);
        boolean harness = call.runBy() != CallRunner.EXECUTOR;
        TetherPrincipal by;
        EventPayload next;
        if (call.outcomeUnknown()) {
            by = APPROVER;
            next = new ToolOutcomeResolved(callId, OutcomeResolution.values()[d.variant() % OutcomeResolution.values().length], "alice", "");
        } else if (call.approval() == SessionHead.Approval.REQUESTED) {
            by = APPROVER;
            next = d.variant() < 4 ? new ApprovalGranted(callId, d.variant() == 0 ? ApprovalScope.SESSION : ApprovalScope.ONCE, call.tool(),
                    null, "alice", "fine") : ApprovalDenied.byApprover(callId, ApprovalScope.ONCE, call.tool(), null, "alice", "no");
        } else if (!call.authorized()) {
            by = SERVICE;
            next = call.approval() == SessionHead.Approval.GRANTED ? new ToolCallAuthorized(callId, AuthorizationBasis.approval(grantOf(w, callId)))
                    : d.variant() < 3 ? new ToolCallAuthorized(callId, AuthorizationBasis.POLICY)
                    : new ApprovalRequested(callId, call.tool(), call.tool() + " to team@example.com", null);
        } else if (harness && call.runBy() == CallRunner.HARNESS && !call.running()) {
            by = AGENT;
            next = new ToolCallStarted(callId, key, w.head.epoch(), call.attempts() + 1, IdempotencyKey.external(key, w.head.startedAt()));
        } else {
            by = harness ? AGENT : SERVICE;
            next = new ToolResult(callId, key, d.variant() < 3 ? ToolStatus.OK : ToolStatus.values()[d.variant() % ToolStatus.values().length],
                    "sent", null);
        }
        return w.appendEvents(by, null, by == AGENT ? w.head.epoch() : null, w.ev(by, next));
    }

    /** Who writes events of the kind {@code p} picks: the approval-service, the tool-executor or the harness. */
    private static TetherPrincipal writerOf(World w, Proposal p) {
        SessionHead.OpenCall open = w.head == null ? null : w.head.openCalls().get(callIdOf(w, p));
        boolean byTheHarness = open != null && open.runBy() != CallRunner.EXECUTOR;
        return switch (p.kind()) {
            case 3, 6 -> SERVICE;
            case 4, 5 -> APPROVER;
            case 2 -> byTheHarness ? AGENT : SERVICE;
            case 8 -> byTheHarness && p.variant() >= 3 ? AGENT : APPROVER;
            default -> AGENT;
        };
    }

    /** Mostly one of the session's open calls; now and then an id of none. */
    private static String callIdOf(World w, Proposal p) {
        if (w.head == null || w.head.openCalls().isEmpty() || p.variant() == 5) {
            return CALL_IDS.get(p.call());
        }
        var open = List.copyOf(w.head.openCalls().keySet());
        return open.get(p.call() % open.size());
    }

    /** The seq of the latest approval_granted of {@code callId}, or the session's last seq. */
    private static long grantOf(World w, String callId) {
        for (int i = w.log.size() - 1; i >= 0; i--) {
            if (w.log.get(i).payload() instanceof ApprovalGranted g && g.callId().equals(callId)) {
                return w.log.get(i).seq();
            }
        }
        return w.lastSeq();
    }

    /** An event of the kind {@code p} picks, made for the session as it is: mostly right, sometimes not. */
    private static EventPayload payload(World w, Proposal p, long epoch) {
        String callId = callIdOf(w, p);
        SessionHead.OpenCall open = w.head == null ? null : w.head.openCalls().get(callId);
        String key = open != null ? open.key(w.sessionId, callId) : IdempotencyKey.of(w.sessionId, w.lastSeq(), callId);
        if (p.variant() == 5) {
            key = key + "x";
        }
        String tool = open != null ? open.tool() : TOOLS.get(p.variant() % TOOLS.size());
        return switch (p.kind()) {
            case 0 -> Given.user("please go on");
            case 1 -> {
                var calls = new ArrayList<ToolCall>();
                for (int i = 0; i <= p.variant() % 3; i++) {
                    String id = p.variant() == 5 ? CALL_IDS.get((p.call() + i) % CALL_IDS.size()) : "c" + w.lastSeq() + "-" + i;
                    calls.add(new ToolCall(id, TOOLS.get((p.variant() + i) % TOOLS.size()),
                            "{\"to\":\"team@example.com\"}"));
                }
                yield new AssistantMessage(p.variant() == 4 ? "" : "on it", null, p.variant() == 3 ? List.of() : calls,
                        new TokenUsage(100L * p.variant(), 40));
            }
            case 2 -> new ToolResult(callId, key, ToolStatus.values()[p.variant() % ToolStatus.values().length], "done", null);
            case 3 -> new ApprovalRequested(callId, tool, tool + " to team@example.com", null);
            case 4 -> new ApprovalGranted(callId, p.variant() % 2 == 0 ? ApprovalScope.ONCE : ApprovalScope.SESSION, tool, null, "alice",
                    "fine");
            case 5 -> ApprovalDenied.byApprover(callId, ApprovalScope.ONCE, tool, null, "alice", "no");
            case 6 -> new ToolCallAuthorized(callId, p.variant() < 3 ? AuthorizationBasis.POLICY
                    : AuthorizationBasis.approval(p.variant() == 5 ? w.lastSeq() : grantOf(w, callId)));
            case 7 -> new ToolCallStarted(callId, key, epoch, (open == null ? 0 : open.attempts()) + 1 + (p.variant() == 4 ? 1 : 0),
                    p.variant() == 3 || w.head == null ? null : IdempotencyKey.external(key, w.head.startedAt()));
            case 8 -> new ToolOutcomeResolved(callId, OutcomeResolution.values()[p.variant() % OutcomeResolution.values().length],
                    p.variant() < 3 ? "alice" : AGENT.id(), "checked by hand");
            case 9 -> new ContextCompacted(Math.max(1, w.lastSeq() - p.variant()), "the early turns", null,
                    List.of(Math.max(1L, w.lastSeq() - p.variant() - 1)));
            case 10 -> Given.plan();
            case 11 -> Given.step(p.variant() + 1);
            case 12 -> Given.interrupted();
            case 13 -> p.variant() == 0 ? Given.closed("done") : Given.step(p.variant());
            case 14 -> Given.frameworkState("cp-" + p.variant());
            case 15 -> Given.asking(Given.call(callId, tool)); // an id asked for again
            case 16 -> p.variant() < 3 ? start() : Given.subagentResult("child-" + p.variant());
            default -> Given.sampleOf(List.of(SessionClaimed.class, SessionResumed.class,
                    SessionMigrated.class, SessionForked.class,
                    ToolCallStarted.class, UserMessage.class).get(p.variant()));
        };
    }

    /** The processor's writes for the verdict: the command as the REST edge encodes it, the events, the head and the reply. */
    private static void assertWritable(CommandEnvelope envelope, Decision decision, SessionHead before) {
        SessionCommand command = CommandAvro.toAvro(envelope, "replies-1");
        assertThat(CommandAvro.fromAvro(decoded(command))).as("the command, encoded and read back").isEqualTo(envelope);
        encode(CommandAvro.reply(command, decision, before));
        if (decision instanceof Accepted a) {
            for (Event event : a.events()) {
                assertThat(EventAvro.fromAvro(decodedEvent(EventAvro.toAvro(event)))).as("event %s, encoded and read back", event.seq())
                        .isEqualTo(event);
            }
            if (a.head() != null) {
                byte[] stored = SequencerStoreFormats.HEADS.serialize("heads", a.head());
                assertThat(SequencerStoreFormats.HEADS.deserialize("heads", stored)).as("the head, stored and read back").isEqualTo(a.head());
            }
        }
    }

    private static SessionCommand decoded(SessionCommand command) {
        try {
            return SessionCommand.getDecoder().decode(SessionCommand.getEncoder().encode(command));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static SessionEvent decodedEvent(SessionEvent event) {
        try {
            return SessionEvent.getDecoder().decode(SessionEvent.getEncoder().encode(event));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void encode(CommandReply reply) {
        try {
            CommandReply.getEncoder().encode(reply);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
