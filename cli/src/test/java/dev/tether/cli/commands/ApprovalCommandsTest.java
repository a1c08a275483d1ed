package dev.tether.cli.commands;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tether.cli.CliRun;
import dev.tether.cli.FakeServices;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** {@code tether approvals} against the approval-service's real answers, served by a fake. */
class ApprovalCommandsTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String DECIDE = "POST /v1/approvals/demo-1~9/decision";

    private final FakeServices services = new FakeServices();

    @AfterEach
    void stop() {
        services.close();
    }

    @Test
    void approvalsList_asksForPendingItems_asTheApprover() {
        services.on("GET /v1/approvals?status=PENDING&limit=500", 200, "{\"approvals\":[" + FakeServices.resource("approval-demo-1-9-pending.json") + "]}");

        CliRun run = CliRun.run(services.env(), "approvals", "list");

        assertThat(run.exitCode()).as(run.toString()).isZero();
        assertThat(run.out().lines()).containsExactly(
                "ID        KIND      STATUS   TOOL         CALL    REQUESTED                 DECIDED  SHOWN",
                "demo-1~9  APPROVAL  PENDING  run_command  call-2  2026-11-29T12:39:58.861Z  -        ls src && make test");
        assertThat(services.requests().get(0).authorization()).isEqualTo("Bearer dev-acme-approver");
    }

    @Test
    void approvalsList_ofEveryStatusAndOneKind_showsWhoDecided() {
        services.onResource("GET /v1/approvals?status=ALL&kind=APPROVAL&limit=500", 200, "approvals-all.json");

        CliRun run = CliRun.run(services.env(), "approvals", "list", "--status", "all", "--kind", "approval");

        assertThat(run.exitCode()).as(run.toString()).isZero();
        assertThat(run.out()).contains("GRANTED", "GRANT_ONCE by acme-approver");
    }

    @Test
    void approvalsShow_printsTheItemAndWhatTheApproverIsShown() {
        services.onResource("GET /v1/approvals/demo-1~9", 200, "approval-demo-1-9-pending.json");

        CliRun run = CliRun.run(services.env(), "approvals", "show", "demo-1~9");

        assertThat(run.exitCode()).as(run.toString()).isZero();
        assertThat(run.out()).contains(
                "status     PENDING (decide with: GRANT_ONCE, GRANT_SESSION, DENY)\n",
                "call       call-2 run_command {\"command\":\"ls src && make test\"}\n",
                "expires    2026-11-30T12:39:58.861Z\n",
                "run by     EXECUTOR (Tether's tool-executor)\n",
                "shown      ls src && make test\n");
    }

    @Test
    void grant_once_postsTheDecisionAndReason_andPrintsHowTheItemStands() throws Exception {
        services.onResource(DECIDE, 200, "approval-demo-1-9.json");

        CliRun run = CliRun.run(services.env(), "approvals", "grant", "demo-1~9", "--reason", "listing-src-is-harmless");

        assertThat(run.exitCode()).as(run.toString()).isZero();
        assertThat(run.out()).isEqualTo("granted demo-1~9: GRANTED (GRANT_ONCE by acme-approver at seq 10: listing-src-is-harmless)\n");
        assertThat(JSON.readTree(services.requests().get(0).body()))
                .isEqualTo(JSON.readTree("{\"decision\":\"GRANT_ONCE\",\"reason\":\"listing-src-is-harmless\"}"));
    }

    @Test
    void grant_forTheSessionOnAPathGlob_namesTheCallsOwnTool() throws Exception {
        services.onResource("GET /v1/approvals/demo-1~9", 200, "approval-demo-1-9-pending.json").onResource(DECIDE, 200, "approval-demo-1-9.json");

        CliRun run = CliRun.run(services.env(), "approvals", "grant", "demo-1~9", "--session", "--path-glob", "src/**", "--reason", "ok");

        assertThat(run.exitCode()).as(run.toString()).isZero();
        JsonNode body = JSON.readTree(services.requests(("POST"), "/v1/approvals").get(0).body());
        assertThat(body).isEqualTo(JSON.readTree("{\"decision\":\"GRANT_SESSION\",\"tool\":\"run_command\",\"pathGlob\":\"src/**\",\"reason\":\"ok\"}"));
    }

    @Test
    void grant_forTheSessionOfAnotherTool_isRefusedBeforeAnythingIsSent() {
        services.onResource("GET /v1/approvals/demo-1~9", 200, "approval-demo-1-9-pending.json");

        CliRun run = CliRun.run(services.env(), "approvals", "grant", "demo-1~9", "--session", "--tool", "edit_file", "--reason", "ok");

        assertThat(run.exitCode()).isEqualTo(1);
        assertThat(run.errLines()).containsExactly("tether: a session grant covers the decided call's tool 'run_command', not 'edit_file'");
        assertThat(services.requests("POST", "/v1/approvals")).isEmpty();
    }

    @Test
    void grant_onTheItemAsRead_pinsItsRequestedAt_andRefusesAnotherCallUnderTheId_beforeAnythingIsSent() throws Exception {
        services.onResource("GET /v1/approvals/demo-1~9", 200, "approval-demo-1-9-pending.json").onResource(DECIDE, 200, "approval-demo-1-9.json");

        CliRun other = CliRun.run(services.env(), "approvals", "grant", "demo-1~9", "--requested-at", "2026-11-29T12:00:00Z", "--reason", "ok");

        assertThat(other.exitCode()).isEqualTo(1);
        assertThat(other.errLines()).singleElement().asString().startsWith("tether: demo-1~9 is not the item requested at 2026-11-29T12:00:00Z: "
                + "that one was requested at 2026-11-29T12:39:58.861Z").contains("nothing was decided");
        assertThat(services.requests("POST", "/v1/approvals")).isEmpty();

        CliRun same = CliRun.run(services.env(), "approvals", "grant", "demo-1~9", "--requested-at", "2026-11-29T12:39:58.861Z", "--reason", "ok");

        assertThat(same.exitCode()).as(same.toString()).isZero();
        assertThat(JSON.readTree(services.requests("POST", "/v1/approvals").get(0).body())).isEqualTo(JSON.readTree(
                "{\"decision\":\"GRANT_ONCE\",\"reason\":\"ok\",\"requestedAt\":\"2026-11-29T12:39:58.861Z\"}"));

        CliRun bad = CliRun.run(services.env(), "approvals", "deny", "demo-1~9", "--requested-at", "yesterday", "--reason", "no");
        assertThat(bad.exitCode()).isEqualTo(2);
        assertThat(bad.err()).contains("--requested-at must be an instant");
    }

    @Test
    void deny_postsTheDecisionAndReason_asTheApprover_andPrintsHowTheItemStands() throws Exception {
        services.onResource(DECIDE, 200, "approval-demo-1-9-denied.json");

        CliRun run = CliRun.run(services.env(), "approvals", "deny", "demo-1~9", "--reason", "make test is too slow here");

        assertThat(run.exitCode()).as(run.toString()).isZero();
        assertThat(run.out()).isEqualTo("denied demo-1~9: DENIED (DENY by acme-approver at seq 10: make test is too slow here)\n");
        assertThat(run.err()).isEmpty();
        assertThat(services.requests()).singleElement().satisfies(r -> {
            assertThat(r.authorization()).isEqualTo("Bearer dev-acme-approver");
            assertThat(JSON.readTree(r.body()))
                    .isEqualTo(JSON.readTree("{\"decision\":\"DENY\",\"reason\":\"make test is too slow here\"}"));
        });
    }

    @Test
    void deny_withJson_printsTheDeniedItem() throws Exception {
        services.onResource(DECIDE, 200, "approval-demo-1-9-denied.json");

        CliRun run = CliRun.run(services.env(), "approvals", "deny", "demo-1~9", "--reason", "make test is too slow here", "--json");

        assertThat(run.exitCode()).as(run.toString()).isZero();
        JsonNode item = JSON.readTree(run.out());
        assertThat(item.get("status").asText()).isEqualTo("DENIED");
        assertThat(item.at("/decision/decision").asText()).isEqualTo("DENY");
        assertThat(item.at("/decision/reason").asText()).isEqualTo("make test is too slow here");
        assertThat(services.requests("POST", "/v1/approvals")).hasSize(1);
    }

    @Test
    void deny_ofAnItemAlreadyDecided_saysSo_inOneLine() {
        services.on(DECIDE, 409, "{\"error\":\"already_decided\",\"message\":\"already GRANTED by acme-approver at seq 10\"}");

        CliRun run = CliRun.run(services.env(), "approvals", "deny", "demo-1~9", "--reason", "too risky");

        assertThat(run.exitCode()).isEqualTo(1);
        assertThat(run.errLines()).containsExactly("tether: demo-1~9 is no longer pending (already_decided): already GRANTED by acme-approver "
                + "at seq 10; 'tether approvals show demo-1~9' tells how it ended");
        assertThat(services.requests("POST", "/v1/approvals")).hasSize(1);
    }

    @Test
    void theDecisionsOnAnUnknownOutcome_sendTheirOwnKinds() throws Exception {
        services.onResource(DECIDE, 200, "approval-demo-1-9.json");

        assertThat(CliRun.run(services.env(), "approvals", "mark-done", "demo-1~9", "--reason", "the file has the edit").exitCode()).isZero();
        assertThat(CliRun.run(services.env(), "approvals", "retry", "demo-1~9", "--reason", "nothing happened").exitCode()).isZero();
        assertThat(CliRun.run(services.env(), "approvals", "abandon", "demo-1~9", "--reason", "not needed").exitCode()).isZero();

        assertThat(services.requests("POST", "/v1/approvals")).extracting(r -> JSON.readTree(r.body()).get("decision").asText())
                .containsExactly("MARK_DONE", "RETRY", "ABANDON");
    }
}
