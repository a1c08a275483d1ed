package dev.tether.session.rest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tether.core.event.HarnessTool;
import dev.tether.core.event.InvalidEventException;
import dev.tether.kit.json.EventJson;
import dev.tether.kit.service.rest.ApiException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The bodies of {@code POST /v1/sessions}, its subagents and its forks, as the REST edge reads them. */
class RequestsTest {

    private final EventJson json = new EventJson();

    @Test
    void aCreate_declaresTheToolsItsHarnessRuns_orNone() throws Exception {
        var create = json.read(json.mapper().readTree("""
                {"objective":"o","toolMode":"WRITE","harnessTools":[
                  {"name":"send_email","mutating":true,"canReconcile":true,"recordedOnly":false}]}"""), Requests.CreateSession.class);
        var plain = json.read(json.mapper().readTree("{\"objective\":\"o\",\"toolMode\":\"WRITE\"}"), Requests.CreateSession.class);
        var subagent = json.read(json.mapper().readTree("""
                {"objective":"o","toolMode":"READ_ONLY","harnessTools":[
                  {"name":"search","mutating":false,"canReconcile":false,"recordedOnly":true}]}"""), Requests.Subagent.class);

        assertThat(create.harnessTools()).containsExactly(new HarnessTool("send_email", true, true, false));
        assertThat(plain.harnessTools()).isNull();
        assertThat(subagent.harnessTools()).containsExactly(new HarnessTool("search", false, false, true));
    }

    @Test
    void aBadToolOfADeclaration_isRefusedNamingItsField() {
        assertThatThrownBy(() -> json.read(json.mapper().readTree("""
                {"objective":"o","toolMode":"WRITE","harnessTools":[
                  {"name":"","mutating":true,"canReconcile":false,"recordedOnly":false}]}"""), Requests.CreateSession.class))
                .isInstanceOf(InvalidEventException.class)
                .extracting(e -> ((InvalidEventException) e).field()).isEqualTo("harnessTools[0].name");
    }

    @Test
    void aToolOfADeclaration_withoutOneOfItsBooleans_isRefusedAsRequired_namingItsPath() {
        for (String missing : new String[] {"mutating", "canReconcile", "recordedOnly"}) {
            var tool = json.mapper().createObjectNode().put("name", "send_email").put("mutating", true).put("canReconcile", false)
                    .put("recordedOnly", false);
            var body = json.mapper().createObjectNode().put("objective", "o").put("toolMode", "WRITE");
            body.putArray("harnessTools").add(json.mapper().createObjectNode().put("name", "search").put("mutating", false)
                    .put("canReconcile", false).put("recordedOnly", true)).add(tool.deepCopy().remove(List.of(missing)));
            for (var request : new Class<?>[] {Requests.CreateSession.class, Requests.Subagent.class}) {
                assertThatThrownBy(() -> json.read(body, request)).as(missing)
                        .isInstanceOfSatisfying(InvalidEventException.class, e -> {
                            assertThat(e.field()).isEqualTo("harnessTools[1]." + missing);
                            assertThat(e.getMessage()).contains("is required").doesNotContain("wrong type");
                        });
                ((com.fasterxml.jackson.databind.node.ObjectNode) body.get("harnessTools").get(1)).putNull(missing);
                assertThatThrownBy(() -> json.read(body, request)).as(missing + ": null")
                        .isInstanceOfSatisfying(InvalidEventException.class, e -> {
                            assertThat(e.field()).isEqualTo("harnessTools[1]." + missing);
                            assertThat(e.getMessage()).contains("is required");
                        });
                ((com.fasterxml.jackson.databind.node.ObjectNode) body.get("harnessTools").get(1)).put(missing, "yes");
                assertThatThrownBy(() -> json.read(body, request)).as(missing + ": a string")
                        .isInstanceOfSatisfying(InvalidEventException.class, e -> {
                            assertThat(e.field()).isEqualTo("harnessTools[1]." + missing);
                            assertThat(e.getMessage()).contains("wrong type");
                        });
                ((com.fasterxml.jackson.databind.node.ObjectNode) body.get("harnessTools").get(1)).remove(missing);
            }
        }
    }

    @Test
    void aFork_withoutASeq_orAtSeqZero_isRefusedNamingAtSeq_andSayingWhich() throws Exception {
        for (String body : new String[] {"{}", "{\"atSeq\":0}"}) {
            assertThatThrownBy(() -> json.read(json.mapper().readTree(body), Requests.Fork.class)).as(body)
                    .isInstanceOfSatisfying(InvalidEventException.class, e -> {
                        assertThat(e.field()).isEqualTo("atSeq");
                        assertThat(e.getMessage()).contains(body.equals("{}") ? "is required" : "must be at least 1");
                    });
        }
        assertThat(json.read(json.mapper().readTree("{\"atSeq\":1}"), Requests.Fork.class).atSeq()).isEqualTo(1);
    }

