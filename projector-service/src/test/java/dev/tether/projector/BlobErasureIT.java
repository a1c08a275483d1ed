package dev.tether.projector;

import static dev.tether.projector.ExplorerStack.AGENT;
import static dev.tether.projector.ExplorerStack.json;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * An erased session's offloaded content leaves the blob store, on the real stack: the session-service offloads a large
 * message at its append, the projector records which session refers to which blob, and once a session is erased the
 * blobs no other session refers to are deleted (here a grace of 10 s; 24 h by default) and the artifact endpoint answers
 * 404, while a blob another session still refers to stays until that one is erased too; and content offloaded for an
 * append the sequencer refused, which no session refers to, goes once the grace has passed.
 */
class BlobErasureIT {

    /**
     * Long enough that the projector reads a nomination within it on a loaded machine: one read later than the grace is
     * ignored as stale (a grace of 3 s failed a CI run that ran three modules' integration tests at once on 2 cores).
     */
    private static final Duration GRACE = Duration.ofSeconds(10);
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private static ExplorerStack stack;

    @BeforeAll
    static void start() throws IOException {
        stack = ExplorerStack.start("blobs", Map.of("TETHER_PROJECTOR_BLOBS_GRACE", GRACE.toString(),
                "TETHER_PROJECTOR_BLOBS_SWEEP_EVERY", "PT0.5S"));
    }

    @AfterAll
    static void stop() {
        if (stack != null) {
            stack.close();
        }
    }

    @Test
    void anErasedSessionsBlobs_areDeleted_andOneAnotherSessionStillRefersTo_goesOnlyWithThatOne() throws Exception {
        String first = "blobs-" + UUID.randomUUID();
        String second = "blobs-" + UUID.randomUUID();
        String shared = large("a tool output both sessions were given");
        for (String id : List.of(first, second)) {
            stack.create(AGENT, json().put("sessionId", id).put("objective", "Summarize the logs").put("modelId", "claude-sonnet-4")
                    .put("toolMode", "READ_ONLY"));
        }
        stack.append(first, AGENT, null, json().put("type", "user_message").put("content", large("only the first session's")),
                json().put("type", "user_message").put("content", shared));
        long last = stack.append(second, AGENT, null, json().put("type", "user_message").put("content", shared)).get(0);

        String own = blobOf(first, 2);
        String sharedBlob = blobOf(first, 3);
        assertThat(blobOf(second, 2)).as("the same bytes, the same blob").isEqualTo(sharedBlob);
        assertThat(artifact(own)).isEqualTo(200);
        assertThat(artifact(sharedBlob)).isEqualTo(200);
        stack.awaitFolded(second, last);
        Thread.sleep(GRACE.toMillis()); // both blobs were put longer ago than the grace: only references keep them

        ExplorerStack.ok(ExplorerStack.delete(stack.sessions() + "/" + first, AGENT), "erase " + first);

        await("the erased session's own blob is deleted").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(250))
                .until(() -> artifact(own) == 404);
        Thread.sleep(2_000); // several sweeps since
        assertThat(artifact(sharedBlob)).as("the other session still refers to it").isEqualTo(200);
        assertThat(blobFiles()).extracting(file -> file.getFileName().toString()).contains(sharedBlob).doesNotContain(own);

        ExplorerStack.ok(ExplorerStack.delete(stack.sessions() + "/" + second, AGENT), "erase " + second);

