package dev.tether.approval;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tether.avro.ToolRequest;
import dev.tether.kit.kafka.AvroSerdes;
import dev.tether.kit.kafka.TopicLayout;
import dev.tether.kit.kafka.Topics;
import dev.tether.testing.ServiceProcess;
import dev.tether.testing.StoreUpgrade;
import dev.tether.testing.TetherStack;
import dev.tether.testing.TopicReader;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Predicate;
import org.apache.kafka.common.serialization.Deserializer;

/**
 * The session-service (the sequencer), the projector-service and the approval-service, each run from its packaged
 * jar as its own process against the JVM's real broker and registry, on topics of their own (a prefix), with one
 * workspace root shared as the executor would share it. Plus the few calls the tests make through their APIs.
 * {@link #close()} stops every process it started, by PID, and deletes its directory.
 */
final class TetherServices implements AutoCloseable {

    static final String AGENT = "dev-acme-agent";
    static final String APPROVER = "dev-acme-approver";
    static final String FOREIGN_APPROVER = "dev-globex-approver";
    static final Duration PATIENCE = Duration.ofSeconds(90);

    private static final Path ROOT = Path.of(System.getProperty("tether-test.root", "..")).toAbsolutePath().normalize();
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    final String prefix;
    final TopicLayout layout;
    final Path workDir;
    final Path workspaces;
    final ServiceProcess session;
    final ServiceProcess projector;
    /** The approval-service; {@link #restartApproval} replaces it. */
    ServiceProcess approval;
    private final Map<String, String> approvalEnv;
    private final List<ServiceProcess> moreApprovals = new ArrayList<>();

    private TetherServices(String name, boolean withProjector, Map<String, String> approvalEnv, List<String> approvalProperties)
            throws IOException {
        prefix = name + "-" + UUID.randomUUID().toString().substring(0, 8) + ".";
        layout = TopicLayout.local().withPrefix(prefix);
        workDir = Files.createTempDirectory("approval-it-");
        workspaces = Files.createDirectories(workDir.resolve("workspaces"));
        var env = ServiceProcess.env("TETHER_TOPICS_PREFIX", prefix, "TETHER_WORKSPACE_ROOT", workspaces.toString(),
                "TETHER_SESSIONS_BLOBS_DIR", workDir.resolve("blobs").toString());
        session = new ServiceProcess(ROOT.resolve("session-service"), workDir.resolve("session-service"), env, List.of());
        projector = withProjector ? new ServiceProcess(ROOT.resolve("projector-service"), workDir.resolve("projector-service"), env, List.of())
                : null;
        var approvalEnvAll = new LinkedHashMap<>(env);
        approvalEnvAll.putAll(approvalEnv);
        this.approvalEnv = Map.copyOf(approvalEnvAll);
        approval = new ServiceProcess(ROOT.resolve("approval-service"), workDir.resolve("approval-service"), approvalEnvAll,
                approvalProperties);
    }

    /** Starts the three services, one after the other (each creates the topics it misses). */
    static TetherServices start(String name, boolean withProjector, Map<String, String> approvalEnv) throws IOException {
        return start(name, withProjector, approvalEnv, List.of());
    }

    /** The same, the approval-service started with {@code approvalProperties} ({@code -Dkey=value}). */
    static TetherServices start(String name, boolean withProjector, Map<String, String> approvalEnv, List<String> approvalProperties)
            throws IOException {
        var services = new TetherServices(name, withProjector, approvalEnv, approvalProperties);
        try {
            services.session.start();
            if (services.projector != null) {
                services.projector.start();
            }
            services.approval.start();
            return services;
        } catch (RuntimeException e) {
            services.close();
            throw e;
        }
    }

    /**
     * Starts one more approval-service instance on the same topics (the same application id): it takes over some of
     * the partitions. Stopped by {@link #close()}.
     */
    ServiceProcess startAnotherApproval() {
        var another = new ServiceProcess(ROOT.resolve("approval-service"),
                workDir.resolve("approval-service-" + (moreApprovals.size() + 2)), approvalEnv, List.of());
        moreApprovals.add(another);
        return another.start();
    }

    /**
     * Stops the approval-service and starts it again over the same state directory, topics and environment, with
     * {@code systemProperties} (an upgrade: a new release of it, configured anew). {@code keepState} false deletes its
     * state directory first, so it restores its stores from their changelogs alone. Its port changes.
     */
    ServiceProcess restartApproval(List<String> systemProperties, boolean keepState) {
        approval.stop();
        if (!keepState) {
            StoreUpgrade.deleteState(approval);
        }
        approval = new ServiceProcess(ROOT.resolve("approval-service"), workDir.resolve("approval-service"), approvalEnv, systemProperties);
        return approval.start();
    }