    @Test
    void aClaim_withoutAWorkerId_isRequired_andWithABlankOne_mustNotBeBlank() throws Exception {
        for (String body : new String[] {"{\"harnessVersion\":\"v1\"}", "{\"workerId\":\" \",\"harnessVersion\":\"v1\"}"}) {
            assertThatThrownBy(() -> json.read(json.mapper().readTree(body), Requests.Claim.class)).as(body)
                    .isInstanceOfSatisfying(InvalidEventException.class, e -> {
                        assertThat(e.field()).isEqualTo("workerId");
                        assertThat(e.getMessage()).contains(body.contains("workerId") ? "must not be blank" : "is required");
                    });
        }
    }

    /**
     * A create without a sessionId made a new session each time it was sent, so one re-sent after a lost answer made a
     * second session though its eventId was the same: the id is now derived from the tenant, the kind and the eventId.
     */
    @Test
    void aSessionMadeWithoutAnId_butWithAnEventId_getsTheSameIdWhenTheRequestIsSentAgain() {
        String once = Requests.sessionIdFor(null, "acme", "create", "e-1");

        assertThat(Requests.sessionIdFor(null, "acme", "create", "e-1")).isEqualTo(once);
        assertThat(Requests.sessionIdFor(null, "globex", "create", "e-1")).as("another tenant's").isNotEqualTo(once);
        assertThat(Requests.sessionIdFor(null, "acme", "subagent", "e-1")).as("a subagent's").isNotEqualTo(once);
        assertThat(Requests.sessionIdFor("mine", "acme", "create", "e-1")).isEqualTo("mine");
        assertThat(Requests.sessionIdFor(null, "acme", "create", null)).isNotEqualTo(Requests.sessionIdFor(null, "acme", "create", null));
        assertThat(dev.tether.core.id.ClientIds.isValid(once)).isTrue();
    }

    /** A worker's id is stored in session_claimed, the head and the session list, and shown: no control characters, bounded. */
    @Test
    void aClaimsWorkerId_withAControlCharacter_orTooLong_isRefusedNamingWorkerId_andAHostNamedOneIsTaken() throws Exception {
        for (String workerId : new String[] {"w\\u0000x", "w\\nx", "x".repeat(Requests.MAX_LABEL + 1)}) {
            String body = "{\"workerId\":\"" + workerId + "\",\"harnessVersion\":\"v1\"}";
            assertThatThrownBy(() -> json.read(json.mapper().readTree(body), Requests.Claim.class)).as(body)
                    .isInstanceOfSatisfying(InvalidEventException.class, e -> assertThat(e.field()).isEqualTo("workerId"));
        }
        assertThatThrownBy(() -> json.read(json.mapper().readTree("{\"workerId\":\"w\",\"harnessVersion\":\"v/1\"}"),
                Requests.Claim.class)).isInstanceOfSatisfying(InvalidEventException.class, e -> assertThat(e.field()).isEqualTo("harnessVersion"));
        String hostNamed = "langgraph-" + "pod-".repeat(40) + "host.example.internal-12345";
        assertThat(json.read(json.mapper().readTree("{\"workerId\":\"" + hostNamed + "\",\"harnessVersion\":\"v1\"}"),
                Requests.Claim.class).workerId()).isEqualTo(hostNamed);
    }

    @Test
    void aHarnessVersion_pinnedToABlankModel_isRefusedNamingModelId_forItWouldRefuseEveryNewSessionOfTheVersion() throws Exception {
        for (String model : new String[] {"", "   "}) {
            String body = "{\"version\":\"v2\",\"weight\":100,\"modelId\":\"" + model + "\"}";
            assertThatThrownBy(() -> json.read(json.mapper().readTree(body), Requests.HarnessVersionEntry.class)).as(body)
                    .isInstanceOfSatisfying(InvalidEventException.class, e -> {
                        assertThat(e.field()).isEqualTo("modelId");
                        assertThat(e.getMessage()).contains("must not be blank");
                    });
        }
        assertThat(json.read(json.mapper().readTree("{\"version\":\"v2\",\"weight\":100}"), Requests.HarnessVersionEntry.class)
                .modelId()).isNull();
    }

