package dev.tether.reliability.fuzz;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tether.reliability.fuzz.Http.Call;
import dev.tether.reliability.fuzz.TetherUnderTest.Service;
import java.util.UUID;

/**
 * The things of tenant acme both ITs aim at: a WRITE session with a read call answered, a session-scope grant, a
 * write call awaiting approval and an offloaded message (an artifact); a session to erase; a harness version to
 * migrate to. {@link #request} builds a valid request to any endpoint about them.
 */
record Scene(String label, String session, String erasable, String callId, String itemId, String artifact) {

    /** A WRITE session of acme with a read call answered, a write call awaiting approval and an offloaded message. */
    static Scene set(TetherUnderTest tether, String label) {
        String agent = Tokens.acme("agent");
        String session = tether.createSession("acme", "WRITE", label);
        String erasable = tether.createSession("acme", "READ_ONLY", label + "-erasable");
        tether.append(session, agent, TetherUnderTest.userMessage("acme's secret plans"));
        String readCall = "read-" + UUID.randomUUID().toString().substring(0, 8);
        tether.append(session, agent, TetherUnderTest.toolCall(readCall, "read_file", "{\"path\":\"README.md\"}"));
        tether.awaitEvent(session, agent, "the result of " + readCall, e -> e.path("type").asText().equals("tool_result")
                && e.path("callId").asText().equals(readCall));
        // a session-scope grant, so the tenant's grants are not empty
        String grantedCall = "granted-" + UUID.randomUUID().toString().substring(0, 8);
        tether.append(session, agent, TetherUnderTest.toolCall(grantedCall, "write_file",
                "{\"path\":\"granted/a.txt\",\"content\":\"hi\"}"));
        String grantedItem = tether.awaitPendingItem(session, grantedCall, Tokens.acme("approver"));
        var granted = Http.send(Call.of("POST", tether.url(Service.APPROVAL) + "/v1/approvals/" + grantedItem + "/decision",
                Tokens.acme("approver")).withJson("{\"decision\":\"GRANT_SESSION\",\"tool\":\"write_file\",\"pathGlob\":\"granted/**\"}"));
        assertThat(granted.status()).as("a session-scope grant: %s", granted).isEqualTo(200);
        // the executor runs the granted call: its result is part of the scene, not a change some test request made
        tether.awaitEvent(session, agent, "the result of " + grantedCall, e -> e.path("type").asText().equals("tool_result")
                && e.path("callId").asText().equals(grantedCall));
        String writeCall = "write-" + UUID.randomUUID().toString().substring(0, 8);
        tether.append(session, agent, TetherUnderTest.toolCall(writeCall, "write_file", "{\"path\":\"notes.txt\",\"content\":\"hi\"}"));
        String itemId = tether.awaitPendingItem(session, writeCall, Tokens.acme("approver"));
        JsonNode big = tether.append(session, agent, TetherUnderTest.userMessage("big ".repeat(20_000)));
        long bigSeq = big.get("appended").get(0).get("seq").asLong();
        String sha = tether.events(session, agent).stream().filter(e -> e.get("seq").asLong() == bigSeq).findFirst().orElseThrow()
                .get("contentRef").get("sha256").asText();
        // a version to migrate to
        var put = Http.send(Call.of("PUT", tether.url(Service.SESSION) + "/v1/harness-versions", Tokens.acme("operator"))
                .withJson("{\"version\":\"" + label + "-v2\",\"weight\":0,\"state\":\"ACTIVE\"}"));
        assertThat(put.status()).as("registering a harness version: %s", put).isEqualTo(200);
        return new Scene(label, session, erasable, readCall, itemId, sha);
    }

