package dev.tether.session;

import static dev.tether.session.SessionApiIT.AGENT;
import static dev.tether.session.SessionApiIT.append;
import static dev.tether.session.SessionApiIT.batch;
import static dev.tether.session.SessionApiIT.uuid;
import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tether.testing.PlantedSecrets;
import dev.tether.testing.TetherStack;
import dev.tether.testing.TetherStackResource;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListTopicsOptions;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.Test;

/**
 * Secrets planted in every kind of field never reach Kafka (any topic, including changelogs and
 * internal ones, in keys, values and headers), the service's log, an error message or the blob
 * store: they are replaced by {@code [REDACTED:<kind>]} at the door.
 */
@QuarkusTest
@QuarkusTestResource(TetherStackResource.class)
class SecretScrubbingIT {

    private static final List<PlantedSecrets.Planted> PLANTED = PlantedSecrets.all();
    private static final com.fasterxml.jackson.databind.ObjectMapper JSON = new com.fasterxml.jackson.databind.ObjectMapper();

    @Test
    void plantedSecrets_inEveryFieldKind_areFoundNowhere() throws Exception {
        SessionApiIT.awaitReady();
        assertThat(PLANTED).hasSizeGreaterThanOrEqualTo(20);
        String sessionId = "secrets-" + UUID.randomUUID();
        String all = String.join("\n", PLANTED.stream().map(PlantedSecrets.Planted::text).toList());

        int redactions = 0;
        var create = new HashMap<String, Object>(Map.of("sessionId", sessionId, "objective", "deploy with " + all,
                "systemPrompt", "tokens: " + all, "modelId", "model-x", "toolMode", "WRITE",
                "constraints", PLANTED.stream().map(PlantedSecrets.Planted::text).toList()));
        redactions += given().auth().oauth2(AGENT).contentType("application/json").body(create).post("/v1/sessions")
                .then().statusCode(201).extract().jsonPath().getInt("redactions");

        var events = new ArrayList<Map<String, Object>>();
        events.add(Map.of("eventId", uuid(), "type", "user_message", "content", "here are my keys:\n" + all));
        events.add(Map.of("eventId", uuid(), "type", "assistant_message", "content", "I will use " + all,
                "toolCalls", List.of(Map.of("callId", "c1", "tool", "run_command",
                        "argumentsJson", "{\"command\":\"curl -H 'Authorization: Bearer " + PLANTED.get(0).secret() + "' " + all.replace("\n", " ")
                                .replace("\"", "'") + "\"}")),
                "usage", Map.of("inputTokens", 1, "outputTokens", 1)));
        events.add(Map.of("eventId", uuid(), "type", "tool_result", "callId", "c1", "status", "OK", "content", "env:\n" + all));
        events.add(Map.of("eventId", uuid(), "type", "turn_interrupted", "partialText", all, "reason", "user pressed stop " + all));
        events.add(Map.of("eventId", uuid(), "type", "context_compacted", "throughSeq", 2, "summary", "so far: " + all,
                "summarySourceSeqs", List.of(1, 2)));
        events.add(Map.of("eventId", uuid(), "type", "plan_updated", "items",
                PLANTED.stream().map(p -> Map.of("text", "rotate " + p.text(), "status", "PENDING")).toList()));
        events.add(Map.of("eventId", uuid(), "type", "step_completed", "step", 1, "note", all, "verified", true, "evidence", all));
        // a framework's state is JSON text: the secrets JSON-escaped in its strings, and a value JSON does not quote
        String state = JSON.writeValueAsString(Map.of("channel_values", Map.of("messages", PLANTED.stream().map(PlantedSecrets.Planted::text)
                .toList()), "config", Map.of("api_key", 12345678, "token", true)));
        events.add(Map.of("eventId", uuid(), "type", "framework_state", "framework", "langgraph", "kind", "checkpoint", "key", "cp-1",
                "content", state));
        redactions += append(AGENT, sessionId, Map.of("events", events)).statusCode(200).extract().jsonPath().getInt("redactions");
        // large content, so the blob store gets some too
        redactions += append(AGENT, sessionId, batch(Map.of("eventId", uuid(), "type", "user_message",
                "content", (all + "\n").repeat(60)))).statusCode(200).extract().jsonPath().getInt("redactions");
        redactions += append(AGENT, sessionId, batch(Map.of("eventId", uuid(), "type", "framework_state", "framework", "langgraph",
                "kind", "writes", "key", "cp-1", "content", JSON.writeValueAsString(java.util.Collections.nCopies(60, all)))))
                .statusCode(200).extract().jsonPath().getInt("redactions");
        redactions += append(AGENT, sessionId, batch(Map.of("eventId", uuid(), "type", "session_closed", "outcome", all)))
                .statusCode(200).extract().jsonPath().getInt("redactions");

        // refusals must not echo secrets either: a field named like a secret, a secret (in its shape) as an id
        String errors = append(AGENT, sessionId, batch(Map.of("eventId", uuid(), "type", "user_message", "content", "x",
                PLANTED.get(3).secret(), "1"))).statusCode(400).extract().asString();
        errors += append(AGENT, sessionId, batch(Map.of("eventId", PLANTED.get(5).text(), "type", "user_message", "content", "x")))
                .statusCode(400).extract().asString();
        errors += given().auth().oauth2(AGENT).contentType("application/json").body("{\"broken\": \"" + PLANTED.get(7).secret())
                .post("/v1/sessions/{id}/events", sessionId).then().statusCode(400).extract().asString();

        assertThat(redactions).as("redactions reported").isGreaterThanOrEqualTo(PLANTED.size() * 10);
        String page = given().auth().oauth2(AGENT).queryParam("limit", 1000).get("/v1/sessions/{id}/events", sessionId)
                .then().statusCode(200).extract().asString();
        assertThat(page).contains("[REDACTED:");
        assertNoneIn("the API's answers", page + errors);

        assertNoneIn("the raw bytes of every topic", rawBytesOfEveryTopic());
        assertNoneIn("the service log", Files.readString(Path.of("target/quarkus-test.log")));
        assertNoneIn("the blob store", blobs(Path.of("target/blobs")));
    }