        await("the blob no session refers to any more is deleted").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(250))
                .until(() -> artifact(sharedBlob) == 404);
        assertThat(blobFiles()).as("nothing of either session left in the blob store")
                .noneMatch(file -> file.getFileName().toString().equals(own) || file.getFileName().toString().equals(sharedBlob));
        assertThat(metric("tether_blobs_deleted_total")).isGreaterThanOrEqualTo(2);
        assertThat(metric("tether_blobs_horizon_behind_seconds")).as("the horizon keeps up with a current pipeline").isBetween(0.0, 30.0);
    }

    @Test
    void contentOffloadedForAnAppendThatWasRefused_isDeletedOnceTheGraceHasPassed() throws Exception {
        String id = "blobs-" + UUID.randomUUID();
        stack.create(AGENT, json().put("sessionId", id).put("objective", "Summarize the logs").put("modelId", "claude-sonnet-4")
                .put("toolMode", "READ_ONLY"));
        long fenced = stack.claim(id, "worker-a");
        stack.claim(id, "worker-b");
        String content = large("a fenced worker's long message");
        var body = json().put("epoch", fenced);
        body.putArray("events").add(json().put("eventId", UUID.randomUUID().toString()).put("type", "user_message").put("content", content));

        var refused = ExplorerStack.post(stack.sessions() + "/" + id + "/events", AGENT, body);

        assertThat(refused.status()).as(refused.toString()).isEqualTo(409);
        String sha256 = HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(content.getBytes(StandardCharsets.UTF_8)));
        assertThat(artifact(sha256)).as("offloaded before the sequencer refused it").isEqualTo(200);
        await("the nominated blob counted as waiting").atMost(GRACE).pollInterval(Duration.ofMillis(250))
                .until(() -> metric("tether_blobs_unreferenced") >= 1);
        try {
            await("the refused append's blob, referred to by no session, is deleted").atMost(Duration.ofSeconds(60))
                    .pollInterval(Duration.ofMillis(250)).until(() -> artifact(sha256) == 404);
        } catch (ConditionTimeoutException e) {
            throw new AssertionError(e.getMessage() + "; the projector's log on nominations and its horizon: "
                    + Files.readAllLines(stack.projector.log()).stream().filter(line -> line.contains("nomination(s)") || line.contains("held back")).toList(), e);
        }
        assertThat(stack.events(id)).as("the session itself is untouched").isNotEmpty();
        await("no blob counted as waiting once it is deleted").atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(250))
                .until(() -> metric("tether_blobs_unreferenced") == 0);
    }

    /** The sha256 of the blob the event at {@code seq} of the session was offloaded to. */
    private static String blobOf(String sessionId, long seq) {
        JsonNode event = stack.events(sessionId).stream().filter(e -> e.get("seq").asLong() == seq).findFirst().orElseThrow();
        assertThat(event.path("contentRef").path("sha256").asText()).as("offloaded: " + event.path("type")).hasSize(64);
        return event.get("contentRef").get("sha256").asText();
    }

    /** The status of {@code GET /v1/artifacts/{sha256}} on the session-service, as the session's agent. */
    private static int artifact(String sha256) {
        var request = HttpRequest.newBuilder(URI.create(stack.session.baseUrl() + "/v1/artifacts/" + sha256))
                .header("Authorization", "Bearer " + AGENT).timeout(Duration.ofSeconds(30)).GET().build();
        try {
            return HTTP.send(request, HttpResponse.BodyHandlers.discarding()).statusCode();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** A metric of the projector's, from its Prometheus metrics (summed over its tags). */
    private static double metric(String name) throws Exception {
        var request = HttpRequest.newBuilder(URI.create(stack.projector.baseUrl() + "/q/metrics")).timeout(Duration.ofSeconds(30)).GET().build();
        String metrics = HTTP.send(request, HttpResponse.BodyHandlers.ofString()).body();
        return metrics.lines().filter(line -> line.startsWith(name + " ") || line.startsWith(name + "{")).mapToDouble(
                line -> Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1))).sum();
    }

    private static List<Path> blobFiles() throws IOException {
        try (var walk = Files.walk(stack.workDir.resolve("blobs"))) {
            return walk.filter(Files::isRegularFile).toList();
        }
    }

    /** Text over the session-service's offloading threshold (64 KiB). */
    private static String large(String about) {
        return (about + ". ").repeat(70 * 1024 / (about.length() + 2) + 1);
    }
}
