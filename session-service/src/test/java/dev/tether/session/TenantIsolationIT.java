package dev.tether.session;

import static dev.tether.session.SessionApiIT.AGENT;
import static dev.tether.session.SessionApiIT.append;
import static dev.tether.session.SessionApiIT.batch;
import static dev.tether.session.SessionApiIT.userMessage;
import static dev.tether.session.SessionApiIT.uuid;
import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tether.testing.TetherStackResource;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.specification.RequestSpecification;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/**
 * Every endpoint × every kind of wrong caller: another tenant's agent (404, as for a missing
 * session), no token (401), a bad token (401), a role that may not do it (403). None of them
 * changes anything.
 */
@QuarkusTest
@QuarkusTestResource(TetherStackResource.class)
class TenantIsolationIT {

    /** One endpoint: how to call it, and which role of the owning tenant may not. */
    record Endpoint(String name, Function<RequestSpecification, io.restassured.response.Response> call, String wrongRoleToken,
                    boolean tenantScoped) {}

    @Test
    void everyEndpoint_refusesEveryWrongCaller_andNothingChanges() {
        SessionApiIT.awaitReady();
        String id = SessionApiIT.created();
        append(AGENT, id, batch(userMessage(uuid(), "acme's secret plans"))).statusCode(200);
        String sha = blobOf(id);
        String before = snapshot(id);

        var body = Map.of("events", List.of(userMessage(uuid(), "intrusion")));
        List<Endpoint> endpoints = List.of(
                new Endpoint("create", r -> r.contentType("application/json").body(Map.of("objective", "x", "modelId", "m",
                        "toolMode", "WRITE")).post("/v1/sessions"), "dev-acme-approver", false),
                new Endpoint("append", r -> r.contentType("application/json").body(body).post("/v1/sessions/{id}/events", id),
                        "dev-operator", true),
                new Endpoint("page", r -> r.get("/v1/sessions/{id}/events", id), null, true),
                new Endpoint("stream", r -> r.accept("text/event-stream").get("/v1/sessions/{id}/events", id), null, true),
                new Endpoint("get", r -> r.get("/v1/sessions/{id}", id), null, true),
                new Endpoint("claim", r -> r.contentType("application/json").body(Map.of("workerId", "thief", "harnessVersion", "v1"))
                        .post("/v1/sessions/{id}/claim", id), "dev-acme-approver", true),
                new Endpoint("migrate", r -> r.contentType("application/json").body(Map.of("toVersion", "v2"))
                        .post("/v1/sessions/{id}/migrate", id), "dev-acme-agent", true),
                new Endpoint("erase", r -> r.delete("/v1/sessions/{id}", id), "dev-acme-approver", true),
                new Endpoint("subagents", r -> r.contentType("application/json").body(Map.of("objective", "x", "toolMode", "READ_ONLY"))
                        .post("/v1/sessions/{id}/subagents", id), "dev-acme-approver", true),
                new Endpoint("list", r -> r.get("/v1/sessions"), null, false),
                new Endpoint("artifact", r -> r.get("/v1/artifacts/{sha}", sha), null, true),
                new Endpoint("versions-get", r -> r.get("/v1/harness-versions"), "dev-acme-agent", false),
                new Endpoint("versions-put", r -> r.contentType("application/json").body(Map.of("version", "evil", "weight", 100))
                        .put("/v1/harness-versions"), "dev-acme-agent", false));

        var failures = new ArrayList<String>();
        for (Endpoint e : endpoints) {
            expect(failures, e, "no token", e.call().apply(given()).statusCode(), 401);
            expect(failures, e, "bad token", e.call().apply(given().auth().oauth2("dev-acme-agentX")).statusCode(), 401);
            expect(failures, e, "forged JWT", e.call().apply(given().auth().oauth2(forgedJwt())).statusCode(), 401);
            if (e.wrongRoleToken() != null) {
                expect(failures, e, "wrong role", e.call().apply(given().auth().oauth2(e.wrongRoleToken())).statusCode(), 403);
            }
            if (e.tenantScoped()) {
                int status = e.call().apply(given().auth().oauth2(e.name().equals("migrate") ? "dev-globex-operator" : "dev-globex-agent"))
                        .statusCode();
                expect(failures, e, "other tenant", status, 404);
            }
        }
        var globexList = given().auth().oauth2("dev-globex-agent").get("/v1/sessions").then().statusCode(200).extract().jsonPath();
        assertThat(globexList.getList("sessions.sessionId", String.class)).doesNotContain(id);

        assertThat(failures).isEmpty();
        assertThat(snapshot(id)).as("nothing changed").isEqualTo(before);
        given().auth().oauth2("dev-operator").get("/v1/harness-versions").then().statusCode(200)
                .body("versions.version", org.hamcrest.Matchers.not(org.hamcrest.Matchers.hasItem("evil")));
    }

