package dev.tether.session;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tether.session.kafka.SequencerStoreFormats;
import dev.tether.session.kafka.StoreNames;
import dev.tether.testing.ServiceProcess;
import dev.tether.testing.StoreUpgrade;
import dev.tether.testing.Trees;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The session-service upgraded over stores written in the previous format: the unversioned JSON of the releases
 * before store formats had versions. The packaged service first runs as that release wrote its stores
 * ({@code tether.stores.write-version.<store>=0}: byte for byte the previous encoding, which the v0 golden files of
 * {@code StoreGoldenTest} pin), populates {@code session-heads} and {@code sessions-by-tenant}, and the test checks that
 * their changelogs hold only unversioned values. Then the upgraded service starts over the same state directory and
 * changelog topics and must serve the same answers, keep deciding on the restored heads (a resent eventId is still a
 * duplicate, a new one gets the next seq), and write the current versions (heads 2, summaries 1); and once more from the changelogs alone (state
 * directory deleted), where old and new values are mixed.
 */
class StoreUpgradeIT {

    private static final String AGENT = "Bearer dev-acme-agent";

    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(2)).build();
    private final ObjectMapper json = new ObjectMapper();
    private final String prefix = "upgrade-" + UUID.randomUUID().toString().substring(0, 8) + ".";
    private Path workDir;
    private ServiceProcess service;

    @AfterEach
    void stop() {
        if (service != null) {
            service.close();
        }
        if (workDir != null) {
            Trees.delete(workDir);
        }
    }

    @Test
    void anUpgradedService_overStoresOfThePreviousFormat_servesTheSameAnswers() throws Exception {
        workDir = Files.createTempDirectory("store-upgrade-");
        service = start(StoreUpgrade.asThePreviousRelease(StoreNames.HEADS, StoreNames.SESSIONS_BY_TENANT));
        String working = createSession("working");
        String quiet = createSession("quiet");
        String idle = createSession("idle");
        appendOk(working, List.of(userMessage(working + "-u1"), assistantWithCall(working + "-a1", "c1")));
        Map<String, JsonNode> before = answers(working, quiet, idle);
        assertThat(before.get(working).get("lastSeq").asLong()).isEqualTo(3);
        assertThat(before.get("list").get("sessions")).hasSize(3);
        assertThat(versions(StoreNames.HEADS)).as("the previous release's heads").containsOnlyKeys(working, quiet, idle)
                .allSatisfy((k, v) -> assertThat(v).isEqualTo(StoreUpgrade.UNVERSIONED));
        assertThat(versions(StoreNames.SESSIONS_BY_TENANT)).as("the previous release's summaries").hasSize(3)
                .allSatisfy((k, v) -> assertThat(v).isEqualTo(StoreUpgrade.UNVERSIONED));
        service.stop();

        service = start(List.of());
        assertThat(answers(working, quiet, idle)).as("served by the upgraded service over the same state directory").isEqualTo(before);
        JsonNode again = appendOk(working, List.of(userMessage(working + "-u1")));
        assertThat(again.get("appended").get(0).get("duplicate").asBoolean()).as("a resent eventId, known from the old head").isTrue();
        assertThat(again.get("lastSeq").asLong()).isEqualTo(3);
        JsonNode next = appendOk(quiet, List.of(userMessage(quiet + "-u1")));
        assertThat(next.get("appended").get(0).get("seq").asLong()).isEqualTo(2);
        String current = Integer.toString(SequencerStoreFormats.HEADS.version());
        assertThat(versions(StoreNames.HEADS)).as("an untouched head stays as it was; the heads written again are the current version")
                .containsEntry(working, current).containsEntry(quiet, current).containsEntry(idle, StoreUpgrade.UNVERSIONED);
        Map<String, JsonNode> after = answers(working, quiet, idle);
        assertThat(after.get(working)).isEqualTo(before.get(working));
        assertThat(after.get(idle)).isEqualTo(before.get(idle));
        assertThat(after.get(quiet).get("lastSeq").asLong()).isEqualTo(2);
        service.stop();

        StoreUpgrade.deleteState(service);
        service = start(List.of());
        assertThat(answers(working, quiet, idle)).as("restored from changelogs holding both formats").isEqualTo(after);
    }

    // ---------------------------------------------------------------------------------------------

    private ServiceProcess start(List<String> systemProperties) {
        return new ServiceProcess(Path.of("").toAbsolutePath(), workDir, ServiceProcess.env("TETHER_TOPICS_PREFIX", prefix),
                systemProperties).start();
    }

    /** What the service answers about each session and the tenant's sessions, retrying while its stores are not ready. */
    private Map<String, JsonNode> answers(String... sessions) throws Exception {
        var answers = new LinkedHashMap<String, JsonNode>();
        for (String session : sessions) {
            answers.put(session, get("/v1/sessions/" + session));
        }
        answers.put("list", sorted(get("/v1/sessions")));
        answers.put("open", sorted(get("/v1/sessions?status=open")));
        return answers;
    }

    /** The list by sessionId (the store's order is by key, which is the same; sorted so the check does not rely on it). */
    private JsonNode sorted(JsonNode list) {
        var sessions = new java.util.ArrayList<JsonNode>();
        list.get("sessions").forEach(sessions::add);
        sessions.sort(Comparator.comparing(s -> s.get("sessionId").asText()));
        var out = json.createObjectNode();
        out.set("sessions", json.valueToTree(sessions));
        return out;
    }

    /** Key → the version of its latest changelog value of {@code store}, or unversioned. */
    private Map<String, String> versions(String store) {
        return StoreUpgrade.versions(StoreUpgrade.changelog(prefix + "tether-session-service", store));
    }

    private String createSession(String name) throws Exception {
        String id = "upgrade-" + name + "-" + UUID.randomUUID();
        var response = retried(() -> post("/v1/sessions", Map.of("objective", "survive an upgrade", "modelId", "model-x",
                "toolMode", "READ_ONLY", "sessionId", id, "eventId", id + "-started")));
        assertThat(response.statusCode()).as(response.body()).isEqualTo(201);
        return id;
    }

    private JsonNode appendOk(String session, List<Map<String, Object>> events) throws Exception {
        var response = retried(() -> post("/v1/sessions/" + session + "/events", Map.of("events", events)));
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        return json.readTree(response.body());
    }

    private JsonNode get(String path) throws Exception {
        var response = retried(() -> http.send(request(path).GET().build(), HttpResponse.BodyHandlers.ofString()));
        assertThat(response.statusCode()).as(path + ": " + response.body()).isEqualTo(200);
        return json.readTree(response.body());
    }

    private static Map<String, Object> userMessage(String eventId) {
        return Map.of("eventId", eventId, "type", "user_message", "content", "message " + eventId);
    }

    private static Map<String, Object> assistantWithCall(String eventId, String callId) {
        return Map.of("eventId", eventId, "type", "assistant_message", "content", "reading",
                "toolCalls", List.of(Map.of("callId", callId, "tool", "read_file", "argumentsJson", "{\"path\":\"a.txt\"}")),
                "usage", Map.of("inputTokens", 120, "outputTokens", 34));
    }

    private interface Call {
        HttpResponse<String> send() throws Exception;
    }

    /** The call, resent while the service answers 503 (its stores are restoring), for up to 60 s. */
    private static HttpResponse<String> retried(Call call) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        HttpResponse<String> response = call.send();
        while (response.statusCode() == 503 && System.nanoTime() < deadline) {
            Thread.sleep(200);
            response = call.send();
        }
        return response;
    }

    private HttpResponse<String> post(String path, Object body) throws IOException, InterruptedException {
        return http.send(request(path).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(json.writeValueAsString(body))).build(), HttpResponse.BodyHandlers.ofString());
    }

    private HttpRequest.Builder request(String path) {
        return HttpRequest.newBuilder(URI.create(service.baseUrl() + path)).timeout(Duration.ofSeconds(20)).header("Authorization", AGENT);
    }
}
