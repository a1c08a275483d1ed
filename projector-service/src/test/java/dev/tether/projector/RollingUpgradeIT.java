package dev.tether.projector;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tether.avro.SessionEvent;
import dev.tether.core.event.Actor;
import dev.tether.core.event.ActorKind;
import dev.tether.core.event.AssistantMessage;
import dev.tether.core.event.AuthorizationBasis;
import dev.tether.core.event.Event;
import dev.tether.core.event.EventPayload;
import dev.tether.core.event.OutcomeResolution;
import dev.tether.core.event.StepCompleted;
import dev.tether.core.event.TokenUsage;
import dev.tether.core.event.ToolCall;
import dev.tether.core.event.ToolCallAuthorized;
import dev.tether.core.event.ToolOutcomeResolved;
import dev.tether.core.event.ToolResult;
import dev.tether.core.event.ToolStatus;
import dev.tether.core.event.UserMessage;
import dev.tether.kit.json.EventJson;
import dev.tether.kit.kafka.AvroSerdes;
import dev.tether.kit.kafka.EventAvro;
import dev.tether.kit.kafka.SessionEventKey;
import dev.tether.kit.kafka.SessionEventKeySerde;
import dev.tether.kit.kafka.SessionPartitioner;
import dev.tether.kit.kafka.TopicInitializer;
import dev.tether.kit.kafka.TopicLayout;
import dev.tether.kit.kafka.Topics;
import dev.tether.projector.domain.Projection;
import dev.tether.projector.domain.SessionProjection;
import dev.tether.testing.ServiceProcess;
import dev.tether.testing.TetherStack;
import dev.tether.testing.TopicReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.UUID;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericRecord;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.Serde;
import org.junit.jupiter.api.Test;

/**
 * A rolling upgrade on the real broker and registry: one session's events come first from a session-service of the
 * previous release, then from an upgraded one, while the packaged projector (today's) folds them; and a reader of the
 * previous release reads them all.
 *
 * <p>"The previous release" is its schema, not its build: the old writer writes with the released v1
 * {@code SessionEvent} schema, registered under the topic's subject as the v1 release registered it (the record
 * resolved to v1, so it holds only what v1 knew), and the old reader reads with v1 as its reader schema and each
 * record's writer schema from the registry ({@link ReleasedSchemaClient}). Both are this test's code around the v1
 * schema. The new side is the real thing: the packaged projector and today's serdes.
 */
class RollingUpgradeIT {

    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    private final EventJson json = new EventJson();

