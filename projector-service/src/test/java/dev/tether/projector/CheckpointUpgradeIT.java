package dev.tether.projector;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tether.avro.Checkpoint;
import dev.tether.core.event.AssistantMessage;
import dev.tether.core.event.AuthorizationBasis;
import dev.tether.core.event.Event;
import dev.tether.core.event.StepCompleted;
import dev.tether.core.event.TokenUsage;
import dev.tether.core.event.ToolCall;
import dev.tether.core.event.ToolCallAuthorized;
import dev.tether.core.event.ToolResult;
import dev.tether.core.event.ToolStatus;
import dev.tether.core.event.UserMessage;
import dev.tether.kit.json.EventJson;
import dev.tether.kit.kafka.AvroSerdes;
import dev.tether.kit.kafka.SessionEventKey;
import dev.tether.kit.kafka.SessionEventKeySerde;
import dev.tether.kit.kafka.SessionPartitioner;
import dev.tether.kit.kafka.TopicInitializer;
import dev.tether.kit.kafka.TopicLayout;
import dev.tether.kit.kafka.Topics;
import dev.tether.projector.avro.CheckpointAvro;
import dev.tether.projector.domain.Projection;
import dev.tether.projector.domain.SessionProjection;
import dev.tether.projector.kafka.ProjectorStores;
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
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

/**
 * An upgrade of the projector over checkpoints the previous release stored. Before the packaged projector starts,
 * the test leaves what the previous projector would have left: the sessions' events on {@code session-events}, its
 * progress (the application's committed offsets, past those events), and its checkpoints in the checkpoint store's
 * changelog and on {@code session-checkpoints}:
 * <ul>
 * <li>a schemaVersion 3 checkpoint (the previous projector's version; the Avro schema of v3, which today's reads with
 *     the harness-run fields' defaults), with the log position the previous projector recorded: not migrated, since
 *     version 3 could not read which tools the session's harness runs (docs/ARCHITECTURE.md §6), so rebuilt;</li>
 * <li>a schemaVersion 1 checkpoint, its bytes written with the released v1 Avro schema, registered in the registry
 *     as the v1 release registered it;</li>
 * <li>a checkpoint of the next schemaVersion, as a newer projector would leave it before a rollback to this one.</li>
 * </ul>
 * No old build runs here: "the previous release" is its bytes, schema and schemaVersion. After the start, reads
 * answer each folded from the log (no step of today's chain migrates: {@code CheckpointMigrationsTest} tests the
 * steps one by one); the next event of each session is folded into them, the log says why each was rebuilt, and
 * everything ends equal to a fold of the log.
 */
class CheckpointUpgradeIT {

    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    private final ObjectMapper json = new EventJson().mapper();