    /**
     * Harness versions are each tenant's: another tenant's operator neither sees nor weighs nor retires this tenant's, and
     * its versions never take this tenant's sessions; each tenant's list counts its own open sessions only.
     */
    @Test
    void harnessVersions_areEachTenantsOwn_theirWeightsStatesAndCounts() {
        SessionApiIT.awaitReady();
        String globexOperator = "dev-globex-operator";
        putVersion(globexOperator, Map.of("version", "g9", "weight", 100, "state", "ACTIVE", "modelId", "model-g"));
        putVersion(globexOperator, Map.of("version", "v1", "weight", 0, "state", "RETIRED"));
        try {
            String acmeAssigned = SessionApiIT.newSessionId();
            SessionApiIT.createSession(AGENT, acmeAssigned, Map.of()).statusCode(201)
                    .body("harnessVersion", org.hamcrest.Matchers.not("g9"));
            long acmeOnV1 = openSessions("dev-operator", "v1");
            long globexOnV1 = openSessions(globexOperator, "v1");

            String acmeNamed = SessionApiIT.newSessionId();
            SessionApiIT.createSession(AGENT, acmeNamed, Map.of("harnessVersion", "v1")).statusCode(201)
                    .body("harnessVersion", org.hamcrest.Matchers.equalTo("v1"));
            var acme = given().auth().oauth2("dev-operator").get("/v1/harness-versions").then().statusCode(200).extract().jsonPath();
            assertThat(acme.getList("versions.version", String.class)).doesNotContain("g9");
            assertThat(acme.getString("versions.find { it.version == 'v1' }.state")).as("globex retired its v1, not acme's")
                    .isNotEqualTo("RETIRED");
            assertThat(openSessions("dev-operator", "v1")).isEqualTo(acmeOnV1 + 1);
            assertThat(openSessions(globexOperator, "v1")).as("acme's v1 sessions are not globex's").isEqualTo(globexOnV1);

            String globexSession = SessionApiIT.newSessionId();
            SessionApiIT.createSession("dev-globex-agent", globexSession, Map.of("modelId", "model-g")).statusCode(201)
                    .body("harnessVersion", org.hamcrest.Matchers.equalTo("g9"));
            SessionApiIT.createSession("dev-globex-agent", SessionApiIT.newSessionId(), Map.of("harnessVersion", "v1")).statusCode(422)
                    .body("error", org.hamcrest.Matchers.equalTo("version_retired"));
            assertThat(openSessions(globexOperator, "g9")).isEqualTo(1);
        } finally {
            putVersion(globexOperator, Map.of("version", "g9", "weight", 0, "state", "DRAINING"));
            putVersion(globexOperator, Map.of("version", "v1", "weight", 0, "state", "ACTIVE"));
        }
    }

    /** The open sessions of {@code version} the tenant of {@code operatorToken} has, as its operator's list shows them. */
    private static long openSessions(String operatorToken, String version) {
        Long open = given().auth().oauth2(operatorToken).get("/v1/harness-versions").then().statusCode(200).extract().jsonPath()
                .getObject("versions.find { it.version == '" + version + "' }.openSessions", Long.class);
        return open == null ? 0 : open;
    }

    private static void putVersion(String token, Map<String, Object> entry) {
        given().auth().oauth2(token).contentType("application/json").body(entry).put("/v1/harness-versions").then().statusCode(200);
    }

    private static void expect(List<String> failures, Endpoint e, String caller, int actual, int expected) {
        if (actual != expected) {
            failures.add(e.name() + " × " + caller + ": expected " + expected + ", got " + actual);
        }
    }

    /** The session's whole visible state: its summary and every event. */
    private static String snapshot(String id) {
        return given().auth().oauth2(AGENT).get("/v1/sessions/{id}", id).then().statusCode(200).extract().asString()
                + given().auth().oauth2(AGENT).queryParam("limit", 1000).get("/v1/sessions/{id}/events", id).then().statusCode(200)
                .extract().asString();
    }

    private static String blobOf(String id) {
        append(AGENT, id, batch(userMessage(uuid(), "big ".repeat(20_000)))).statusCode(200);
        return given().auth().oauth2(AGENT).queryParam("fromSeq", 3).get("/v1/sessions/{id}/events", id).then().statusCode(200)
                .extract().path("events[0].contentRef.sha256");
    }

    /** A token that looks like a JWT claiming tenant acme and every role, signed by nobody we trust. */
    private static String forgedJwt() {
        var encoder = java.util.Base64.getUrlEncoder().withoutPadding();
        String header = encoder.encodeToString("{\"alg\":\"none\",\"typ\":\"JWT\"}".getBytes());
        String claims = encoder.encodeToString(("{\"sub\":\"mallory\",\"tenant\":\"acme\",\"groups\":[\"agent\",\"admin\",\"operator\"],"
                + "\"iss\":\"https://tether.invalid/issuer\",\"exp\":4102444800}").getBytes());
        return header + "." + claims + ".";
    }
}