    @Test
    void oldAndNewServices_readEachOthersEvents() throws Exception {
        String prefix = "proll-" + UUID.randomUUID().toString().substring(0, 8) + ".";
        TopicLayout layout = TopicLayout.local().withPrefix(prefix);
        String topic = layout.name(Topics.SESSION_EVENTS);
        String sessionId = prefix + "rolling";
        TetherStack stack = TetherStack.shared();
        try (Admin admin = Admin.create(stack.clientConfig())) {
            new TopicInitializer(admin, Duration.ofSeconds(30)).init(layout);
        }
        var v1 = new ReleasedSchemaClient("v1", "SessionEvent");
        int v1Id = v1.register(topic + "-value"); // the v1 release registered its schema before anything was upgraded
        Path workDir = Files.createTempDirectory("projector-rolling-");
        var written = new ArrayList<Event>();
        try (var projector = new ServiceProcess(Path.of("").toAbsolutePath(), workDir, ServiceProcess.env("TETHER_TOPICS_PREFIX", prefix),
                List.of()); var producer = producer(stack); Serde<SessionEvent> current = AvroSerdes.valueSerde(stack.registryUrl())) {
            projector.start();

            // a session-service of the previous release writes the first events with the v1 schema ...
            for (EventPayload p : List.of(ProjectionApiIT.started(), new UserMessage("rename Foo to Bar", null),
                    new AssistantMessage("on it", null, List.of(new ToolCall("c1", "run_command", "{\"command\":\"make\"}")),
                            new TokenUsage(120, 12)),
                    new ToolCallAuthorized("c1", AuthorizationBasis.POLICY),
                    new ToolResult("c1", sessionId + "/3/c1", ToolStatus.UNKNOWN, "the executor died mid-call", null))) {
                Event e = event(sessionId, written.size() + 1, p);
                producer.send(new ProducerRecord<>(topic, new SessionEventKey(sessionId, e.seq()), v1.write(v1Id, EventAvro.toAvro(e)))).get();
                written.add(e);
            }
            // ... then the upgraded one goes on with today's schema, including an event type v1 does not know
            for (EventPayload p : List.of(new ToolOutcomeResolved("c1", OutcomeResolution.MARK_DONE, "alice", "ran it by hand"),
                    new UserMessage("thanks, go on", null), new StepCompleted(1, "renamed", true, null))) {
                Event e = event(sessionId, written.size() + 1, p);
                producer.send(new ProducerRecord<>(topic, new SessionEventKey(sessionId, e.seq()),
                        current.serializer().serialize(topic, EventAvro.toAvro(e)))).get();
                written.add(e);
            }

            // the new projector folded all of them, old and new, as if one service had written them
            JsonNode checkpoint = awaitCheckpoint(projector, sessionId, written.size());
            SessionProjection expected = null;
            for (Event e : written) {
                expected = Projection.evolve(expected, e, 0, 0);
            }
            ObjectNode want = (ObjectNode) json.mapper().readTree(json.mapper().writeValueAsString(expected));
            want.remove("position");
            ((ObjectNode) checkpoint).remove("position");
            assertThat(checkpoint).isEqualTo(want);
            assertThat(checkpoint.get("callCounts").get("ok").asInt()).as("the v1 UNKNOWN result resolved by the new event").isEqualTo(1);

            // and its API returns every event as it was written, whichever schema wrote it
            JsonNode source = get(projector, "/v1/sessions/" + sessionId + "/compaction-source?throughSeq=" + written.size());
            ArrayNode events = (ArrayNode) source.get("events");
            assertThat(events).hasSize(written.size());
            for (int i = 0; i < written.size(); i++) {
                assertThat(events.get(i).toString()).as("seq " + (i + 1)).isEqualTo(json.write(written.get(i)).toString());
            }
        } finally {
            try (var paths = Files.walk(workDir)) {
                paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }

        // a reader of the previous release reads the new events too: what v1 knows of them, and an unknown type for the rest
        var keys = new SessionEventKeySerde();
        var records = TopicReader.readAll(topic).stream().filter(r -> keys.deserialize(topic, r.key()).sessionId().equals(sessionId))
                .sorted(Comparator.comparingLong(r -> keys.deserialize(topic, r.key()).seq())).toList();
        assertThat(records).hasSize(written.size());
        List<Integer> writerIds = records.stream().map(r -> ReleasedSchemaClient.schemaId(r.value())).toList();
        assertThat(writerIds.subList(0, 5)).containsOnly(v1Id);
        assertThat(writerIds.subList(5, 8)).doesNotContain(v1Id).containsOnly(writerIds.get(5));
        var old = records.stream().map(r -> v1.read(r.value())).toList();
        assertThat(old).extracting(r -> r.get("type").toString()).containsExactly("session_started", "user_message", "assistant_message",
                "tool_call_authorized", "tool_result", "tool_outcome_resolved", "user_message", "step_completed");
        assertThat(old).extracting(r -> ((GenericRecord) r).get("seq")).containsExactly(1L, 2L, 3L, 4L, 5L, 6L, 7L, 8L);
        assertThat(payload(old.get(6), "userMessage").get("content").toString()).isEqualTo("thanks, go on");
        assertThat(payload(old.get(7), "stepCompleted").get("verified")).isEqualTo(true);
        GenericRecord unknownToV1 = (GenericRecord) old.get(5).get("payload");
        for (Schema.Field field : v1.schema().getField("payload").schema().getFields()) {
            assertThat(unknownToV1.get(field.name())).as("v1 has no payload for tool_outcome_resolved: " + field.name()).isNull();
        }
    }

    private static GenericRecord payload(GenericRecord event, String field) {
        return (GenericRecord) ((GenericRecord) event.get("payload")).get(field);
    }

    private static Event event(String sessionId, long seq, EventPayload payload) {
        return new Event(sessionId + "-" + seq, sessionId, "acme", seq, Instant.parse("2026-11-29T10:00:00Z").plusSeconds(seq),
                new Actor(ActorKind.USER, "acme-agent"), "v1", payload);
    }

    private static KafkaProducer<SessionEventKey, byte[]> producer(TetherStack stack) {
        var config = new HashMap<>(stack.clientConfig());
        config.put(ProducerConfig.ACKS_CONFIG, "all");
        config.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        config.put(ProducerConfig.PARTITIONER_CLASS_CONFIG, SessionPartitioner.class.getName());
        return new KafkaProducer<>(config, new SessionEventKeySerde(), new ByteArraySerializer());
    }

    private JsonNode awaitCheckpoint(ServiceProcess service, String sessionId, long seq) {
        var found = new JsonNode[1];
        // a poll that times out on a loaded machine is a poll that has not seen it yet
        await().atMost(Duration.ofMinutes(3)).pollInterval(Duration.ofMillis(300)).ignoreException(HttpTimeoutException.class)
                .until(() -> {
            var response = send(service, "/v1/sessions/" + sessionId + "/checkpoint");
            if (response.statusCode() != 200) {
                return false;
            }
            found[0] = json.mapper().readTree(response.body());
            return found[0].get("lastSeq").asLong() >= seq;
        });
        return found[0];
    }

    private JsonNode get(ServiceProcess service, String path) throws Exception {
        var response = send(service, path);
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        return json.mapper().readTree(response.body());
    }

    private HttpResponse<String> send(ServiceProcess service, String path) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create(service.baseUrl() + path)).header("Authorization", "Bearer " + ProjectionApiIT.AGENT)
                .timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());
    }
}
