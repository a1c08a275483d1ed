package dev.tether.approval.domain;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tether.core.auth.Role;
import dev.tether.core.auth.TetherPrincipal;
import dev.tether.core.event.Actor;
import dev.tether.core.event.ActorKind;
import dev.tether.core.event.AssistantMessage;
import dev.tether.core.event.Event;
import dev.tether.core.event.EventPayload;
import dev.tether.core.event.ProposedEvent;
import dev.tether.core.event.SessionStarted;
import dev.tether.core.event.TokenUsage;
import dev.tether.core.event.ToolCall;
import dev.tether.core.event.ToolCallAuthorized;
import dev.tether.core.event.ToolMode;
import dev.tether.core.event.ToolResult;
import dev.tether.core.event.ToolStatus;
import dev.tether.core.policy.GatingPolicy;
import dev.tether.core.policy.PathGlob;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * One session told event by event, folded by {@link ApprovalMachine#evolve} and answered by
 * {@link ApprovalMachine#react}, with a fake {@link CallInspector}: the domain's tests need no broker, registry or
 * workspace. What the service answered can be appended as the sequencer would ({@link #acceptAnswers}).
 */
final class Story {

    static final String TENANT = "acme";
    static final String SESSION = "s-1";
    static final Instant T0 = Instant.parse("2026-11-29T10:00:00Z");
    static final Actor AGENT_ACTOR = new Actor(ActorKind.MODEL, "acme-agent");
    static final TetherPrincipal ALICE = new TetherPrincipal("alice", TENANT, Set.of(Role.APPROVER));
    static final TetherPrincipal BOB = new TetherPrincipal("bob", TENANT, Set.of(Role.APPROVER));
    static final TetherPrincipal FOREIGN_APPROVER = new TetherPrincipal("mallory", "globex", Set.of(Role.APPROVER));
    static final TetherPrincipal AGENT = new TetherPrincipal("acme-agent", TENANT, Set.of(Role.AGENT));
    static final TetherPrincipal SERVICE = TetherPrincipal.service(ApprovalMachine.SERVICE_ID, TENANT);

    static final Set<String> READ_TOOLS = Set.of("read_file", "list_dir", "grep", "http_fetch");
    static final Set<String> WRITE_TOOLS = Set.of("read_file", "list_dir", "grep", "http_fetch", "write_file", "edit_file", "run_command");

    /** Where paths lead in the fake workspace, when not to themselves (a symbolic link). */
    final Map<String, String> links = new HashMap<>();
    final ApprovalMachine.Rules rules;
    SessionApprovals state;
    List<ProposedEvent> answers = List.of();
    /** The error the service logs for the last event, if it was a decision it would not apply. */
    java.util.Optional<String> ambiguity = java.util.Optional.empty();
    final List<Event> log = new ArrayList<>();
    private long seq;

    /** {@code verdict}, which must be an append. */
    static Verdict.Append append(Verdict verdict) {
        assertThat(verdict).as("verdict").isInstanceOf(Verdict.Append.class);
        return (Verdict.Append) verdict;
    }

    /** {@code verdict}, which must be a refusal. */
    static Verdict.Refused refused(Verdict verdict) {
        assertThat(verdict).as("verdict").isInstanceOf(Verdict.Refused.class);
        return (Verdict.Refused) verdict;
    }

    Story(GatingPolicy policy) {
        this.rules = new ApprovalMachine.Rules(policy, new FakeInspector());
    }

    static Story started(ToolMode mode) {
        return new Story(GatingPolicy.defaults()).append(AGENT_ACTOR, new SessionStarted("rename Foo", "be careful", "model-x", "v1", mode,
                List.of(), null, null));
    }

    static Story started() {
        return started(ToolMode.WRITE);
    }

    static ToolCall call(String callId, String tool, String argumentsJson) {
        return new ToolCall(callId, tool, argumentsJson);
    }

    static ToolCall edit(String callId, String path) {
        return call(callId, "edit_file", "{\"path\":\"" + path + "\",\"old\":\"Foo\",\"new\":\"Bar\"}");
    }

    static AssistantMessage asking(ToolCall... calls) {
        return new AssistantMessage("let me", null, List.of(calls), new TokenUsage(1, 1));
    }

    long lastSeq() {
        return seq;
    }

    Instant at(long s) {
        return T0.plusSeconds(s);
    }

    /** Appends an event as the sequencer would have accepted it, folds it, and records the service's answers. */
    Story append(Actor actor, EventPayload payload) {
        return append("ev-" + (seq + 1), actor, payload);
    }

    Story append(String eventId, Actor actor, EventPayload payload) {
        seq++;
        var event = new Event(eventId, SESSION, TENANT, seq, at(seq), actor, "v1", payload);
        log.add(event);
        ambiguity = ApprovalMachine.ambiguity(state, event);
        state = ApprovalMachine.evolve(state, event);
        answers = ApprovalMachine.react(state, event, rules);
        return this;
    }

    Story append(EventPayload payload) {
        return append(AGENT_ACTOR, payload);
    }

    /** Appends a proposed event (the service's answer, or an approver's decision) under its own eventId. */
    Story accept(ProposedEvent proposed) {
        return append(proposed.eventId(), proposed.actor(), proposed.payload());
    }

    /** Appends every answer of the last event, in order, and the answers to those, until there are none. */
    Story acceptAnswers() {
        var pending = new ArrayList<>(answers);
        while (!pending.isEmpty()) {
            accept(pending.remove(0));
            pending.addAll(answers);
        }
        return this;
    }

    Story authorizeByPolicyAndReport(String callId, ToolStatus status) {
        return append(new Actor(ActorKind.TOOL, "executor"), new ToolResult(callId, SESSION + "/2/" + callId, status, "outcome text", null));
    }

    ApprovalItem pending(String callId) {
        return state.pendingItems().stream().filter(i -> i.callId().equals(callId)).findFirst()
                .orElseThrow(() -> new AssertionError("no pending item for " + callId + " in " + state.items()));
    }

    ProposedEvent only() {
        if (answers.size() != 1) {
            throw new AssertionError("expected exactly one answer, got " + answers);
        }
        return answers.get(0);
    }

    static boolean authorizes(ProposedEvent e, String callId) {
        return e.payload() instanceof ToolCallAuthorized a && a.callId().equals(callId);
    }

    private final class FakeInspector implements CallInspector {
        @Override
        public Set<String> tools(ToolMode mode) {
            return mode == ToolMode.WRITE ? WRITE_TOOLS : READ_TOOLS;
        }

        @Override
        public Inspection inspect(String tenantId, String sessionId, ToolMode mode, ToolCall call) {
            String path = null;
            var m = java.util.regex.Pattern.compile("\"path\":\"([^\"]*)\"").matcher(call.argumentsJson());
            if (m.find()) {
                path = m.group(1);
            }
            String real = path == null ? null : links.getOrDefault(path, PathGlob.normalize(path).isPresent() ? path : null);
            String shown = "SHOWN " + call.tool() + " " + call.argumentsJson();
            return new Inspection(shown, null, new CallTarget(path, real), dev.tether.tools.Tool.shownSha256(shown));
        }
    }
}
