package dev.tether.projector;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tether.avro.ToolRequest;
import dev.tether.core.event.AssistantMessage;
import dev.tether.core.event.AuthorizationBasis;
import dev.tether.core.event.Event;
import dev.tether.core.event.EventPayload;
import dev.tether.core.event.StepCompleted;
import dev.tether.core.event.TokenUsage;
import dev.tether.core.event.ToolCall;
import dev.tether.core.event.ToolCallAuthorized;
import dev.tether.core.event.ToolResult;
import dev.tether.core.event.ToolStatus;
import dev.tether.core.event.UserMessage;
import dev.tether.kit.json.EventJson;
import dev.tether.kit.kafka.AvroSerdes;
import dev.tether.kit.kafka.TopicLayout;
import dev.tether.kit.kafka.Topics;
import dev.tether.projector.domain.Projection;
import dev.tether.projector.domain.SessionProjection;
import dev.tether.testing.ServiceProcess;
import dev.tether.testing.TetherStack;
import dev.tether.testing.TopicReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.apache.kafka.common.serialization.Serde;
import org.junit.jupiter.api.Test;

/**
 * The projector killed (SIGKILL) at several step boundaries of a scripted session — steps 5, 40
 * and 300 — and restarted from the log reaches the same final checkpoint as an uninterrupted fold
 * of the same events, and asks for each authorized tool call exactly once.
 */
class ProjectorCrashIT {

    private static final int STEPS = 320;

    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    private final ObjectMapper json = new EventJson().mapper();

    @Test
    void killedAtStep5_40And300_andRestarted_reachesTheUninterruptedCheckpoint() throws Exception {
        String prefix = "pcrash-" + UUID.randomUUID().toString().substring(0, 8) + ".";
        TopicLayout layout = TopicLayout.local().withPrefix(prefix);
        Path workDir = Files.createTempDirectory("projector-crash-");
        String sessionId = prefix + "scripted";
        try (var service = new ServiceProcess(Path.of("").toAbsolutePath(), workDir, ServiceProcess.env("TETHER_TOPICS_PREFIX", prefix),
                List.of()); var writer = new EventWriter(layout, "acme")) {
            service.start();
            EventWriter.Session session = writer.session(sessionId).add(ProjectionApiIT.started());
            int step = 0;
            for (int killAt : new int[] {5, 40, 300, STEPS}) {
                for (; step < killAt; step++) {
                    session.add(step(sessionId, step, session.lastSeq() + 1).toArray(EventPayload[]::new));
                }
                if (killAt == STEPS) {
                    break;
                }
                awaitLastSeq(service, sessionId, session.lastSeq());
                service.kill();
                // the session goes on while the projector is down
                session.add(new UserMessage("while the projector was down at step " + killAt, null));
                service.start();
            }
            awaitLastSeq(service, sessionId, session.lastSeq());

            JsonNode live = get(service, "/v1/sessions/" + sessionId + "/checkpoint");
            SessionProjection uninterrupted = null;
            for (Event e : session.written) {
                uninterrupted = Projection.evolve(uninterrupted, e, 0, 0);
            }
            ObjectNode expected = (ObjectNode) json.readTree(json.writeValueAsString(uninterrupted));
            ((ObjectNode) live).remove("position");
            expected.remove("position");
            assertThat(live).isEqualTo(expected);
            assertThat(live.get("step").asInt()).isEqualTo(STEPS);

            List<String> keys = committedToolRequestKeys(layout, sessionId, STEPS);
            assertThat(keys).as("one tool request per authorized call, despite three crashes").hasSize(STEPS).doesNotHaveDuplicates();
        } finally {
            try (var paths = Files.walk(workDir)) {
                paths.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }

    static List<EventPayload> step(String sessionId, int i, long seq) {
        String call = "c" + i;
        return List.of(new UserMessage("do step " + i, null),
                new AssistantMessage("step " + i, null, List.of(new ToolCall(call, "read_file", "{}")), new TokenUsage(10, 2)),
                new ToolCallAuthorized(call, AuthorizationBasis.POLICY),
                new ToolResult(call, sessionId + "/" + (seq + 1) + "/" + call, ToolStatus.OK, "ok " + i, null),
                new StepCompleted(i + 1, "step " + i, true, null));
    }

    private void awaitLastSeq(ServiceProcess service, String sessionId, long seq) {
        // a request that times out on a loaded machine is asked again, not a failure
        await().atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofMillis(300)).ignoreExceptionsInstanceOf(java.io.IOException.class).until(() -> {
            var response = send(service, "/v1/sessions/" + sessionId + "/checkpoint");
            return response.statusCode() == 200 && json.readTree(response.body()).get("lastSeq").asLong() >= seq;
        });
    }

    private JsonNode get(ServiceProcess service, String path) throws Exception {
        var response = send(service, path);
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        return json.readTree(response.body());
    }

    private HttpResponse<String> send(ServiceProcess service, String path) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create(service.baseUrl() + path)).header("Authorization", "Bearer dev-acme-agent")
                .timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());
    }

    /**
     * The session's tool requests once at least {@code expected} are committed, or what is there after a minute. The
     * checkpoint a test waited for is read from the store, which shows the projector's writes before the transaction
     * that also writes their tool requests commits; a read_committed reader sees those requests a commit later.
     */
    static List<String> committedToolRequestKeys(TopicLayout layout, String sessionId, int expected) {
        var keys = new java.util.concurrent.atomic.AtomicReference<List<String>>(List.of());
        try {
            await().atMost(Duration.ofMinutes(1)).pollInterval(Duration.ofMillis(500))
                    .until(() -> keys.updateAndGet(k -> toolRequestKeys(layout, sessionId)).size() >= expected);
        } catch (org.awaitility.core.ConditionTimeoutException e) {
            // the caller's assertion names what is missing
        }
        return keys.get();
    }

    static List<String> toolRequestKeys(TopicLayout layout, String sessionId) {
        var keys = new ArrayList<String>();
        try (Serde<ToolRequest> serde = AvroSerdes.valueSerde(TetherStack.shared().registryUrl())) {
            for (var r : TopicReader.readAll(layout.name(Topics.TOOL_REQUESTS))) {
                ToolRequest request = serde.deserializer().deserialize(layout.name(Topics.TOOL_REQUESTS), r.value());
                if (request.getSessionId().equals(sessionId)) {
                    keys.add(request.getIdempotencyKey());
                }
            }
        }
        return keys;
    }
}
