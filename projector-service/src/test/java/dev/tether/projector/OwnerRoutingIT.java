package dev.tether.projector;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tether.core.event.UserMessage;
import dev.tether.kit.kafka.SessionPartitioner;
import dev.tether.kit.kafka.TopicLayout;
import dev.tether.projector.domain.SessionOverview;
import dev.tether.testing.ServiceProcess;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two projector instances share the partitions: a read sent to either instance answers for every
 * session, served locally or forwarded to the instance that holds the session's partition; with standbys, from a warm
 * copy while the partition changes hands.
 */
class OwnerRoutingIT {

    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    private final ObjectMapper json = new ObjectMapper();

    /** The two instances' work directories (state, logs). */
    @TempDir
    Path dirA;
    @TempDir
    Path dirB;

    @Test
    void eitherInstance_answersForEverySession() throws Exception {
        String prefix = "route-" + UUID.randomUUID().toString().substring(0, 8) + ".";
        var env = ServiceProcess.env("TETHER_TOPICS_PREFIX", prefix);
        try (var a = new ServiceProcess(Path.of("").toAbsolutePath(), dirA, env, List.of()).start();
                var b = new ServiceProcess(Path.of("").toAbsolutePath(), dirB, env, List.of()).start()) {
            List<String> sessions = twelveSessions(prefix);
            awaitBothHoldSome(a, b, sessions);
            // a request that times out while the two instances still rebalance (slow on a loaded machine) is asked again
            await().atMost(Duration.ofMinutes(3)).pollInterval(Duration.ofMillis(500)).ignoreExceptionsInstanceOf(java.io.IOException.class)
                    .untilAsserted(() -> {
                for (String id : sessions) {
                    for (ServiceProcess instance : List.of(a, b)) {
                        var response = get(instance, "/v1/sessions/" + id + "/checkpoint");
                        assertThat(response.statusCode()).as("%s from %s: %s", id, instance.baseUrl(), response.body()).isEqualTo(200);
                        assertThat(json.readTree(response.body()).get("lastSeq").asLong()).isEqualTo(2);
                    }
                }
            });

            // the list, a page of five at a time from either instance: every session once, most recently active first
            for (ServiceProcess instance : List.of(a, b)) {
                var listed = new ArrayList<JsonNode>();
                String after = null;
                int pages = 0;
                do {
                    var response = get(instance, "/v1/sessions?limit=5" + (after == null ? ""
                            : "&after=" + java.net.URLEncoder.encode(after, java.nio.charset.StandardCharsets.UTF_8)));
                    assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
                    JsonNode page = json.readTree(response.body());
                    assertThat(page.get("sessions").size()).isBetween(1, 5);
                    page.get("sessions").forEach(listed::add);
                    after = page.hasNonNull("nextAfter") ? page.get("nextAfter").asText() : null;
                    pages++;
                } while (after != null && pages < 10);
                assertThat(pages).as("12 sessions in pages of 5").isEqualTo(3);
                assertThat(listed).extracting(o -> o.get("sessionId").asText()).filteredOn(id -> id.startsWith(prefix))
                        .containsExactlyInAnyOrderElementsOf(sessions).doesNotHaveDuplicates();
                var places = listed.stream().map(o -> new SessionOverview.Place(Instant.parse(o.get("lastActivity").asText()),
                        o.get("sessionId").asText())).toList();
                assertThat(places).isSortedAccordingTo(SessionOverview.Place.ORDER);
            }
            assertThat(get(a, "/v1/sessions?after=yesterday").body()).contains("\"field\":\"after\"");
            assertThat(get(a, "/v1/sessions?limit=0").statusCode()).isEqualTo(400);
        }
    }

