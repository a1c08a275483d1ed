package dev.tether.approval;

import static dev.tether.approval.TetherServices.APPROVER;
import static dev.tether.approval.TetherServices.await;
import static dev.tether.approval.TetherServices.call;
import static dev.tether.approval.TetherServices.get;
import static dev.tether.approval.TetherServices.is;
import static dev.tether.approval.TetherServices.renameFoo;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tether.approval.TetherServices.Answer;
import dev.tether.approval.kafka.ApprovalStoreFormats;
import dev.tether.approval.kafka.ApprovalStores;
import dev.tether.testing.StoreUpgrade;
import dev.tether.testing.TopicReader;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The approval-service upgraded over an {@code approval-sessions} store written in the previous format: the unversioned
 * JSON of the releases before store formats had versions. The packaged service first runs as that release wrote its
 * store ({@code tether.stores.write-version.approval-sessions=0}: byte for byte the previous encoding, which the v0
 * golden files of {@code StoreGoldenTest} pin) beside the real sequencer, and leaves a session grant in force, an item
 * pending, an item denied and a call authorized by policy; the test checks the changelog holds only unversioned values.
 * Then the upgraded service starts over the same state directory and changelog and must serve the same answers (every
 * item, the list, the grants) and keep deciding on the restored state (the grant authorizes a new call without asking;
 * the pending item can be granted), writing the current version; and once more from the changelog alone (state
 * directory deleted), where old and new values are mixed.
 */
class StoreUpgradeIT {

    private static final ObjectMapper JSON = new ObjectMapper();

    private TetherServices services;

    @AfterEach
    void stop() {
        if (services != null) {
            services.close();
        }
    }

    @Test
    void anUpgradedService_overAStoreOfThePreviousFormat_servesTheSameAnswers_andDecidesOnIt() throws Exception {
        services = TetherServices.start("approval-upgrade", false, Map.of(), StoreUpgrade.asThePreviousRelease(ApprovalStores.SESSIONS));
        String withGrant = services.sessionWithFoo();
        String grantItem = services.awaitPending(withGrant, ask(withGrant, renameFoo("c1", "src/Foo.java"))).get("id").asText();
        Answer granted = services.decide(grantItem, APPROVER,
                Map.of("decision", "GRANT_SESSION", "tool", "edit_file", "pathGlob", "src/**", "reason", "renames in src are fine"));
        assertThat(granted.status()).as(granted.toString()).isEqualTo(200);
        long grantSeq = granted.body().get("decision").get("seq").asLong();
        services.awaitEvent(withGrant, "c1 authorized", is("tool_call_authorized", "c1"));
        String pendingItem = services.awaitPending(withGrant, ask(withGrant, call("c2", "run_command", "{\"command\":\"make\"}")))
                .get("id").asText();
        String withDenial = services.sessionWithFoo();
        String deniedItem = services.awaitPending(withDenial, ask(withDenial, call("c1", "write_file", "{\"path\":\"a.txt\",\"content\":\"x\"}")))
                .get("id").asText();
        assertThat(services.decide(deniedItem, APPROVER, Map.of("decision", "DENY", "reason", "not today")).status()).isEqualTo(200);
        services.awaitEvent(withDenial, "c1 answered", is("tool_result", "c1"));
        String byPolicy = services.createSession("READ_ONLY");
        services.ask(byPolicy, call("c1", "read_file", "{\"path\":\"a.txt\"}"));
        services.awaitEvent(byPolicy, "c1 authorized", is("tool_call_authorized", "c1"));
        List<String> sessions = List.of(withGrant, withDenial, byPolicy);

        awaitFolded(sessions);
        Map<String, JsonNode> before = answers();
        assertThat(before.get("list").get("approvals")).extracting(i -> i.get("status").asText())
                .containsExactlyInAnyOrder("GRANTED", "PENDING", "DENIED");
        assertThat(before.get("grants").get("grants")).hasSize(1);
        assertThat(versions()).as("the previous release's states").containsOnlyKeys(sessions)
                .allSatisfy((k, v) -> assertThat(v).isEqualTo(StoreUpgrade.UNVERSIONED));

        services.restartApproval(List.of(), true);
        assertThat(answers()).as("served by the upgraded service over the same state directory").isEqualTo(before);
        services.ask(withGrant, renameFoo("c3", "src/Main.java"));
        JsonNode byGrant = services.awaitEvent(withGrant, "c3 authorized", is("tool_call_authorized", "c3"));
        assertThat(byGrant.get("basis").get("approvalSeq").asLong()).as("the grant of the old state authorizes it").isEqualTo(grantSeq);
        Answer grantedNow = services.decide(pendingItem, APPROVER, Map.of("decision", "GRANT_ONCE", "reason", "fine"));
        assertThat(grantedNow.status()).as("the item pending in the old state is decided: " + grantedNow).isEqualTo(200);
        services.awaitEvent(withGrant, "c2 authorized", is("tool_call_authorized", "c2"));
        assertThat(services.events(withGrant)).filteredOn(is("approval_requested", "c3")).as("no prompt for c3").isEmpty();
        awaitFolded(sessions);
        assertThat(versions()).as("the state written again is the current version; the others stay as they were")
                .containsEntry(withGrant, Integer.toString(ApprovalStoreFormats.SESSIONS.version())).containsEntry(withDenial, StoreUpgrade.UNVERSIONED)
                .containsEntry(byPolicy, StoreUpgrade.UNVERSIONED);
        Map<String, JsonNode> after = answers();
        assertThat(after.get(deniedItem)).isEqualTo(before.get(deniedItem));
        assertThat(after.get(grantItem).get("status").asText()).isEqualTo("GRANTED");
        assertThat(after.get(pendingItem).get("status").asText()).isEqualTo("GRANTED");
        assertThat(after.get("grants").get("grants").get(0).get("usedBy")).extracting(JsonNode::asText).contains("c3");

        services.restartApproval(List.of(), false);
        assertThat(answers()).as("restored from a changelog holding both formats").isEqualTo(after);
    }