    @Test
    void aBodyNamingAMemberTwice_isRefusedNamingIt_atAnyDepth() {
        // StrictInput.json reads every body (StrictInputTest has the rest: depth, arrays, a secret in the name)
        assertThat(refusal("{\"objective\":\"o\",\"toolMode\":\"READ_ONLY\",\"toolMode\":\"WRITE\"}"))
                .containsEntry("error", "invalid_field").containsEntry("field", "toolMode");
        assertThat(refusal("{\"harnessTools\":[{\"name\":\"x\",\"name\":\"y\"}]}")).containsEntry("field", "harnessTools[0].name");
    }

    @Test
    void aBodyThatIsNoJsonObject_isRefused_neverA500() {
        assertThat(refusal("{\"objective\":\"o\"} {\"objective\":\"p\"}")).containsEntry("error", "malformed_json");
        assertThat(refusal("[1]")).containsEntry("error", "invalid_field").containsEntry("field", InvalidEventException.WHOLE);
        assertThat(refusal("null")).containsEntry("error", "invalid_field");
        assertThat(refusal("   ")).containsEntry("error", "malformed_json");
        assertThat(refusal("[".repeat(5000))).containsEntry("error", "malformed_json");
        assertThat(refusal("{\"a\":\"\\ud800\"}")).containsEntry("field", "a");
    }

    /**
     * A member's name is client text: a token sent as one is not echoed in the refusal of a lone surrogate under it (as it
     * is not in the refusal of a member named twice), wherever in the body.
     */
    @Test
    void aLoneSurrogateUnderAMemberNamedWithAToken_isRefused_withoutEchoingTheToken() {
        String token = "ghp_0123456789abcdefghijklmnopqrstuvwxyzAB";
        for (String body : new String[] {"{\"" + token + "\":\"\\ud800\"}",
                "{\"events\":[{\"eventId\":\"e-1\",\"" + token + "\":{\"x\":\"\\udc00\"}}]}",
                "{\"" + token + "\\ud800\":1}"}) {
            var refused = refusal(body);
            assertThat(refused).as(body).containsEntry("error", "invalid_field");
            assertThat(refused.toString()).as(body).doesNotContain(token);
        }
        assertThat(refusal("{\"events\":[{\"content\":\"\\ud800\"}]}")).containsEntry("field", "events[0].content");
    }

    /**
     * A model id is kept in the session's head, which is one changelog record written again by every append, and in the
     * session list: bounded like a worker's id, else a create within the command's limit makes every append of its session
     * write that much again.
     */
    @Test
    void aModelId_tooLongOrWithAControlCharacter_isRefusedNamingModelId_inACreateAndAHarnessVersion() throws Exception {
        for (String model : new String[] {"m".repeat(Requests.MAX_LABEL + 1), "m\\nx"}) {
            String create = "{\"objective\":\"o\",\"toolMode\":\"WRITE\",\"modelId\":\"" + model + "\"}";
            assertThatThrownBy(() -> json.read(json.mapper().readTree(create), Requests.CreateSession.class)).as(create)
                    .isInstanceOfSatisfying(InvalidEventException.class, e -> assertThat(e.field()).isEqualTo("modelId"));
            String version = "{\"version\":\"v2\",\"weight\":10,\"modelId\":\"" + model + "\"}";
            assertThatThrownBy(() -> json.read(json.mapper().readTree(version), Requests.HarnessVersionEntry.class)).as(version)
                    .isInstanceOfSatisfying(InvalidEventException.class, e -> assertThat(e.field()).isEqualTo("modelId"));
        }
        String bedrock = "arn:aws:bedrock:us-east-1:123456789012:inference-profile/us.anthropic.claude-3-5-sonnet-20241022-v2:0";
        assertThat(json.read(json.mapper().readTree("{\"objective\":\"o\",\"toolMode\":\"WRITE\",\"modelId\":\"" + bedrock + "\"}"),
                Requests.CreateSession.class).modelId()).isEqualTo(bedrock);
    }

    @Test
    void aBodyOfDistinctMembers_reads() {
        var body = Requests.object(json.mapper(), "{\"a\":{\"x\":1},\"b\":{\"x\":2},\"c\":[{\"x\":1},{\"x\":2}]}"
                .getBytes(StandardCharsets.UTF_8));
        assertThat(body.path("c").get(1).path("x").asInt()).isEqualTo(2);
    }

    private java.util.Map<String, Object> refusal(String body) {
        try {
            Requests.object(json.mapper(), body.getBytes(StandardCharsets.UTF_8));
        } catch (ApiException e) {
            assertThat(e.status()).isEqualTo(400);
            return e.body();
        }
        throw new AssertionError("accepted " + body);
    }
}