    /**
     * A valid request to {@code e} about the owner's things. {@code owner}: the caller is the owner (a new session
     * gets a fresh id); else the body names the owner's session where it names one.
     */
    Call request(TetherUnderTest tether, Endpoint e, String token, boolean owner) {
        String s = tether.url(Service.SESSION) + "/v1/sessions/";
        String p = tether.url(Service.PROJECTOR) + "/v1/sessions/" + session() + "/";
        String a = tether.url(Service.APPROVAL);
        String fresh = label + "-" + UUID.randomUUID().toString().substring(0, 8);
        return switch (e) {
            case SESSION_CREATE -> Call.of("POST", tether.url(Service.SESSION) + "/v1/sessions", token).withJson(
                    "{\"sessionId\":\"" + (owner ? fresh : session())
                            + "\",\"objective\":\"take over\",\"modelId\":\"m\",\"toolMode\":\"WRITE\"}");
            case SESSION_LIST -> Call.of("GET", tether.url(Service.SESSION) + "/v1/sessions", token);
            case SESSION_GET -> Call.of("GET", s + session(), token);
            case EVENTS_APPEND -> Call.of("POST", s + session() + "/events", token).withJson(
                    "{\"events\":[{\"eventId\":\"" + UUID.randomUUID() + "\",\"type\":\"user_message\",\"content\":\"intrusion\"}]}");
            case EVENTS_PAGE -> Call.of("GET", s + session() + "/events?fromSeq=1", token);
            case EVENTS_STREAM -> Call.of("GET", s + session() + "/events?fromSeq=1", token).withHeader("Accept", "text/event-stream");
            case SESSION_CLAIM -> Call.of("POST", s + session() + "/claim", token).withJson(
                    "{\"workerId\":\"matrix-worker\",\"harnessVersion\":\"v1\"}");
            case SESSION_MIGRATE -> Call.of("POST", s + session() + "/migrate", token).withJson("{\"toVersion\":\"" + label + "-v2\"}");
            case SESSION_ERASE -> Call.of("DELETE", s + erasable(), token);
            case SESSION_SUBAGENT -> Call.of("POST", s + session() + "/subagents", token).withJson(
                    "{\"objective\":\"look around\",\"toolMode\":\"READ_ONLY\",\"sessionId\":\"" + fresh + "\"}");
            case SESSION_FORK -> Call.of("POST", s + session() + "/fork", token).withJson(
                    "{\"atSeq\":1,\"sessionId\":\"" + fresh + "\"}");
            case ARTIFACT_GET -> Call.of("GET", tether.url(Service.SESSION) + "/v1/artifacts/" + artifact(), token);
            case VERSIONS_LIST -> Call.of("GET", tether.url(Service.SESSION) + "/v1/harness-versions", token);
            case VERSIONS_PUT -> Call.of("PUT", tether.url(Service.SESSION) + "/v1/harness-versions", token).withJson(
                    "{\"version\":\"" + label + "-v3\",\"weight\":0,\"state\":\"ACTIVE\"}");
            case CHECKPOINT -> Call.of("GET", p + "checkpoint", token);
            case CONTEXT -> Call.of("GET", p + "context?format=anthropic", token);
            case COMPACTION_SOURCE -> Call.of("GET", p + "compaction-source?throughSeq=2", token);
            case RECOVERY -> Call.of("GET", p + "recovery", token);
            case CALL -> Call.of("GET", p + "calls/" + callId(), token);
            case PROJECTOR_EVENTS -> Call.of("GET", p + "events?fromSeq=1", token);
            case PROJECTOR_EVENTS_STREAM -> Call.of("GET", p + "events?fromSeq=1", token).withHeader("Accept", "text/event-stream");
            case PROJECTOR_SESSION_LIST -> Call.of("GET", tether.url(Service.PROJECTOR) + "/v1/sessions", token);
            case EXPLORER_PAGE -> Call.of("GET", tether.url(Service.PROJECTOR) + "/explorer", token);
            case APPROVALS_LIST -> Call.of("GET", a + "/v1/approvals?status=ALL", token);
            case APPROVALS_GRANTS -> Call.of("GET", a + "/v1/approvals/grants", token);
            case APPROVAL_GET -> Call.of("GET", a + "/v1/approvals/" + itemId(), token);
            case APPROVAL_DECIDE -> Call.of("POST", a + "/v1/approvals/" + itemId() + "/decision", token).withJson(
                    "{\"decision\":\"DENY\",\"reason\":\"the matrix says no\"}");
            case APPROVALS_PAGE -> Call.of("GET", a + "/approvals", token);
        };
    }

}