    // ---------------------------------------------------------------------------------------------

    /** Asks for the call; returns its callId. */
    private String ask(String sessionId, TetherServices.Call call) {
        services.ask(sessionId, call);
        return call.callId();
    }

    /** What the service answers approvers: every item by its id, the list of all of them, the grants in force. */
    private Map<String, JsonNode> answers() {
        var answers = new LinkedHashMap<String, JsonNode>();
        answers.put("list", ok(get(services.approvals() + "?status=ALL", APPROVER)));
        answers.put("pending", ok(get(services.approvals(), APPROVER)));
        answers.put("grants", ok(get(services.approvals() + "/grants", APPROVER)));
        for (JsonNode item : answers.get("list").get("approvals")) {
            answers.put(item.get("id").asText(), ok(get(services.approvals() + "/" + item.get("id").asText(), APPROVER)));
        }
        return answers;
    }

    private static JsonNode ok(Answer answer) {
        assertThat(answer.status()).as(answer.toString()).isEqualTo(200);
        return answer.body();
    }

    private String changelog() {
        return StoreUpgrade.changelog(services.prefix + "tether-approval-service", ApprovalStores.SESSIONS);
    }

    /** Session → the version of its latest state in the changelog, or unversioned. */
    private Map<String, String> versions() {
        return StoreUpgrade.versions(changelog());
    }

    /**
     * Waits until the service has folded every event of the sessions into their states and committed them to the
     * changelog, so that what it answers is all the log says.
     */
    private void awaitFolded(List<String> sessions) {
        await("every event folded").until(() -> {
            Map<String, byte[]> states = TopicReader.latestByKey(changelog());
            for (String session : sessions) {
                byte[] state = states.get(session);
                if (state == null || JSON.readTree(state).get("lastSeq").asLong() != services.events(session).size()) {
                    return false;
                }
            }
            return true;
        });
    }
}
