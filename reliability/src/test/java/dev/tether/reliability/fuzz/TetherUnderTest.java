package dev.tether.reliability.fuzz;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tether.testing.ServiceProcess;
import dev.tether.testing.TetherStack;
import dev.tether.testing.TopicReader;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * The four services, each from its packaged jar as its own process, against the JVM's real broker and registry, on
 * topics of their own (a prefix): started once for both ITs of this package, stopped by PID when the JVM exits (the
 * stack's own hook stops the broker and the registry). They trust dev keys and JWTs of {@link Tokens#TRUSTED}.
 * Not thread-safe beyond {@link #shared()}.
 */
final class TetherUnderTest {

    enum Service {
        SESSION("session-service"), PROJECTOR("projector-service"), APPROVAL("approval-service"), EXECUTOR("tool-executor");

        final String module;

        Service(String module) {
            this.module = module;
        }
    }

    static final Path ROOT = Path.of(System.getProperty("tether-test.root", "..")).toAbsolutePath().normalize();
    static final Duration PATIENCE = Duration.ofSeconds(90);
    private static TetherUnderTest shared;

    final String prefix;
    private final Path workDir;
    private final Map<Service, ServiceProcess> services = new EnumMap<>(Service.class);

    private TetherUnderTest() throws IOException {
        prefix = "fuzz-" + UUID.randomUUID().toString().substring(0, 8) + ".";
        workDir = Files.createTempDirectory("tether-fuzz-");
        Path workspaces = Files.createDirectories(workDir.resolve("workspaces"));
        var env = ServiceProcess.env("TETHER_TOPICS_PREFIX", prefix, "TETHER_WORKSPACE_ROOT", workspaces.toString(),
                "TETHER_SESSIONS_BLOBS_DIR", workDir.resolve("blobs").toString(),
                "MP_JWT_VERIFY_PUBLICKEY", Tokens.trustedPublicKey(), "TETHER_JWT_ISSUER", Tokens.ISSUER);
        for (Service s : Service.values()) {
            var own = new HashMap<>(env);
            if (s == Service.PROJECTOR) {
                // the live stream the projector relays (the session explorer's) comes from this session-service
                own.put("TETHER_PROJECTOR_SESSION_SERVICE_URL", services.get(Service.SESSION).baseUrl());
            }
            services.put(s, new ServiceProcess(ROOT.resolve(s.module), workDir.resolve(s.module), own, List.of()));
        }
    }

    /** The running services, started on the first call. */
    static synchronized TetherUnderTest shared() {
        if (shared == null) {
            TetherStack.shared();
            try {
                var started = new TetherUnderTest();
                Runtime.getRuntime().addShutdownHook(new Thread(started::close, "fuzz-services-stop"));
                for (Service s : Service.values()) {
                    long t0 = System.nanoTime();
                    started.services.get(s).start();
                    System.out.printf("%s ready at %s in %d ms%n", s.module, started.url(s), (System.nanoTime() - t0) / 1_000_000);
                }
                shared = started;
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        }
        return shared;
    }

    String url(Service service) {
        return services.get(service).baseUrl();
    }

    /** Every service answers 200 on {@code /q/health/ready} and its process is alive. */
    List<String> unhealthy() {
        var problems = new ArrayList<String>();
        for (Service s : Service.values()) {
            if (!services.get(s).isAlive()) {
                problems.add(s.module + " is not running");
                continue;
            }
            var ready = Http.send(Http.Call.of("GET", url(s) + "/q/health/ready", null));
            if (ready.status() != 200) {
                problems.add(s.module + " /q/health/ready answered " + ready);
            }
        }
        return problems;
    }

    /**
     * Runs in a shutdown hook, beside the stack's own (which stops the broker): the services get SIGTERM all at once and
     * a short while to stop, then SIGKILL, so none outlives the test JVM (a service whose broker is gone may not stop on
     * SIGTERM, and the build does not wait long for a JVM that exits).
     */
    private void close() {
        var stopping = services.values().stream().map(p -> {
            Thread t = new Thread(p::stop, "fuzz-stop");
            t.start();
            return t;
        }).toList();
        for (Thread t : stopping) {
            try {
                t.join(10_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        services.values().stream().filter(ServiceProcess::isAlive).forEach(ServiceProcess::kill);
        // keep the services' logs for a look after a failure; the rest goes
        Path logs = ROOT.resolve("reliability/target/fuzz-service-logs");
        try {
            Files.createDirectories(logs);
            for (var e : services.entrySet()) {
                if (Files.exists(e.getValue().log())) {
                    Files.copy(e.getValue().log(), logs.resolve(e.getKey().module + ".log"), StandardCopyOption.REPLACE_EXISTING);
                }
            }
        } catch (IOException e) {
            // logs are a convenience
        }
        try (var paths = Files.walk(workDir)) {
            paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            // a temporary directory left behind is not worth failing for
        }
    }

    // --- the few calls that set the scene --------------------------------------------------------

    /** Creates a session of {@code tenant} in {@code mode} ({@code READ_ONLY}/{@code WRITE}) and returns its id. */
    String createSession(String tenant, String mode, String label) {
        String id = label + "-" + UUID.randomUUID().toString().substring(0, 8);
        ObjectNode body = Http.JSON.createObjectNode().put("sessionId", id).put("objective", "Rename Foo to Bar in src/")
                .put("systemPrompt", "You are a careful engineer.").put("modelId", "fuzz-model").put("toolMode", mode)
                .put("harnessVersion", "v1");
        var created = retrying(Http.Call.of("POST", url(Service.SESSION) + "/v1/sessions", Tokens.of(tenant, "agent"))
                .withJson(body.toString()));
        if (created.status() != 201) {
            throw new AssertionError("cannot create a session: " + created);
        }
        return id;
    }

    /** Appends one event as {@code token}'s principal; returns the answer's body. */
    JsonNode append(String sessionId, String token, ObjectNode event) {
        ObjectNode body = Http.JSON.createObjectNode();
        body.putArray("events").add(event);
        var answer = retrying(Http.Call.of("POST", url(Service.SESSION) + "/v1/sessions/" + sessionId + "/events", token)
                .withJson(body.toString()));
        if (answer.status() != 200) {
            throw new AssertionError("append refused: " + answer);
        }
        return answer.json();
    }

    static ObjectNode userMessage(String content) {
        return Http.JSON.createObjectNode().put("eventId", UUID.randomUUID().toString()).put("type", "user_message").put("content", content);
    }

    /** An assistant message asking for one tool call. */
    static ObjectNode toolCall(String callId, String tool, String argumentsJson) {
        ObjectNode event = Http.JSON.createObjectNode().put("eventId", UUID.randomUUID().toString()).put("type", "assistant_message")
                .put("content", "Let me do that.");
        ArrayNode calls = event.putArray("toolCalls");
        calls.addObject().put("callId", callId).put("tool", tool).put("argumentsJson", argumentsJson);
        event.putObject("usage").put("inputTokens", 10).put("outputTokens", 5);
        return event;
    }

    /** The whole log of a session as its owner reads it. */
    List<JsonNode> events(String sessionId, String token) {
        var answer = retrying(Http.Call.of("GET", url(Service.SESSION) + "/v1/sessions/" + sessionId + "/events?fromSeq=1&limit=1000", token));
        if (answer.status() != 200) {
            throw new AssertionError("cannot read the log of " + sessionId + ": " + answer);
        }
        var events = new ArrayList<JsonNode>();
        answer.json().get("events").forEach(events::add);
        return events;
    }

    /** The pending approval item of {@code callId}, once the approval-service lists it. */
    String awaitPendingItem(String sessionId, String callId, String approverToken) {
        return await("a pending approval of " + callId, () -> {
            var list = Http.send(Http.Call.of("GET", url(Service.APPROVAL) + "/v1/approvals?status=PENDING", approverToken));
            if (list.status() != 200) {
                return null;
            }
            for (JsonNode item : list.json().get("approvals")) {
                if (item.get("sessionId").asText().equals(sessionId) && item.get("callId").asText().equals(callId)) {
                    return item.get("id").asText();
                }
            }
            return null;
        }, x -> x != null);
    }

    /** The first event of the session that passes {@code test}, once it is there. */
    JsonNode awaitEvent(String sessionId, String token, String what, Predicate<JsonNode> test) {
        return await(what, () -> events(sessionId, token).stream().filter(test).findFirst().orElse(null), x -> x != null);
    }

    /** Polls {@code value} until it passes {@code done} (generously: the machine is shared and slow). */
    static <T> T await(String what, Supplier<T> value, Predicate<T> done) {
        long deadline = System.nanoTime() + PATIENCE.toNanos();
        T last = null;
        while (System.nanoTime() < deadline) {
            last = value.get();
            if (done.test(last)) {
                return last;
            }
            try {
                Thread.sleep(200);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }
        throw new AssertionError("waited " + PATIENCE + " for " + what + "; last seen: " + last);
    }

    /** A set-up call that retries a 503 (state restoring after start) like a well-behaved client. */
    private static Http.Answer retrying(Http.Call call) {
        return await("an answer other than 503 to " + call, () -> Http.send(call), a -> a.status() != 503);
    }

    // --- the raw log -----------------------------------------------------------------------------

    /** Committed records of {@code session-events} (this run's prefix) per session id, tombstones included. */
    Map<String, Integer> rawRecordsBySession() {
        var counts = new TreeMap<String, Integer>();
        for (var r : TopicReader.readAll(prefix + "session-events")) {
            counts.merge(sessionIdOf(r.key()), 1, Integer::sum);
        }
        return counts;
    }

    /** The session id in a {@code session-events} key: format byte 1, a 2-byte length, the UTF-8 id, the 8-byte seq. */
    private static String sessionIdOf(byte[] key) {
        ByteBuffer buffer = ByteBuffer.wrap(key);
        if (buffer.get() != 1) {
            throw new IllegalStateException("not a session-events key of format 1");
        }
        int length = Short.toUnsignedInt(buffer.getShort());
        return new String(key, 3, length, StandardCharsets.UTF_8);
    }
}
