package dev.tether.projector;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tether.core.event.SessionStarted;
import dev.tether.core.event.UserMessage;
import dev.tether.kit.kafka.TopicLayout;
import dev.tether.testing.ServiceProcess;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * Two projector instances share the partitions; a fork lives in its own partition and its parent usually in another,
 * held by the other instance. The fork's context, asked of either instance, is the parent's at the fork point
 * followed by the fork's own events; another tenant reads neither the fork nor the parent's events.
 */
class ForkAcrossInstancesIT {

    private static final int FORKS = 8;
    private static final long FORK_POINT = 3;

    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    private final ObjectMapper json = new ObjectMapper();

    @Test
    void forksContext_fromEitherInstance_isTheParentsAtTheForkPointThenItsOwn_whenTheParentIsHeldElsewhere() throws Exception {
        String prefix = "fork-" + UUID.randomUUID().toString().substring(0, 8) + ".";
        TopicLayout layout = TopicLayout.local().withPrefix(prefix);
        Path dirA = Files.createTempDirectory("projector-a-");
        Path dirB = Files.createTempDirectory("projector-b-");
        var env = ServiceProcess.env("TETHER_TOPICS_PREFIX", prefix);
        String parent = prefix + "parent";
        String strangersFork = prefix + "globex-fork";
        var forks = new ArrayList<String>();
        SessionStarted start = ProjectionApiIT.started();
        try (var a = new ServiceProcess(Path.of("").toAbsolutePath(), dirA, env, List.of()).start();
                var b = new ServiceProcess(Path.of("").toAbsolutePath(), dirB, env, List.of()).start();
                var acme = new EventWriter(layout, "acme");
                var globex = new EventWriter(layout, "globex")) {
            acme.session(parent).add(start, new UserMessage("parent one", null), new UserMessage("parent two", null),
                    new UserMessage("parent after the fork", null));
            for (int i = 0; i < FORKS; i++) {
                String fork = prefix + "fork" + i;
                forks.add(fork);
                // the first event of a fork as the session-service's POST /v1/sessions/{id}/fork appends it
                acme.session(fork).add(ProjectionApiIT.forkOf(parent, FORK_POINT, start), new UserMessage("fork " + i + " one", null),
                        new UserMessage("fork " + i + " two", null));
            }
            // another tenant's fork naming acme's session as its parent (the session-service would refuse it)
            globex.session(strangersFork).add(ProjectionApiIT.forkOf(parent, FORK_POINT, start), new UserMessage("stranger", null));
            List<ServiceProcess> instances = List.of(a, b);

            // a request that times out or answers 503 while the two instances still rebalance is asked again
            await().atMost(Duration.ofMinutes(3)).pollInterval(Duration.ofMillis(500)).ignoreExceptionsInstanceOf(java.io.IOException.class)
                    .untilAsserted(() -> {
                for (ServiceProcess instance : instances) {
                    assertThat(lastSeq(instance, parent)).isEqualTo(4);
                    for (String fork : forks) {
                        assertThat(lastSeq(instance, fork)).isEqualTo(3);
                    }
                }
            });
            // which instance holds which session (a forwarded read is answered only by the holder), once both hold some:
            // both answering for every session does not mean that yet (the rebalance giving the second its share may
            // still be going on, the first holding all)
            await().atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofSeconds(1)).ignoreExceptionsInstanceOf(IllegalStateException.class)
                    .untilAsserted(() -> {
                boolean parentOnA = holds(a, parent);
                assertThat(holds(b, parent)).as("the parent held by one instance").isNotEqualTo(parentOnA);
                long forksElsewhere = forks.stream().filter(fork -> holds(a, fork) != parentOnA && holds(b, fork) == parentOnA).count();
                assertThat(forksElsewhere).as("forks whose partition the instance not holding the parent holds").isPositive();
            });

            List<JsonNode> parentAtFork = new ArrayList<>();
            json.readTree(await200(a, "/v1/sessions/" + parent + "/context?atSeq=" + FORK_POINT, "dev-acme-agent")).get("messages")
                    .forEach(parentAtFork::add);
            List<JsonNode> parentPrefix = parentAtFork.subList(0, parentAtFork.size() - 1); // without its volatile tail
            for (String fork : forks) {
                for (ServiceProcess instance : instances) {
                    List<JsonNode> messages = new ArrayList<>();
                    json.readTree(await200(instance, "/v1/sessions/" + fork + "/context", "dev-acme-agent")).get("messages")
                            .forEach(messages::add);
                    String i = fork.substring(fork.lastIndexOf("fork") + 4);
                    assertThat(messages.subList(0, parentPrefix.size())).as("%s from %s: the parent's context at seq %d", fork,
                            instance.baseUrl(), FORK_POINT).isEqualTo(parentPrefix);
                    assertThat(messages.subList(parentPrefix.size(), parentPrefix.size() + 2)).extracting(m -> m.get("content").asText())
                            .as("%s from %s: then its own", fork, instance.baseUrl()).containsExactly("fork " + i + " one", "fork " + i + " two");
                    assertThat(messages.toString()).doesNotContain("parent after the fork");
                }
            }

            for (ServiceProcess instance : instances) {
                assertThat(status(instance, "/v1/sessions/" + forks.get(0) + "/context", "dev-globex-agent")).isEqualTo(404);
                assertThat(status(instance, "/v1/sessions/" + parent + "/events", "dev-globex-agent")).isEqualTo(404);
                assertThat(status(instance, "/v1/sessions/" + strangersFork + "/context", "dev-globex-agent"))
                        .as("another tenant's fork of acme's session: its parent is gone to it").isEqualTo(410);
                JsonNode events = json.readTree(await200(instance, "/v1/sessions/" + parent + "/events?fromSeq=2&toSeq=3", "dev-acme-agent"));
                assertThat(events.get("events")).extracting(e -> e.get("seq").asLong()).containsExactly(2L, 3L);
            }
        } finally {
            for (Path dir : List.of(dirA, dirB)) {
                try (var paths = Files.walk(dir)) {
                    paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
                }
            }
        }
    }

    private long lastSeq(ServiceProcess instance, String session) throws Exception {
        var response = get(instance, "/v1/sessions/" + session + "/checkpoint", "dev-acme-agent", false);
        assertThat(response.statusCode()).as("%s from %s: %s", session, instance.baseUrl(), response.body()).isEqualTo(200);
        return json.readTree(response.body()).get("lastSeq").asLong();
    }

    private boolean holds(ServiceProcess instance, String session) {
        try {
            return get(instance, "/v1/sessions/" + session + "/checkpoint", "dev-acme-agent", true).statusCode() == 200;
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /** The body of a 200, asked again while the answer is a 503 (a rebalance) or the request times out. */
    private String await200(ServiceProcess instance, String path, String token) {
        String[] body = new String[1];
        await().atMost(Duration.ofMinutes(3)).pollInterval(Duration.ofMillis(500)).ignoreExceptionsInstanceOf(java.io.IOException.class)
                .untilAsserted(() -> {
            var response = get(instance, path, token, false);
            assertThat(response.statusCode()).as("%s from %s: %s", path, instance.baseUrl(), response.body()).isEqualTo(200);
            body[0] = response.body();
        });
        return body[0];
    }

    /** The status, asked again while it is a 503 or the request times out. */
    private int status(ServiceProcess instance, String path, String token) {
        int[] status = new int[1];
        await().atMost(Duration.ofMinutes(3)).pollInterval(Duration.ofMillis(500)).ignoreExceptionsInstanceOf(java.io.IOException.class)
                .untilAsserted(() -> {
            status[0] = get(instance, path, token, false).statusCode();
            assertThat(status[0]).isNotEqualTo(503);
        });
        return status[0];
    }

    private HttpResponse<String> get(ServiceProcess instance, String path, String token, boolean forwarded) throws Exception {
        var request = HttpRequest.newBuilder(URI.create(instance.baseUrl() + path)).header("Authorization", "Bearer " + token)
                .timeout(Duration.ofSeconds(10));
        if (forwarded) {
            request.header("X-Tether-Forwarded", "1");
        }
        return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }
}
