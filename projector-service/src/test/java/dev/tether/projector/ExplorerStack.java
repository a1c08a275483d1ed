package dev.tether.projector;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tether.avro.SessionCommand;
import dev.tether.core.auth.TetherPrincipal;
import dev.tether.core.event.Actor;
import dev.tether.core.event.ActorKind;
import dev.tether.core.event.EventPayload;
import dev.tether.core.event.ProposedEvent;
import dev.tether.kit.kafka.AvroSerdes;
import dev.tether.kit.kafka.SessionCommands;
import dev.tether.kit.kafka.TopicLayout;
import dev.tether.kit.kafka.Topics;
import dev.tether.testing.ServiceProcess;
import dev.tether.testing.TetherStack;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Predicate;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * The session-service and the projector-service, each run from its packaged jar as its own process against the JVM's
 * real broker and registry, on topics of their own (a prefix); the projector relays the session-service's live stream.
 * Plus the calls the explorer's test makes: the session API as an agent and an approver, and the answers the
 * approval-service would give, written to {@code session-commands} in its name as it writes them
 * ({@link SessionCommands}), since the approval-service module is built after this one (its own tests run this service).
 * {@link #close()} stops every process it started, by PID, and deletes its directory.
 */
final class ExplorerStack implements AutoCloseable {

    static final String AGENT = "dev-acme-agent";
    static final String APPROVER = "dev-acme-approver";
    static final String FOREIGN_AGENT = "dev-globex-agent";
    static final Duration PATIENCE = Duration.ofSeconds(90);
    /** Where the page links a trace id: a tracing backend's trace view. */
    static final String TRACE_URL = "http://tracing.example/trace/{traceId}";

    private static final Path ROOT = Path.of(System.getProperty("tether-test.root", "..")).toAbsolutePath().normalize();
    static final ObjectMapper JSON = new ObjectMapper();
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    final String prefix;
    final TopicLayout layout;
    final Path workDir;
    final ServiceProcess session;
    final ServiceProcess projector;
    private final Serde<SessionCommand> commandSerde;
    private final KafkaProducer<String, SessionCommand> commands;

    private ExplorerStack(String name, Map<String, String> projectorSettings) throws IOException {
        prefix = name + "-" + UUID.randomUUID().toString().substring(0, 8) + ".";
        layout = TopicLayout.local().withPrefix(prefix);
        workDir = Files.createTempDirectory("explorer-it-");
        var env = ServiceProcess.env("TETHER_TOPICS_PREFIX", prefix, "TETHER_SESSIONS_BLOBS_DIR", workDir.resolve("blobs").toString());
        session = new ServiceProcess(ROOT.resolve("session-service"), workDir.resolve("session-service"), env, List.of());
        var projectorEnv = new HashMap<>(env);
        projectorEnv.put("TETHER_PROJECTOR_SESSION_SERVICE_URL", session.baseUrl());
        projectorEnv.put("TETHER_PROJECTOR_EXPLORER_TRACE_URL", TRACE_URL);
        projectorEnv.putAll(projectorSettings);
        projector = new ServiceProcess(ROOT.resolve("projector-service"), workDir.resolve("projector-service"), projectorEnv, List.of());
        TetherStack stack = TetherStack.shared();
        commandSerde = AvroSerdes.valueSerde(stack.registryUrl());
        var config = new HashMap<>(stack.clientConfig());
        config.put(ProducerConfig.ACKS_CONFIG, "all");
        commands = new KafkaProducer<>(config, new StringSerializer(), commandSerde.serializer());
    }

    /** Starts the session-service, then the projector (each creates the topics it misses). */
    static ExplorerStack start(String name) throws IOException {
        return start(name, Map.of());
    }

    /** As {@link #start(String)}, the projector with {@code projectorSettings} (environment variables) besides. */
    static ExplorerStack start(String name, Map<String, String> projectorSettings) throws IOException {
        var stack = new ExplorerStack(name, projectorSettings);
        try {
            stack.session.start();
            stack.projector.start();
            return stack;
        } catch (RuntimeException e) {
            stack.close();
            throw e;
        }
    }

    @Override
    public void close() {
        commands.close();
        commandSerde.close();
        projector.close();
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

    static Answer delete(String url, String token) {
        return send(HttpRequest.newBuilder(URI.create(url)).DELETE(), token);
    }

    static Answer post(String url, String token, JsonNode body) {
        return send(HttpRequest.newBuilder(URI.create(url)).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body.toString())), token);
    }

    /** Sends as a well-behaved client: a 503 is retried after its {@code Retry-After} for up to {@link #PATIENCE}. */
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

    static ObjectNode json() {
        return JSON.createObjectNode();
    }

    static Answer ok(Answer answer, String what) {
        if (answer.status() / 100 != 2) {
            throw new AssertionError(what + ": " + answer);
        }
        return answer;
    }

    // --- the session API -----------------------------------------------------------------------------

    String sessions() {
        return session.baseUrl() + "/v1/sessions";
    }

    String projections() {
        return projector.baseUrl() + "/v1/sessions";
    }

    /** Creates a session from {@code body} (its sessionId included) as {@code token}. */
    void create(String token, ObjectNode body) {
        ok(post(sessions(), token, body), "create " + body.path("sessionId").asText());
    }

    /** {@code workerId} claims the session; returns its epoch. */
    long claim(String sessionId, String workerId) {
        return ok(post(sessions() + "/" + sessionId + "/claim", AGENT, json().put("workerId", workerId).put("harnessVersion", "v1")),
                "claim").body().get("epoch").asLong();
    }

    /** Appends {@code events} as {@code token}, with the worker's {@code epoch} (null for none); returns the seq of each. */
    List<Long> append(String sessionId, String token, Long epoch, ObjectNode... events) {
        ObjectNode body = json();
        if (epoch != null) {
            body.put("epoch", epoch);
        }
        ArrayNode list = body.putArray("events");
        for (ObjectNode e : events) {
            if (!e.has("eventId")) {
                e.put("eventId", UUID.randomUUID().toString());
            }
            list.add(e);
        }
        var seqs = new ArrayList<Long>();
        ok(post(sessions() + "/" + sessionId + "/events", token, body), "append to " + sessionId).body().get("appended")
                .forEach(a -> seqs.add(a.get("seq").asLong()));
        return seqs;
    }

    /** Appends {@code payloads} in the approval-service's name, as it answers a call: a command the sequencer decides. */
    void answerAsTheApprovalService(String sessionId, EventPayload... payloads) {
        var events = new ArrayList<ProposedEvent>();
        for (EventPayload p : payloads) {
            events.add(new ProposedEvent(UUID.randomUUID().toString(), new Actor(ActorKind.SYSTEM, "approval-service"), p));
        }
        SessionCommand command = SessionCommands.append(UUID.randomUUID().toString(), sessionId, "acme",
                TetherPrincipal.service("approval-service", "acme"), events, Instant.now());
        try {
            commands.send(new ProducerRecord<>(layout.name(Topics.SESSION_COMMANDS), sessionId, command)).get();
        } catch (Exception e) {
            throw new IllegalStateException("could not write the approval-service's answer", e);
        }
    }

    /** The session's events, as the session-service returns them, all pages. */
    List<JsonNode> events(String sessionId) {
        var events = new ArrayList<JsonNode>();
        long from = 1;
        while (true) {
            JsonNode page = ok(get(sessions() + "/" + sessionId + "/events?fromSeq=" + from + "&limit=1000", AGENT), "read the log").body();
            page.get("events").forEach(events::add);
            from = page.get("nextSeq").asLong();
            if (page.get("events").isEmpty() || from > page.get("lastSeq").asLong()) {
                return events;
            }
        }
    }

    /** Waits for the first event of the session that passes {@code test}. */
    JsonNode awaitEvent(String sessionId, String what, Predicate<JsonNode> test) {
        return org.awaitility.Awaitility.await(what).atMost(PATIENCE).pollInterval(Duration.ofMillis(200))
                .until(() -> events(sessionId).stream().filter(test).findFirst().orElse(null), e -> e != null);
    }

    /** Waits until the projection has folded {@code seq} of the session, and returns its checkpoint then. */
    JsonNode awaitFolded(String sessionId, long seq) {
        return ok(get(projections() + "/" + sessionId + "/checkpoint?minSeq=" + seq, AGENT), "the checkpoint at " + seq).body();
    }

    static Predicate<JsonNode> is(String type, String callId) {
        return e -> e.get("type").asText().equals(type) && e.path("callId").asText().equals(callId);
    }
}