    @Override
    public void close() {
        moreApprovals.forEach(ServiceProcess::close);
        approval.close();
        if (projector != null) {
            projector.close();
        }
        session.close();
        try (var paths = Files.walk(workDir)) {
            paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            // a temporary directory left behind is not worth failing a test for
        }
    }

    // --- HTTP ------------------------------------------------------------------------------------

    /** A response: its status and its JSON body (an empty object when it has none). */
    record Answer(int status, JsonNode body) {
        @Override
        public String toString() {
            return status + " " + body;
        }
    }

    static Answer get(String url, String token) {
        return send(HttpRequest.newBuilder(URI.create(url)).GET(), token);
    }

    static Answer post(String url, String token, Object body) {
        try {
            return send(HttpRequest.newBuilder(URI.create(url)).header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString(body instanceof String s ? s : JSON.writeValueAsString(body))), token);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Sends like a well-behaved client: a 503 (state still restoring, or a rebalance after a restart) is retried after
     * its {@code Retry-After} for up to {@link #PATIENCE}; every other answer is returned as it is.
     */
    private static Answer send(HttpRequest.Builder request, String token) {
        if (token != null) {
            request.header("Authorization", "Bearer " + token);
        }
        HttpRequest built = request.timeout(Duration.ofSeconds(60)).build();
        long deadline = System.nanoTime() + PATIENCE.toNanos();
        try {
            while (true) {
                HttpResponse<String> response = HTTP.send(built, HttpResponse.BodyHandlers.ofString());
                JsonNode body = response.body().isBlank() ? JSON.createObjectNode() : JSON.readTree(response.body());
                if (response.statusCode() != 503 || System.nanoTime() > deadline) {
                    return new Answer(response.statusCode(), body);
                }
                Thread.sleep(1000L * response.headers().firstValueAsLong("Retry-After").orElse(1));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    // --- the session API (as the agent) --------------------------------------------------------

    /** Creates a session in {@code mode} and returns its id. */
    String createSession(String mode) {
        return createSession(mode, AGENT);
    }

    /** Creates a session in {@code mode} as {@code agent} (a token of the tenant's agent) and returns its id. */
    String createSession(String mode, String agent) {
        return createSession(mode, agent, "s-" + UUID.randomUUID().toString().substring(0, 12));
    }

    /** Creates the session {@code id} in {@code mode} as {@code agent}, and returns its id. */
    String createSession(String mode, String agent, String id) {
        return createSession(mode, agent, id, List.of());
    }

    /**
     * Creates a session in {@code mode} whose harness runs {@code mutatingHarnessTools} (each mutating, with a reconcile
     * hook), and returns its id.
     */
    String createSessionRunning(String mode, String... mutatingHarnessTools) {
        return createSession(mode, AGENT, "s-" + UUID.randomUUID().toString().substring(0, 12), List.of(mutatingHarnessTools));
    }

    private String createSession(String mode, String agent, String id, List<String> mutatingHarnessTools) {
        ObjectNode body = JSON.createObjectNode().put("sessionId", id).put("objective", "Rename Foo to Bar in src/")
                .put("systemPrompt", "You are a careful engineer.").put("modelId", "claude-sonnet-4").put("toolMode", mode);
        if (!mutatingHarnessTools.isEmpty()) {
            ArrayNode tools = body.putArray("harnessTools");
            mutatingHarnessTools.forEach(t -> tools.addObject().put("name", t).put("mutating", true).put("canReconcile", true)
                    .put("recordedOnly", false));
        }
        Answer created = post(session.baseUrl() + "/v1/sessions", agent, body);
        if (created.status() != 201) {
            throw new AssertionError("cannot create a session: " + created);
        }
        return id;
    }

    /** A WRITE session whose workspace holds src/Foo.java and src/Main.java (which uses Foo); returns its id. */
    String sessionWithFoo() throws IOException {
        String id = createSession("WRITE");
        Path src = Files.createDirectories(workspaces.resolve(id).resolve("src"));
        Files.writeString(src.resolve("Foo.java"), "class Foo {\n}\n");
        Files.writeString(src.resolve("Main.java"), "class Main {\n    Foo foo;\n}\n");
        return id;
    }

    /** An {@code edit_file} call renaming Foo to Bar in {@code path}. */
    static Call renameFoo(String callId, String path) {
        return call(callId, "edit_file", "{\"path\":\"" + path + "\",\"old\":\"Foo\",\"new\":\"Bar\"}");
    }

    /** A tool call for {@link #ask}. */
    record Call(String callId, String tool, String argumentsJson) {}

    static Call call(String callId, String tool, String argumentsJson) {
        return new Call(callId, tool, argumentsJson);
    }

    /** The model asks for {@code calls}; returns the assistant message's seq. */
    long ask(String sessionId, Call... calls) {
        return ask(sessionId, AGENT, calls);
    }

    /** The model asks for {@code calls} in a session of {@code agent}'s tenant; returns the assistant message's seq. */
    long ask(String sessionId, String agent, Call... calls) {
        ObjectNode event = JSON.createObjectNode().put("eventId", UUID.randomUUID().toString()).put("type", "assistant_message")
                .put("content", "Let me do that.");
        ArrayNode toolCalls = event.putArray("toolCalls");
        for (Call c : calls) {
            toolCalls.addObject().put("callId", c.callId()).put("tool", c.tool()).put("argumentsJson", c.argumentsJson());
        }
        event.putObject("usage").put("inputTokens", 100).put("outputTokens", 20);
        return append(sessionId, agent, event);
    }

    /** Appends one event as {@code token}'s principal; returns its seq. */
    long append(String sessionId, String token, ObjectNode event) {
        ObjectNode body = JSON.createObjectNode();
        body.putArray("events").add(event);
        Answer answer = post(session.baseUrl() + "/v1/sessions/" + sessionId + "/events", token, body);
        if (answer.status() != 200) {
            throw new AssertionError("append refused: " + answer);
        }
        return answer.body().get("appended").get(0).get("seq").asLong();
    }

    /** The session's events, as the session API returns them. */
    List<JsonNode> events(String sessionId) {
        Answer page = get(session.baseUrl() + "/v1/sessions/" + sessionId + "/events?fromSeq=1&limit=1000", AGENT);
        if (page.status() != 200) {
            throw new AssertionError("cannot read the log: " + page);
        }
        var events = new ArrayList<JsonNode>();
        page.body().get("events").forEach(events::add);
        return events;
    }

    /** Waits for the first event of the session that passes {@code test}. */
    JsonNode awaitEvent(String sessionId, String what, Predicate<JsonNode> test) {
        return await(what).until(() -> events(sessionId).stream().filter(test).findFirst().orElse(null), e -> e != null);
    }

    static Predicate<JsonNode> is(String type, String callId) {
        return e -> e.get("type").asText().equals(type) && e.has("callId") && e.get("callId").asText().equals(callId);
    }

    static org.awaitility.core.ConditionFactory await(String what) {
        return org.awaitility.Awaitility.await(what).atMost(PATIENCE).pollInterval(Duration.ofMillis(250));
    }

    // --- the approval API ----------------------------------------------------------------------

    String approvals() {
        return approval.baseUrl() + "/v1/approvals";
    }

    /** Erases the session, as its agent may. */
    void erase(String sessionId) {
        Answer erased = send(HttpRequest.newBuilder(URI.create(session.baseUrl() + "/v1/sessions/" + sessionId)).DELETE(), AGENT);
        if (erased.status() != 200) {
            throw new AssertionError("cannot erase " + sessionId + ": " + erased);
        }
    }

    /** The pending item of {@code callId} in the session, once it is listed. */
    JsonNode awaitPending(String sessionId, String callId) {
        return awaitPending(sessionId, callId, item -> true);
    }

    /** The pending item of {@code callId} in the session that {@code matches}, once it is listed. */
    JsonNode awaitPending(String sessionId, String callId, java.util.function.Predicate<JsonNode> matches) {
        return awaitItem("PENDING", sessionId, callId, matches);
    }

    /**
     * The item of {@code callId} in the session, once it is listed, whatever its status: for an item that may end before a
     * poll of the pending ones sees it (one that expires in seconds, on a loaded machine).
     */
    JsonNode awaitItem(String sessionId, String callId) {
        return awaitItem("ALL", sessionId, callId, item -> true);
    }

    private JsonNode awaitItem(String status, String sessionId, String callId, java.util.function.Predicate<JsonNode> matches) {
        return await("an item for " + callId + " (status " + status + ")").until(() -> {
            Answer list = get(approvals() + "?status=" + status, APPROVER);
            if (list.status() != 200) {
                return null;
            }
            for (JsonNode item : list.body().get("approvals")) {
                if (item.get("callId").asText().equals(callId) && item.get("sessionId").asText().equals(sessionId) && matches.test(item)) {
                    return item;
                }
            }
            return null;
        }, item -> item != null);
    }

    Answer decide(String itemId, String token, Object body) {
        return post(approvals() + "/" + itemId + "/decision", token, body);
    }

    // --- topics ----------------------------------------------------------------------------------

    /** The tool requests the projector emitted so far, by idempotency key. */
    Map<String, ToolRequest> toolRequests() {
        @SuppressWarnings("resource")
        Deserializer<ToolRequest> deserializer = AvroSerdes.<ToolRequest>valueSerde(TetherStack.shared().registryUrl()).deserializer();
        var requests = new LinkedHashMap<String, ToolRequest>();
        String topic = layout.name(Topics.TOOL_REQUESTS);
        TopicReader.readAll(topic).forEach(r -> requests.put(new String(r.key(), java.nio.charset.StandardCharsets.UTF_8),
                deserializer.deserialize(topic, r.value())));
        return requests;
    }

    static ObjectNode json() {
        return JSON.createObjectNode();
    }
}
