package dev.tether.executor;

import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tether.avro.SessionCommand;
import dev.tether.avro.ToolOutcome;
import dev.tether.core.auth.TetherPrincipal;
import dev.tether.core.event.Actor;
import dev.tether.core.event.ActorKind;
import dev.tether.core.event.AuthorizationBasis;
import dev.tether.core.event.ProposedEvent;
import dev.tether.core.event.ToolCallAuthorized;
import dev.tether.kit.kafka.AvroSerdes;
import dev.tether.kit.kafka.SessionCommands;
import dev.tether.kit.kafka.TopicLayout;
import dev.tether.kit.kafka.Topics;
import dev.tether.testing.ServiceProcess;
import dev.tether.testing.TetherStack;
import dev.tether.testing.TopicReader;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * The executor with the real parts around it, for integration tests: a session-service and a projector-service run
 * from their packaged jars under a topic prefix of their own, and the executor itself, started and killed at will.
 * The approval-service's part (writing {@code tool_call_authorized}) is played by {@link #authorize}, through
 * {@code session-commands} as the service principal, as the approval-service does; or, in a scenario
 * {@link #withApprovals}, by the real approval-service, run from its jar as well.
 */
final class ExecutorScenario implements AutoCloseable {

    static final String AGENT = "dev-acme-agent";
    /** acme's WRITE sessions run edits and commands on policy here; the tests of gating use tenant globex. */
    private static final String ACME_WRITE_POLICY = "-Dtether.policy.overrides.\"acme.WRITE\"=http_fetch";
    private static final ObjectMapper JSON = new ObjectMapper();

    final String prefix;
    final TopicLayout layout;
    final Path workDir;
    private final ServiceProcess sessions;
    private final ServiceProcess projector;
    private final KafkaProducer<String, SessionCommand> commands;
    private final Serde<ToolOutcome> outcomes;
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    /** The real approval-service, in a scenario {@link #withApprovals}; else null. */
    private final ServiceProcess approvals;
    private ServiceProcess executor;
    private final List<ServiceProcess> others = new ArrayList<>();
    private int executorStarts;

    private final List<String> executorProperties;

    /** @param executorProperties {@code -D} options every executor start gets */
    ExecutorScenario(String name, String... executorProperties) throws IOException {
        this(name, false, executorProperties);
    }

    /**
     * A scenario whose calls the real approval-service decides (under the same policy as the executor's), rather than
     * {@link #authorize}.
     */
    static ExecutorScenario withApprovals(String name, String... executorProperties) throws IOException {
        return new ExecutorScenario(name, true, executorProperties);
    }

    private ExecutorScenario(String name, boolean withApprovals, String... executorProperties) throws IOException {
        this.executorProperties = List.of(executorProperties);
        prefix = name + "-" + UUID.randomUUID().toString().substring(0, 8) + ".";
        layout = TopicLayout.local().withPrefix(prefix);
        workDir = Files.createTempDirectory("executor-it-");
        // the command user (nobody, under root) must be able to reach the workspaces, as WorkspaceRoot requires: its
        // command hides the other workspaces by mounting over their directory, which it must find by path
        Files.setPosixFilePermissions(workDir, java.nio.file.attribute.PosixFilePermissions.fromString("rwx--x--x"));
        var env = ServiceProcess.env("TETHER_TOPICS_PREFIX", prefix, "TETHER_SESSIONS_BLOBS_DIR", workDir.resolve("blobs").toString());
        sessions = new ServiceProcess(Path.of("../session-service").toAbsolutePath(), workDir.resolve("session-service"), env, List.of());
        projector = new ServiceProcess(Path.of("../projector-service").toAbsolutePath(), workDir.resolve("projector-service"), env, List.of());
        approvals = withApprovals ? new ServiceProcess(Path.of("../approval-service").toAbsolutePath(), workDir.resolve("approval-service"),
                ServiceProcess.env("TETHER_TOPICS_PREFIX", prefix, "TETHER_WORKSPACE_ROOT", workDir.resolve("workspaces").toString(),
                        "TETHER_SESSIONS_BLOBS_DIR", workDir.resolve("blobs").toString()), List.of(ACME_WRITE_POLICY)) : null;
        sessions.start();
        projector.start();
        if (approvals != null) {
            approvals.start();
        }
        commands = new KafkaProducer<>(TetherStack.shared().clientConfig(), new StringSerializer(),
                AvroSerdes.<SessionCommand>valueSerde(TetherStack.shared().registryUrl()).serializer());
        outcomes = AvroSerdes.valueSerde(TetherStack.shared().registryUrl());
    }

    Path workspace(String sessionId) {
        return workDir.resolve("workspaces").resolve(sessionId);
    }

    /**
     * Starts an executor (the same instance id, workspaces and blobs every time, as a restarted one), with
     * {@code -D} options such as a crash point; stops the one running first.
     */
    ServiceProcess startExecutor(String... systemProperties) {
        stopExecutor();
        executor = executor("executor", systemProperties);
        return executor.start();
    }

    /**
     * Starts another executor beside the one running, with instance id {@code name} (under the prefix): a second member
     * of the group, on the same host (the same workspaces and blobs). It is stopped with the scenario.
     */
    ServiceProcess startExecutorBeside(String name, String... systemProperties) {
        var other = executor(name, systemProperties);
        others.add(other);
        return other.start();
    }

    private ServiceProcess executor(String name, String... systemProperties) {
        var env = ServiceProcess.env("TETHER_TOPICS_PREFIX", prefix, "TETHER_INSTANCE_ID", prefix + name,
                "TETHER_WORKSPACE_ROOT", workDir.resolve("workspaces").toString(),
                "TETHER_SESSIONS_BLOBS_DIR", workDir.resolve("blobs").toString());
        var properties = new ArrayList<>(executorProperties);
        properties.addAll(List.of(systemProperties));
        properties.add(ACME_WRITE_POLICY);
        return new ServiceProcess(Path.of("").toAbsolutePath(), workDir.resolve("tool-" + name + "-" + (++executorStarts)), env, properties);
    }

    /** Starts an executor that halts the first time a call reaches {@code crashPoint}. */
    ServiceProcess startExecutorCrashingAt(String crashPoint) {
        Path marker = workDir.resolve("crashed-" + executorStarts + "-" + crashPoint);
        return startExecutor("-Dtether.executor.test.crash-at=" + crashPoint, "-Dtether.executor.test.crash-marker=" + marker);
    }

    void awaitExecutorDeath() {
        await().atMost(Duration.ofMinutes(2)).until(() -> !executor.isAlive());
    }

    void stopExecutor() {
        if (executor != null) {
            executor.stop();
        }
    }

    Path executorLog() {
        return executor.log();
    }

    void createSession(String sessionId, String token, String toolMode) {
        post(token, "/v1/sessions", Map.of("sessionId", sessionId, "objective", "Keep a log", "systemPrompt", "Be careful.",
                "modelId", "model-x", "toolMode", toolMode), 201);
    }

    /** Erases the session, as its owner may. */
    void erase(String sessionId, String token) {
        send(HttpRequest.newBuilder(URI.create(sessions.baseUrl() + "/v1/sessions/" + sessionId)).header("Authorization", "Bearer " + token)
                .DELETE(), 200);
    }

    /** Appends an assistant message asking for {@code calls} (callId → [tool, argumentsJson]); returns its seq. */
    long askFor(String sessionId, String token, Map<String, List<String>> calls) {
        JsonNode reply = post(token, "/v1/sessions/" + sessionId + "/events", Map.of("events", List.of(assistantMessage(calls))), 200);
        return reply.get("appended").get(0).get("seq").asLong();
    }

    /**
     * Appends, in one batch, an assistant message asking for {@code calls} and the {@code turn_interrupted} of the user
     * who pressed stop at once; returns the assistant message's seq.
     */
    long askForAndInterrupt(String sessionId, String token, Map<String, List<String>> calls) {
        JsonNode reply = post(token, "/v1/sessions/" + sessionId + "/events", Map.of("events", List.of(assistantMessage(calls),
                Map.of("eventId", UUID.randomUUID().toString(), "type", "turn_interrupted", "partialText", "working on",
                        "reason", "user pressed stop"))), 200);
        return reply.get("appended").get(0).get("seq").asLong();
    }

    private static Map<String, Object> assistantMessage(Map<String, List<String>> calls) {
        var toolCalls = new ArrayList<Map<String, Object>>();
        calls.forEach((callId, call) -> toolCalls.add(Map.of("callId", callId, "tool", call.get(0), "argumentsJson", call.get(1))));
        return Map.of("eventId", UUID.randomUUID().toString(), "type", "assistant_message", "content", "working on it",
                "toolCalls", toolCalls, "usage", Map.of("inputTokens", 10, "outputTokens", 5));
    }

    void append(String sessionId, String token, Map<String, Object> event) {
        var withId = new LinkedHashMap<String, Object>(event);
        withId.put("eventId", UUID.randomUUID().toString());
        post(token, "/v1/sessions/" + sessionId + "/events", Map.of("events", List.of(withId)), 200);
    }

    /** What the approval-service does for an allowed call: {@code tool_call_authorized} through session-commands. */
    void authorize(String sessionId, String tenantId, String callId, AuthorizationBasis basis) {
        var principal = TetherPrincipal.service("approval-service", tenantId);
        String eventId = UUID.randomUUID().toString();
        var command = SessionCommands.append(eventId, sessionId, tenantId, principal,
                List.of(new ProposedEvent(eventId, new Actor(ActorKind.SYSTEM, "approval-service"), new ToolCallAuthorized(callId, basis))),
                Instant.now());
        try {
            commands.send(new ProducerRecord<>(layout.name(Topics.SESSION_COMMANDS), sessionId, command)).get();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /** The session's events, as the API returns them. */
    List<JsonNode> events(String sessionId, String token) {
        var out = new ArrayList<JsonNode>();
        get(token, "/v1/sessions/" + sessionId + "/events?fromSeq=1&limit=1000").get("events").forEach(out::add);
        return out;
    }

    List<JsonNode> toolResults(String sessionId, String token, String callId) {
        return events(sessionId, token).stream()
                .filter(e -> e.get("type").asText().equals("tool_result") && e.get("callId").asText().equals(callId)).toList();
    }

    /** Waits for the call's tool_result and returns it. */
    JsonNode awaitResult(String sessionId, String token, String callId) {
        return await().atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofMillis(300))
                .until(() -> toolResults(sessionId, token, callId), r -> !r.isEmpty()).get(0);
    }

    /** Every ledger record written for {@code key}, in order. */
    List<ToolOutcome> ledger(String key) {
        String topic = layout.name(Topics.TOOL_OUTCOMES);
        return TopicReader.readAll(topic).stream()
                .filter(r -> new String(r.key(), StandardCharsets.UTF_8).equals(key))
                .map(r -> outcomes.deserializer().deserialize(topic, r.value()))
                .toList();
    }

    /** Every record of {@code tool-outcomes}, key and value as UTF-8 text (Avro writes strings as UTF-8), for scans. */
    List<String> ledgerText() {
        return TopicReader.readAll(layout.name(Topics.TOOL_OUTCOMES)).stream()
                .map(r -> new String(r.key(), StandardCharsets.UTF_8)
                        + (r.value() == null ? "" : new String(r.value(), StandardCharsets.UTF_8)))
                .toList();
    }

    /** How many records {@code tool-outcomes} holds. */
    int ledgerSize() {
        return TopicReader.readAll(layout.name(Topics.TOOL_OUTCOMES)).size();
    }

    JsonNode get(String token, String path) {
        return send(HttpRequest.newBuilder(URI.create(sessions.baseUrl() + path)).header("Authorization", "Bearer " + token).GET(), 200);
    }

    private JsonNode post(String token, String path, Object body, int expected) {
        try {
            return send(HttpRequest.newBuilder(URI.create(sessions.baseUrl() + path)).header("Authorization", "Bearer " + token)
                    .header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(body))), expected);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    private JsonNode send(HttpRequest.Builder request, int expected) {
        try {
            var response = http.send(request.timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());
            if (response.statusCode() != expected) {
                throw new AssertionError(request.build().uri() + " answered " + response.statusCode() + ": " + response.body());
            }
            return JSON.readTree(response.body());
        } catch (IOException e) {
            throw new IllegalStateException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    @Override
    public void close() throws IOException {
        stopExecutor();
        others.forEach(ServiceProcess::stop);
        if (approvals != null) {
            approvals.stop();
        }
        projector.stop();
        sessions.stop();
        commands.close();
        outcomes.close();
        try (var paths = Files.walk(workDir)) {
            paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }
}
