package dev.tether.approval.rest;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tether.approval.domain.ApprovalMachine;
import dev.tether.approval.domain.DecisionKind;
import dev.tether.approval.domain.DecisionRequest;
import dev.tether.approval.domain.SessionApprovals;
import dev.tether.approval.domain.Verdict;
import dev.tether.core.auth.Role;
import dev.tether.core.auth.TetherPrincipal;
import dev.tether.core.event.Actor;
import dev.tether.core.event.ActorKind;
import dev.tether.core.event.ApprovalGranted;
import dev.tether.core.event.ApprovalRequested;
import dev.tether.core.event.ApprovalScope;
import dev.tether.core.event.AssistantMessage;
import dev.tether.core.event.Event;
import dev.tether.core.event.EventPayload;
import dev.tether.core.event.SessionStarted;
import dev.tether.core.event.TokenUsage;
import dev.tether.core.event.ToolCall;
import dev.tether.core.event.ToolMode;
import dev.tether.core.event.ToolResult;
import dev.tether.core.event.ToolStatus;
import dev.tether.core.event.TurnInterrupted;
import dev.tether.kit.service.rest.ApiException;
import java.time.Instant;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * What a refused decision answers over HTTP ({@link ApprovalResource#refusal}): the status and the code an SDK or a
 * person acts on must say what happened, not only that something did.
 */
class DecisionRefusalTest {

    private static final String TENANT = "acme";
    private static final String SESSION = "s-1";
    private static final Instant T0 = Instant.parse("2026-11-29T10:00:00Z");
    private static final Actor AGENT = new Actor(ActorKind.MODEL, "acme-agent");
    private static final TetherPrincipal ALICE = new TetherPrincipal("alice", TENANT, Set.of(Role.APPROVER));
    private static final TetherPrincipal AGENT_AND_APPROVER = new TetherPrincipal("acme-agent", TENANT, Set.of(Role.AGENT, Role.APPROVER));

    private final ObjectMapper json = new ObjectMapper();
    private SessionApprovals state;
    private long seq;

    private DecisionRefusalTest append(Actor actor, EventPayload payload) {
        return append("ev-" + (seq + 1), actor, payload);
    }

    private DecisionRefusalTest append(String eventId, Actor actor, EventPayload payload) {
        seq++;
        state = ApprovalMachine.evolve(state, new Event(eventId, SESSION, TENANT, seq, T0.plusSeconds(seq), actor, "v1", payload));
        return this;
    }

    /** A session whose edit_file call c1 waits for an approval, item {@code s-1~3}. */
    private DecisionRefusalTest awaiting() {
        return append(AGENT, new SessionStarted("rename Foo", "be careful", "model-x", "v1", ToolMode.WRITE, List.of(), null, null))
                .append(AGENT, new AssistantMessage("let me", null, List.of(new ToolCall("c1", "edit_file",
                        "{\"path\":\"src/Foo.java\",\"old\":\"Foo\",\"new\":\"Bar\"}")), new TokenUsage(1, 1)))
                .append(new Actor(ActorKind.SYSTEM, ApprovalMachine.SERVICE_ID), new ApprovalRequested("c1", "edit_file", "the diff", null));
    }

    private ApiException refusal(DecisionKind decision, String reason, TetherPrincipal by) {
        Verdict verdict = ApprovalMachine.decide(state, 3, new DecisionRequest(decision, null, null, reason), by);
        assertThat(verdict).as("verdict").isInstanceOf(Verdict.Refused.class);
        return ApprovalResource.refusal((Verdict.Refused) verdict);
    }

    @Test
    void aDecisionOnADecidedItem_is409AlreadyDecided() {
        awaiting().append(new Actor(ActorKind.APPROVER, "bob"), new ApprovalGranted("c1", ApprovalScope.ONCE, null, null, "bob", ""));

        ApiException e = refusal(DecisionKind.DENY, "no", ALICE);

        assertThat(e.status()).isEqualTo(409);
        assertThat(e.body()).containsEntry("error", "already_decided");
    }

    @Test
    void aDecisionOnAPendingItemWhoseTurnWasInterrupted_is409ItemEnded_notAlreadyDecided() {
        // nobody decided: the turn was cut short, and the call's CANCELLED result is on its way
        awaiting().append(AGENT, new TurnInterrupted("", "stop"));

        ApiException e = refusal(DecisionKind.GRANT_ONCE, "", ALICE);

        assertThat(e.status()).isEqualTo(409);
        assertThat(e.body()).containsEntry("error", "item_ended");
        assertThat((String) e.body().get("message")).contains("interrupted at seq 4").contains("without a decision");
    }

    @Test
    void aDecisionOnAnItemCancelledByAnInterruption_is409ItemEnded_notAlreadyDecided() {
        awaiting().append(AGENT, new TurnInterrupted("", "stop"))
                .append(ApprovalMachine.cancelledId(SESSION, "c1"), new Actor(ActorKind.SYSTEM, ApprovalMachine.SERVICE_ID),
                        new ToolResult("c1", SESSION + "/2/c1", ToolStatus.CANCELLED, "cancelled", null));

        ApiException e = refusal(DecisionKind.DENY, "no", ALICE);

        assertThat(e.status()).isEqualTo(409);
        assertThat(e.body()).containsEntry("error", "item_ended");
        assertThat((String) e.body().get("message")).contains("CANCELLED").contains("without a decision")
                .contains("interrupted").doesNotContain("already");
    }

    /** A session whose gated call c1 of {@code tool} waits for an approval, item {@code s-1~3}. */
    private DecisionRefusalTest awaiting(String tool, String argumentsJson) {
        return append(AGENT, new SessionStarted("rename Foo", "be careful", "model-x", "v1", ToolMode.WRITE, List.of(), null, null))
                .append(AGENT, new AssistantMessage("let me", null, List.of(new ToolCall("c1", tool, argumentsJson)), new TokenUsage(1, 1)))
                .append(new Actor(ActorKind.SYSTEM, ApprovalMachine.SERVICE_ID), new ApprovalRequested("c1", tool, "shown", null));
    }

    /** What the API answers a decision whose verdict is to append it: nothing (empty), or a refusal at the edge. */
    private Optional<ApiException> edge(DecisionKind decision, String pathGlob) {
        DecisionRequest request = new DecisionRequest(decision, null, pathGlob, "");
        Verdict verdict = ApprovalMachine.decide(state, 3, request, ALICE);
        assertThat(verdict).as("verdict").isInstanceOf(Verdict.Append.class);
        return ApprovalResource.pathlessGlob(json, request, ((Verdict.Append) verdict).item());
    }

    @ParameterizedTest
    @ValueSource(strings = {"run_command {\"command\":\"./gradlew test\"}", "http_fetch {\"url\":\"https://example.com/\"}",
            "run_command {\"command\":\"ls\",\"path\":{\"not\":\"a string\"}}", "edit_file not json"})
    void aSessionGrantWithAPathGlob_onACallThatNamesNoPath_is400NamingPathGlob(String toolAndArguments) {
        // a glob is matched against each call's 'path' (CallTarget), and a call without one is never covered
        // (PathGlob.covers): the grant would be listed in force and cover none of the tool's calls like this one
        String tool = toolAndArguments.substring(0, toolAndArguments.indexOf(' '));
        awaiting(tool, toolAndArguments.substring(tool.length() + 1));

        ApiException e = edge(DecisionKind.GRANT_SESSION, "src/**").orElse(null);

        assertThat(e).as("refused at the edge").isNotNull();
        assertThat(e.status()).isEqualTo(400);
        assertThat(e.body()).containsEntry("error", "invalid_field").containsEntry("field", "pathGlob");
        assertThat((String) e.body().get("message")).contains(tool).contains("no 'path'");
        assertThat(edge(DecisionKind.GRANT_SESSION, null)).as("without a glob it is granted").isEmpty();
        assertThat(edge(DecisionKind.GRANT_ONCE, null)).isEmpty();
    }

    @Test
    void aSessionGrantWithAPathGlob_onACallThatNamesAPath_isTaken() {
        awaiting();

        assertThat(edge(DecisionKind.GRANT_SESSION, "src/**")).isEmpty();
    }

    @Test
    void aGrantByThePrincipalThatAskedForTheCall_is403Forbidden_sayingWhy() {
        awaiting();

        ApiException e = refusal(DecisionKind.GRANT_ONCE, "", AGENT_AND_APPROVER);

        assertThat(e.status()).isEqualTo(403);
        assertThat(e.body()).containsEntry("error", "forbidden");
        assertThat((String) e.body().get("message")).contains("acme-agent").contains("another approver");
    }
}
