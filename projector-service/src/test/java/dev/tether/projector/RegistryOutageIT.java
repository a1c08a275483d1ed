package dev.tether.projector;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tether.core.event.EventPayload;
import dev.tether.kit.kafka.TopicLayout;
import dev.tether.testing.ServiceProcess;
import dev.tether.testing.TcpProxy;
import dev.tether.testing.TetherStack;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * Issue 15 §1 on the real stack: a registry that does not answer stalls no stream thread for good, and the projector
 * catches up by itself, every event folded once and every authorized call asked for once.
 *
 * <ol>
 *   <li>The projector starts with its registry URL pointing at a {@link TcpProxy} that black-holes (accepts
 *       connections, answers nothing): its lookups fail at their deadline, its readiness names the registry as
 *       unreachable; then the proxy forwards to the real registry and the projector catches up.</li>
 *   <li>The real registry is SIGKILLed; events flow and the projector restarts while it is down (every lookup is a
 *       new one then); the registry restarts on the same port with its storage (same schema ids) and the projector
 *       catches up again.</li>
 * </ol>
 *
 * <p>Before the fix the projector's stream thread parked in the serde's lookup ({@code CompletableFuture.get()} with
 * no timeout) on the first black-holed request and never came back: the first catch-up never happened. The SIGSTOP
 * variant (60 s frozen registry) is in the reliability run ({@code reliability/run}, faults {@code registry-stop} and
 * {@code registry-kill}), not here: the 60 s are inherent.
 */
class RegistryOutageIT {

    /** How long catching up may take once the registry answers again (the bound). */
    private static final Duration CATCH_UP = Duration.ofSeconds(60);

    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(2)).build();
    private final ObjectMapper json = new ObjectMapper();

    @Test
    void aSilentRegistry_thenAKilledOne_stallNoStreamThread_andTheProjectorCatchesUpByItself_exactlyOnce() throws Exception {
        String prefix = "regout-" + UUID.randomUUID().toString().substring(0, 8) + ".";
        TopicLayout layout = TopicLayout.local().withPrefix(prefix);
        TetherStack stack = TetherStack.shared();
        Path workDir = Files.createTempDirectory("registry-outage-");
        String sessionId = prefix + "s";
        try (var proxy = TcpProxy.to(stack.registryUrl(), TcpProxy.Mode.BLACK_HOLE);
             var service = new ServiceProcess(Path.of("").toAbsolutePath(), workDir, ServiceProcess.env(
                     "TETHER_TOPICS_PREFIX", prefix,
                     "TETHER_REGISTRY_URL", proxy.rewrite(stack.registryUrl()),
                     "TETHER_REGISTRY_CONNECT_TIMEOUT", "PT1S",
                     "TETHER_REGISTRY_REQUEST_TIMEOUT", "PT4S"), List.of());
             var writer = new EventWriter(layout, "acme")) {
            // (a) a registry that accepts connections and never answers, from the projector's first lookup on
            service.launch();
            String registry = proxy.rewrite(stack.registryUrl());
            awaitRegistryDown(service, registry);
            EventWriter.Session session = writer.session(sessionId).add(ProjectionApiIT.started());
            writeSteps(session, 0, 5);
            Thread.sleep(12_000); // past a lookup's deadline (1 s + 4 s, twice, and 0.5 s): the stream thread has failed on it
            assertThat(lastSeq(service, sessionId)).as("nothing folded while the registry is silent").isLessThan(session.lastSeq());

            proxy.mode(TcpProxy.Mode.FORWARD);
            awaitLastSeq(service, sessionId, session.lastSeq());
            service.awaitReady(CATCH_UP);

            // (c) the registry SIGKILLed while events flow and while the projector starts; restarted on its port
            stack.killRegistry();
            try {
                service.kill();
                writeSteps(session, 5, 10); // the writer's serde knows its schema: no lookup
                service.launch();
                awaitRegistryDown(service, registry);
            } finally {
                stack.restartRegistry();
            }
            awaitLastSeq(service, sessionId, session.lastSeq());
            service.awaitReady(CATCH_UP);

            // keys are <session>/<seq of the call>/<call id>
            assertThat(ProjectorCrashIT.committedToolRequestKeys(layout, sessionId, 10).stream().map(k -> k.substring(k.lastIndexOf('/') + 1)))
                    .as("one tool request per authorized call: none lost, none asked for twice")
                    .containsExactlyInAnyOrderElementsOf(IntStream.range(0, 10).mapToObj(i -> "c" + i).toList());
        } finally {
            // the service's log, for a failure (the work directory goes)
            Path log = workDir.resolve("service.log");
            if (Files.exists(log)) {
                Files.copy(log, Path.of("target", "registry-outage-service.log"), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
            }
            try (var paths = Files.walk(workDir)) {
                paths.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }

    private static void writeSteps(EventWriter.Session session, int from, int to) {
        for (int step = from; step < to; step++) {
            session.add(ProjectorCrashIT.step(session.sessionId, step, session.lastSeq() + 1).toArray(EventPayload[]::new));
        }
    }

    /**
     * Readiness is DOWN, its registry check names {@code registry} as unreachable, and start-up has made the topics
     * and waits for the registry to register the schemas (so the events written next land on the right topics).
     */
    private void awaitRegistryDown(ServiceProcess service, String registry) {
        // as long as ServiceProcess.start() gives a start on a loaded machine; it is usually a few seconds
        await().atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(500)).ignoreExceptions().until(() -> {
            var response = http.send(HttpRequest.newBuilder(URI.create(service.baseUrl() + "/q/health/ready"))
                    .timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.ofString());
            if (response.statusCode() != 503) {
                return false;
            }
            boolean registryDown = false;
            boolean topicsMade = false;
            for (JsonNode check : json.readTree(response.body()).get("checks")) {
                JsonNode data = check.path("data");
                switch (check.get("name").asText()) {
                    case "tether-schema-registry" -> registryDown = check.get("status").asText().equals("DOWN")
                            && data.path("registry").asText().equals(registry) && data.path("state").asText().equals("unreachable");
                    case "tether-topics-and-schemas" -> topicsMade = data.path("reason").asText().contains("schema registry");
                    default -> { }
                }
            }
            return registryDown && topicsMade;
        });
    }

    private void awaitLastSeq(ServiceProcess service, String sessionId, long seq) {
        await().atMost(CATCH_UP).pollInterval(Duration.ofMillis(300)).ignoreExceptions()
                .until(() -> lastSeq(service, sessionId) >= seq);
    }

    private long lastSeq(ServiceProcess service, String sessionId) throws Exception {
        var response = http.send(HttpRequest.newBuilder(URI.create(service.baseUrl() + "/v1/sessions/" + sessionId + "/checkpoint"))
                .header("Authorization", "Bearer dev-acme-agent").timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
        return response.statusCode() == 200 ? json.readTree(response.body()).get("lastSeq").asLong() : -1;
    }
}