    /**
     * With standbys, a SIGKILLed instance's sessions are read from the other's warm copy at once: their checkpoint,
     * recovery report and context answer through the survivor long before the group, with a 60 s session timeout here,
     * could notice the death and hand it the partitions. A read asking for a seq the copy does not have still waits and
     * answers 503.
     */
    @Test
    void aKilledInstancesSessions_areReadFromTheOthersWarmCopy_beforeTheGroupHandsThemOver() throws Exception {
        String prefix = "copy-" + UUID.randomUUID().toString().substring(0, 8) + ".";
        var env = ServiceProcess.env("TETHER_TOPICS_PREFIX", prefix, "KAFKA_STREAMS_NUM_STANDBY_REPLICAS", "1",
                "KAFKA_STREAMS_SESSION_TIMEOUT_MS", "60000");
        try (var a = new ServiceProcess(Path.of("").toAbsolutePath(), dirA, env, List.of()).start();
                var b = new ServiceProcess(Path.of("").toAbsolutePath(), dirB, env, List.of()).start()) {
            List<String> sessions = twelveSessions(prefix);
            await().atMost(Duration.ofMinutes(3)).pollInterval(Duration.ofMillis(500)).ignoreExceptionsInstanceOf(java.io.IOException.class)
                    .untilAsserted(() -> {
                for (String id : sessions) {
                    assertThat(get(b, "/v1/sessions/" + id + "/checkpoint").statusCode()).as(id).isEqualTo(200);
                }
                // b's standbys of a's partitions have caught up (an exactly-once changelog ends in a marker no store reads)
                assertThat(storeLag(b)).isLessThanOrEqualTo(20);
            });
            List<String> onA = awaitBothHoldSome(a, b, sessions);

            // a session that does not exist, on a partition instance A holds (of the 6 of TETHER_TOPICS_PARTITIONS's
            // default): "not found" while A answers
            String ghost = null;
            for (int i = 0; ghost == null; i++) {
                if (SessionPartitioner.partition(prefix + "ghost" + i, 6) == SessionPartitioner.partition(onA.get(0), 6)) {
                    ghost = prefix + "ghost" + i;
                }
            }
            assertThat(get(b, "/v1/sessions/" + ghost + "/checkpoint").statusCode()).isEqualTo(404);

            long killed = System.nanoTime();
            a.kill();
            for (String id : onA) {
                for (String read : List.of("checkpoint", "recovery", "context?maxTokens=1000")) {
                    var response = get(b, "/v1/sessions/" + id + "/" + read);
                    assertThat(response.statusCode()).as("%s of %s through B: %s", read, id, response.body()).isEqualTo(200);
                }
                assertThat(json.readTree(get(b, "/v1/sessions/" + id + "/checkpoint").body()).get("lastSeq").asLong()).isEqualTo(2);
            }
            assertThat(Duration.ofNanos(System.nanoTime() - killed)).as("answered from the copy, not after a hand-over")
                    .isLessThan(Duration.ofSeconds(30));
            var unseen = get(b, "/v1/sessions/" + onA.get(0) + "/checkpoint?minSeq=3");
            assertThat(unseen.statusCode()).as("a seq the copy has not folded: %s", unseen.body()).isEqualTo(503);
            // a copy may lag behind a session's creation: one it does not have is "try again", never "not found"
            var missing = get(b, "/v1/sessions/" + ghost + "/checkpoint");
            assertThat(missing.statusCode()).as("a session the copy does not have: %s", missing.body()).isEqualTo(503);
        }
    }

    /**
     * Waits until each instance holds some of the sessions' partitions, and returns the sessions {@code a} holds. Both
     * answering for every session does not mean that yet: the instance that joined the group first holds every partition
     * until the rebalance that gives the other its share ends, and meanwhile the other forwards every read to it.
     */
    private List<String> awaitBothHoldSome(ServiceProcess a, ServiceProcess b, List<String> sessions) {
        List<String> onA = new ArrayList<>();
        await().atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofSeconds(1)).ignoreExceptionsInstanceOf(java.io.IOException.class)
                .untilAsserted(() -> {
            onA.clear();
            int onB = 0;
            for (String id : sessions) {
                if (get(a, "/v1/sessions/" + id + "/checkpoint", "1").statusCode() == 200) {
                    onA.add(id);
                }
                if (get(b, "/v1/sessions/" + id + "/checkpoint", "1").statusCode() == 200) {
                    onB++;
                }
            }
            assertThat(onA).as("sessions instance A holds").isNotEmpty().hasSizeLessThan(sessions.size());
            assertThat(onA.size() + onB).as("sessions held by either instance").isEqualTo(sessions.size());
        });
        return List.copyOf(onA);
    }

    /** Twelve sessions of two events each, written to {@code prefix}'s session-events as the sequencer would. */
    private static List<String> twelveSessions(String prefix) throws Exception {
        var sessions = new ArrayList<String>();
        try (var writer = new EventWriter(TopicLayout.local().withPrefix(prefix), "acme")) {
            for (int i = 0; i < 12; i++) {
                String id = prefix + "s" + i;
                sessions.add(id);
                writer.session(id).add(ProjectionApiIT.started(), new UserMessage("hello " + i, null));
            }
        }
        return sessions;
    }

    /** {@code tether_streams_store_lag_records} of {@code instance}: how far its stores, standbys included, are behind. */
    private double storeLag(ServiceProcess instance) throws Exception {
        String metrics = http.send(HttpRequest.newBuilder(URI.create(instance.baseUrl() + "/q/metrics")).timeout(Duration.ofSeconds(10)).build(),
                HttpResponse.BodyHandlers.ofString()).body();
        return metrics.lines().filter(l -> l.startsWith("tether_streams_store_lag_records")).mapToDouble(l -> Double.parseDouble(
                l.substring(l.lastIndexOf(' ') + 1))).findFirst().orElse(Double.NaN);
    }

    private HttpResponse<String> get(ServiceProcess instance, String path) throws Exception {
        return get(instance, path, null);
    }

    /** With {@code forwarded} set the instance must not forward: it answers only for its own partitions. */
    private HttpResponse<String> get(ServiceProcess instance, String path, String forwarded) throws Exception {
        var request = HttpRequest.newBuilder(URI.create(instance.baseUrl() + path)).header("Authorization", "Bearer dev-acme-agent")
                .timeout(Duration.ofSeconds(10));
        if (forwarded != null) {
            request.header("X-Tether-Forwarded", forwarded);
        }
        return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }
}
