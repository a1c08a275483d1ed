package dev.tether.projector;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tether.avro.OutcomeState;
import dev.tether.core.event.ApprovalGranted;
import dev.tether.core.event.ApprovalRequested;
import dev.tether.core.event.ApprovalScope;
import dev.tether.core.event.AssistantMessage;
import dev.tether.core.event.AuthorizationBasis;
import dev.tether.core.event.TokenUsage;
import dev.tether.core.event.ToolCall;
import dev.tether.core.event.ToolCallAuthorized;
import dev.tether.core.event.ToolResult;
import dev.tether.core.event.ToolStatus;
import dev.tether.kit.kafka.TopicLayout;
import dev.tether.projector.kafka.ProjectorStores;
import dev.tether.testing.ServiceProcess;
import dev.tether.testing.StoreUpgrade;
import dev.tether.testing.Trees;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The projector upgraded over a {@code session-call-records} store written in the previous format: the unversioned
 * JSON of the releases before store formats had versions. (Its other stores hold Avro: the checkpoints' upgrade is
 * {@link CheckpointUpgradeIT}'s, the messages are {@code session-events} itself.) The packaged projector first runs as
 * that release wrote the store ({@code tether.stores.write-version.session-call-records=0}: byte for byte the previous
 * encoding, which the v0 golden files of {@code StoreGoldenTest} pin) and folds calls from {@code session-events} and
 * {@code tool-outcomes}: one approved, run and answered, one approved and not run yet, one authorized by policy that
 * ended UNKNOWN; the test checks the changelog holds only unversioned values. Then the upgraded projector starts over
 * the same state directory and changelog and must serve the same call records, and fold the next attempt and result of
 * a call into its restored record, writing the current version; and once more from the changelog alone (state
 * directory deleted), where old and new values are mixed.
 */
class StoreUpgradeIT {

    private static final Instant STARTED = Instant.parse("2026-11-29T10:00:30Z");

    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(2)).build();
    private final ObjectMapper json = new ObjectMapper();
    private final String prefix = "cupg-" + UUID.randomUUID().toString().substring(0, 8) + ".";
    private final TopicLayout layout = TopicLayout.local().withPrefix(prefix);
    private Path workDir;
    private ServiceProcess projector;

    @AfterEach
    void stop() {
        if (projector != null) {
            projector.close();
        }
        if (workDir != null) {
            Trees.delete(workDir);
        }
    }

    @Test
    void anUpgradedProjector_overCallRecordsOfThePreviousFormat_servesTheSameAnswers() throws Exception {
        workDir = Files.createTempDirectory("projector-store-upgrade-");
        projector = start(StoreUpgrade.asThePreviousRelease(ProjectorStores.CALLS));
        String approved = prefix + "approved";
        String unknown = prefix + "unknown";
        try (var writer = new EventWriter(layout, "acme")) {
            var session = writer.session(approved).add(ProjectionApiIT.started(),
                    new AssistantMessage("two edits", null, List.of(new ToolCall("c1", "edit_file", "{\"path\":\"a\"}"),
                            new ToolCall("c2", "edit_file", "{\"path\":\"b\"}")), new TokenUsage(1, 1)),
                    new ApprovalRequested("c1", "edit_file", "--- a\n+++ a", null),
                    new ApprovalGranted("c1", ApprovalScope.SESSION, "edit_file", "**", "acme-approver", "fine"),
                    new ToolCallAuthorized("c1", AuthorizationBasis.approval(4)),
                    new ToolCallAuthorized("c2", AuthorizationBasis.approval(4)));
            ProjectionApiIT.writeOutcome(layout, ProjectionApiIT.outcome(approved, "c1", OutcomeState.STARTED, STARTED, null));
            ProjectionApiIT.writeOutcome(layout, ProjectionApiIT.outcome(approved, "c1", OutcomeState.OK, STARTED, STARTED.plusSeconds(1)));
            session.add(new ToolResult("c1", approved + "/2/c1", ToolStatus.OK, "edited a", null));
            writer.session(unknown).add(ProjectionApiIT.started(),
                    new AssistantMessage("reading", null, List.of(new ToolCall("c1", "read_file", "{}")), new TokenUsage(1, 1)),
                    new ToolCallAuthorized("c1", AuthorizationBasis.POLICY),
                    new ToolResult("c1", unknown + "/2/c1", ToolStatus.UNKNOWN, "the executor died mid-call", null));
            ProjectionApiIT.writeOutcome(layout, ProjectionApiIT.outcome(unknown, "c1", OutcomeState.UNKNOWN, STARTED, STARTED.plusSeconds(2)));

            Map<String, JsonNode> before = answers(
                    call(approved, "c1", c -> c.path("resultSeq").asLong() == 7 && c.get("attempts").size() == 1),
                    call(approved, "c2", c -> c.path("authorizedSeq").asLong() == 6),
                    call(unknown, "c1", c -> c.path("resultSeq").asLong() == 4 && c.get("attempts").size() == 1));
            assertThat(before.get(approved + "/c1").get("approval").get("approver").asText()).isEqualTo("acme-approver");
            assertThat(before.get(unknown + "/c1").get("resultStatus").asText()).isEqualTo("UNKNOWN");
            assertThat(versions()).as("the previous release's call records").hasSize(3)
                    .allSatisfy((k, v) -> assertThat(v).isEqualTo(StoreUpgrade.UNVERSIONED));
            projector.stop();

            projector = start(List.of());
            assertThat(answers(call(approved, "c1", any()), call(approved, "c2", any()), call(unknown, "c1", any())))
                    .as("served by the upgraded projector over the same state directory").isEqualTo(before);
            ProjectionApiIT.writeOutcome(layout, ProjectionApiIT.outcome(approved, "c2", OutcomeState.OK, STARTED, STARTED.plusSeconds(3)));
            session.add(new ToolResult("c2", approved + "/2/c2", ToolStatus.OK, "edited b", null));
            JsonNode c2 = call(approved, "c2", c -> c.path("resultSeq").asLong() == 8 && c.get("attempts").size() == 1).get();
            assertThat(c2.get("approval")).as("kept from the old record").isEqualTo(before.get(approved + "/c2").get("approval"));
            assertThat(c2.get("authorizedSeq")).isEqualTo(before.get(approved + "/c2").get("authorizedSeq"));
            await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> assertThat(versions().values())
                    .as("the record written again is version 1 (the current one); the others stay as they were")
                    .containsExactlyInAnyOrder("1", StoreUpgrade.UNVERSIONED, StoreUpgrade.UNVERSIONED));
            Map<String, JsonNode> after = answers(call(approved, "c1", any()), call(approved, "c2", any()), call(unknown, "c1", any()));
            assertThat(after.get(approved + "/c1")).isEqualTo(before.get(approved + "/c1"));
            assertThat(after.get(unknown + "/c1")).isEqualTo(before.get(unknown + "/c1"));
            projector.stop();

            StoreUpgrade.deleteState(projector);
            projector = start(List.of());
            assertThat(answers(call(approved, "c1", any()), call(approved, "c2", any()), call(unknown, "c1", any())))
                    .as("restored from a changelog holding both formats").isEqualTo(after);
        }
    }

    // ---------------------------------------------------------------------------------------------

    private ServiceProcess start(List<String> systemProperties) {
        return new ServiceProcess(Path.of("").toAbsolutePath(), workDir, ServiceProcess.env("TETHER_TOPICS_PREFIX", prefix),
                systemProperties).start();
    }

    /** A read of one call record, waited for until it passes a test. */
    private interface CallRead {
        String name();

        JsonNode get() throws Exception;
    }

    private CallRead call(String sessionId, String callId, Predicate<JsonNode> ready) {
        return new CallRead() {
            @Override
            public String name() {
                return sessionId + "/" + callId;
            }

            @Override
            public JsonNode get() {
                var found = new JsonNode[1];
                // a poll that times out on a loaded machine is a poll that has not seen it yet
                await("the call record " + name()).atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(300))
                        .ignoreException(HttpTimeoutException.class)
                        .until(() -> {
                            var response = http.send(HttpRequest.newBuilder(URI.create(projector.baseUrl() + "/v1/sessions/" + sessionId
                                            + "/calls/" + callId)).header("Authorization", "Bearer " + ProjectionApiIT.AGENT)
                                    .timeout(Duration.ofSeconds(20)).build(), HttpResponse.BodyHandlers.ofString());
                            if (response.statusCode() != 200) {
                                return false; // 503 while its stores restore; 404 until the call is folded
                            }
                            found[0] = json.readTree(response.body());
                            return ready.test(found[0]);
                        });
                return found[0];
            }
        };
    }

    private static Predicate<JsonNode> any() {
        return c -> true;
    }

    /** What the projector answers about each call, once each passes its test. */
    private static Map<String, JsonNode> answers(CallRead... calls) throws Exception {
        var answers = new LinkedHashMap<String, JsonNode>();
        for (CallRead call : calls) {
            answers.put(call.name(), call.get());
        }
        return answers;
    }

    /** Call record key → the version of its latest value in the changelog, or unversioned. */
    private Map<String, String> versions() {
        return StoreUpgrade.versions(StoreUpgrade.changelog(prefix + "tether-projector-service", ProjectorStores.CALLS));
    }
}