    private static void assertNoneIn(String where, String haystack) {
        assertThat(haystack).as(where).isNotEmpty();
        for (PlantedSecrets.Planted p : PLANTED) {
            assertThat(haystack).as("%s must not contain the %s secret", where, p.kind()).doesNotContain(p.secret());
        }
    }

    /** Every record of every topic, internal ones included, keys, values and headers, as Latin-1 text. */
    private static String rawBytesOfEveryTopic() throws Exception {
        TetherStack stack = TetherStack.shared();
        var out = new StringBuilder();
        List<String> topics;
        try (Admin admin = Admin.create(stack.clientConfig())) {
            topics = List.copyOf(admin.listTopics(new ListTopicsOptions().listInternal(true)).names().get());
        }
        var config = new HashMap<>(stack.clientConfig());
        config.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_uncommitted"); // aborted writes count too
        try (var consumer = new KafkaConsumer<>(config, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            var partitions = new ArrayList<TopicPartition>();
            for (String topic : topics) {
                consumer.partitionsFor(topic).forEach(p -> partitions.add(new TopicPartition(topic, p.partition())));
            }
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            Map<TopicPartition, Long> end = consumer.endOffsets(partitions);
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (partitions.stream().anyMatch(p -> consumer.position(p) < end.get(p)) && System.nanoTime() < deadline) {
                for (var record : consumer.poll(Duration.ofMillis(200))) {
                    appendText(out, record.key());
                    appendText(out, record.value());
                    record.headers().forEach(h -> appendText(out, h.value()));
                }
            }
        }
        assertThat(out.toString()).as("the scan read the events").contains("secrets-");
        return out.toString();
    }

    private static void appendText(StringBuilder out, byte[] bytes) {
        if (bytes != null) {
            out.append(new String(bytes, StandardCharsets.UTF_8)).append('\n');
        }
    }

    private static String blobs(Path dir) throws Exception {
        var out = new StringBuilder();
        if (Files.exists(dir)) {
            try (Stream<Path> files = Files.walk(dir)) {
                for (Path f : files.filter(Files::isRegularFile).toList()) {
                    out.append(Files.readString(f, StandardCharsets.UTF_8)).append('\n');
                }
            }
        }
        return out.toString();
    }
}