    @Test
    void checkpointsOfThePreviousRelease_loadThroughTheChain_orAreRebuiltFromTheLog() throws Exception {
        String prefix = "pupg-" + UUID.randomUUID().toString().substring(0, 8) + ".";
        TopicLayout layout = TopicLayout.local().withPrefix(prefix);
        String applicationId = prefix + "tether-projector-service";
        String changelog = applicationId + "-" + ProjectorStores.CHECKPOINTS + "-changelog";
        String checkpointsTopic = layout.name(Topics.SESSION_CHECKPOINTS);
        TetherStack stack = TetherStack.shared();
        try (Admin admin = Admin.create(stack.clientConfig())) {
            new TopicInitializer(admin, Duration.ofSeconds(30)).init(layout);
            admin.createTopics(List.of(new NewTopic(changelog, layout.partitions(), (short) 1)
                    .configs(Map.of("cleanup.policy", "compact")))).all().get();
        }
        Path workDir = Files.createTempDirectory("projector-upgrade-");
        String migrated = prefix + "was-v3"; // the previous release's version, rebuilt since version 4
        String fromV1 = prefix + "was-v1";
        String fromNewer = prefix + "was-v" + (SessionProjection.SCHEMA_VERSION + 1);
        try (var writer = new EventWriter(layout, "acme");
             Serde<Checkpoint> current = AvroSerdes.valueSerde(stack.registryUrl());
             var producer = checkpointProducer(stack)) {
            Map<String, EventWriter.Session> sessions = new HashMap<>();
            for (String id : List.of(migrated, fromV1, fromNewer)) {
                sessions.put(id, writer.session(id).add(ProjectionApiIT.started(),
                        new AssistantMessage("reading", null, List.of(new ToolCall("c1", "read_file", "{}")), new TokenUsage(40, 4)),
                        new ToolCallAuthorized("c1", AuthorizationBasis.POLICY),
                        new ToolResult("c1", id + "/2/c1", ToolStatus.UNKNOWN, "the executor died mid-call", null),
                        new StepCompleted(1, "read the file", false, null)));
            }
            Map<SessionEventKey, long[]> positions = positions(layout);

            // what the previous projector left: its checkpoints (store changelog and session-checkpoints) and its progress
            var v1 = new ReleasedSchemaClient("v1", "Checkpoint");
            int v1Id = v1.register(changelog + "-value");
            assertThat(v1.register(checkpointsTopic + "-value")).isEqualTo(v1Id);
            for (var entry : Map.of(migrated, 3, fromV1, 1, fromNewer, SessionProjection.SCHEMA_VERSION + 1).entrySet()) {
                Checkpoint stored = Checkpoint.newBuilder(CheckpointAvro.toAvro(fold(sessions.get(entry.getKey()).written, positions)))
                        .setSchemaVersion(entry.getValue()).build();
                for (String topic : List.of(changelog, checkpointsTopic)) {
                    byte[] bytes = entry.getValue() == 1 ? v1.write(v1Id, stored) : current.serializer().serialize(topic, stored);
                    producer.send(new ProducerRecord<>(topic, entry.getKey(), bytes)).get();
                }
            }
            commitProgress(stack, applicationId, layout);

            try (var projector = new ServiceProcess(Path.of("").toAbsolutePath(), workDir,
                    ServiceProcess.env("TETHER_TOPICS_PREFIX", prefix), List.of())) {
                projector.start();

                // before any new event: every one folded from the log
                for (String rebuilt : List.of(migrated, fromV1, fromNewer)) {
                    JsonNode read = awaitCheckpoint(projector, rebuilt, 5);
                    assertThat(read.get("schemaVersion").asInt()).isEqualTo(SessionProjection.SCHEMA_VERSION);
                    // folded here from the log (the schema version is this release's), and placed where the stored one was
                    SessionProjection.Position stored = fold(sessions.get(rebuilt).written, positions).position();
                    assertThat(read.get("position").get("partition").asInt()).isEqualTo(stored.partition());
                    assertThat(read.get("position").get("lastOffset").asLong()).isEqualTo(stored.lastOffset());
                    assertSameFold(read, sessions.get(rebuilt).written);
                }

                // the next event of each session is folded into the migrated or rebuilt checkpoint
                for (String id : List.of(migrated, fromV1, fromNewer)) {
                    sessions.get(id).add(new UserMessage("after the upgrade", null));
                }
                for (String id : List.of(migrated, fromV1, fromNewer)) {
                    assertSameFold(awaitCheckpoint(projector, id, 6), sessions.get(id).written);
                }
                // a rebuilt checkpoint is folded from the log, where offsets are unknown, but keeps the position of the
                // checkpoint it replaces: the first offset is still where the session's events begin
                Map<SessionEventKey, long[]> after = positions(layout);
                for (String id : List.of(migrated, fromV1, fromNewer)) {
                    assertThat(awaitCheckpoint(projector, id, 6).get("position").toString()).as(id)
                            .isEqualTo(json.writeValueAsString(fold(sessions.get(id).written, after).position()));
                }

                String log = Files.readString(projector.log());
                assertThat(log).contains("the checkpoint of " + migrated + " has schemaVersion 3 and cannot be migrated to 4: step 3 → 4");
                assertThat(log).contains("the checkpoint of " + fromV1 + " has schemaVersion 1 and cannot be migrated to 4: step 1 → 2");
                assertThat(log).containsPattern("WARN .*the checkpoint of " + java.util.regex.Pattern.quote(fromNewer)
                        + " has schemaVersion 5, newer than this projector's 4: .*Rebuilt it from the log\\.");
                assertThat(log).doesNotContain("migrated the checkpoint of ");
            }

            // session-checkpoints: the previous release's records first (the v1 one readable by a v1 reader), today's last
            Map<String, List<byte[]>> byKey = new HashMap<>();
            for (var r : TopicReader.readAll(checkpointsTopic)) {
                byKey.computeIfAbsent(new String(r.key(), java.nio.charset.StandardCharsets.UTF_8), k -> new java.util.ArrayList<>())
                        .add(r.value());
            }
            byte[] firstOfV1 = byKey.get(fromV1).get(0);
            assertThat(ReleasedSchemaClient.schemaId(firstOfV1)).isEqualTo(v1Id);
            assertThat(v1.read(firstOfV1).get("schemaVersion")).isEqualTo(1);
            for (String id : List.of(migrated, fromV1, fromNewer)) {
                List<byte[]> values = byKey.get(id);
                Checkpoint latest = current.deserializer().deserialize(checkpointsTopic, values.get(values.size() - 1));
                assertThat(latest.getSchemaVersion()).as(id).isEqualTo(SessionProjection.SCHEMA_VERSION);
                assertThat(latest.getLastSeq()).as(id).isEqualTo(6);
            }
        } finally {
            try (var paths = Files.walk(workDir)) {
                paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }

    /** The fold of the events, at the positions they were written to (as the projector records them). */
    private static SessionProjection fold(List<Event> events, Map<SessionEventKey, long[]> positions) {
        SessionProjection state = null;
        for (Event e : events) {
            long[] at = positions.get(new SessionEventKey(e.sessionId(), e.seq()));
            state = Projection.evolve(state, e, (int) at[0], at[1]);
        }
        return state;
    }

    /** (sessionId, seq) → {partition, offset} of every event of the layout's session-events. */
    private static Map<SessionEventKey, long[]> positions(TopicLayout layout) {
        var keys = new SessionEventKeySerde();
        var positions = new HashMap<SessionEventKey, long[]>();
        for (var r : TopicReader.readAll(layout.name(Topics.SESSION_EVENTS))) {
            positions.put(keys.deserialize(r.topic(), r.key()), new long[] {r.partition(), r.offset()});
        }
        return positions;
    }

    /** The previous projector's progress: every event on the log folded, so the new one starts after them. */
    private static void commitProgress(TetherStack stack, String applicationId, TopicLayout layout) throws Exception {
        var offsets = new HashMap<TopicPartition, OffsetAndMetadata>();
        var end = new HashMap<TopicPartition, Long>();
        for (var r : TopicReader.readAll(layout.name(Topics.SESSION_EVENTS))) {
            end.merge(new TopicPartition(r.topic(), r.partition()), r.offset() + 1, Math::max);
        }
        end.forEach((partition, offset) -> offsets.put(partition, new OffsetAndMetadata(offset)));
        try (Admin admin = Admin.create(stack.clientConfig())) {
            admin.alterConsumerGroupOffsets(applicationId, offsets).all().get();
        }
    }

    private static KafkaProducer<String, byte[]> checkpointProducer(TetherStack stack) {
        var config = new HashMap<>(stack.clientConfig());
        config.put(ProducerConfig.ACKS_CONFIG, "all");
        config.put(ProducerConfig.PARTITIONER_CLASS_CONFIG, SessionPartitioner.class.getName());
        return new KafkaProducer<>(config, new StringSerializer(), new ByteArraySerializer());
    }

    private void assertSameFold(JsonNode live, List<Event> events) throws Exception {
        SessionProjection expected = null;
        for (Event e : events) {
            expected = Projection.evolve(expected, e, 0, 0);
        }
        ObjectNode want = (ObjectNode) json.readTree(json.writeValueAsString(expected));
        ObjectNode got = ((ObjectNode) live).deepCopy();
        want.remove("position");
        got.remove("position");
        assertThat(got).isEqualTo(want);
    }

    private JsonNode awaitCheckpoint(ServiceProcess service, String sessionId, long seq) {
        var found = new JsonNode[1];
        // a poll that times out on a loaded machine is a poll that has not seen it yet
        await().atMost(Duration.ofMinutes(3)).pollInterval(Duration.ofMillis(300)).ignoreException(HttpTimeoutException.class)
                .until(() -> {
            var response = http.send(HttpRequest.newBuilder(URI.create(service.baseUrl() + "/v1/sessions/" + sessionId + "/checkpoint"))
                    .header("Authorization", "Bearer " + ProjectionApiIT.AGENT).timeout(Duration.ofSeconds(30)).build(),
                    HttpResponse.BodyHandlers.ofString());
            if (response.statusCode() != 200) {
                return false;
            }
            found[0] = json.readTree(response.body());
            return found[0].get("lastSeq").asLong() >= seq;
        });
        return found[0];
    }
}
