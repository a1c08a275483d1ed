package dev.tether.kit.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tether.avro.SessionEvent;
import dev.tether.testing.TetherStack;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.UUID;
import org.apache.avro.Schema;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serde;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** An Avro SessionEvent through the real broker and the real registry, in the Confluent wire format. */
class AvroSerdeIT {

    private static final Duration TIMEOUT = Duration.ofSeconds(30);

    private final TetherStack stack = TetherStack.shared();
    private final ObjectMapper json = new ObjectMapper();
    private TopicLayout layout;
    private SchemaRegistryInitializer registry;

    @BeforeEach
    void setUp() {
        layout = TopicLayout.local().withPrefix("serde-" + UUID.randomUUID() + ".");
        try (Admin admin = Admin.create(stack.clientConfig())) {
            new TopicInitializer(admin, TIMEOUT).init(layout);
        }
        registry = new SchemaRegistryInitializer(stack.ccompatUrl(), TIMEOUT);
    }

    @Test
    void registryInit_setsEverySubjectToFullTransitive() throws Exception {
        var subjects = registry.init(layout);

        assertThat(subjects).hasSize(Topics.all(layout).size());
        String events = layout.name(Topics.SESSION_EVENTS) + "-value";
        assertThat(subjects).anySatisfy(s -> assertThat(s.name()).isEqualTo(events));
        // ask the registry itself, not our own report
        var config = json.readTree(get("/config/" + events));
        assertThat(config.get("compatibilityLevel").asText()).isEqualTo("FULL_TRANSITIVE");
        // idempotent: a second init registers nothing new
        assertThat(registry.init(layout)).isEqualTo(subjects);
        assertThat(json.readTree(get("/subjects/" + events + "/versions"))).hasSize(1);
    }

    @Test
    void concurrentRegistryInits_fromSeveralServices_allSucceed() throws Exception {
        var pool = java.util.concurrent.Executors.newFixedThreadPool(4);
        try {
            var runs = new java.util.ArrayList<java.util.concurrent.Future<List<SchemaRegistryInitializer.Subject>>>();
            for (int i = 0; i < 4; i++) {
                runs.add(pool.submit(() -> new SchemaRegistryInitializer(stack.ccompatUrl(), TIMEOUT).init(layout)));
            }
            var first = runs.get(0).get();
            for (var run : runs) {
                assertThat(run.get()).isEqualTo(first);
            }
        } finally {
            pool.shutdownNow();
        }
        for (var subject : registry.init(layout)) {
            assertThat(json.readTree(get("/config/" + subject.name())).get("compatibilityLevel").asText()).isEqualTo("FULL_TRANSITIVE");
        }
    }

    @Test
    void sessionEvent_producedAndConsumed_inTheConfluentWireFormat() throws Exception {
        registry.init(layout);
        String topic = layout.name(Topics.SESSION_EVENTS);
        SessionEvent sent = SampleEvents.userMessage("s-" + UUID.randomUUID(), 1, "rename Foo to Bar");

        ConsumerRecord<byte[], byte[]> raw = sentAndReadBack(topic, sent);
        try (Serde<SessionEvent> serde = AvroSerdes.valueSerde(stack.registryUrl())) {
            Deserializer<SessionEvent> deserializer = serde.deserializer();
            SessionEvent received = deserializer.deserialize(topic, raw.headers(), raw.value());
            assertThat(received).isEqualTo(sent);
        }
        assertThat(new SessionEventKeySerde().deserialize(topic, raw.key())).isEqualTo(new SessionEventKey(sent.getSessionId(), 1));

        // magic byte 0, then a 4-byte id that the Confluent-compatible API resolves to the SessionEvent schema
        ByteBuffer bytes = ByteBuffer.wrap(raw.value());
        assertThat(bytes.get()).isZero();
        int id = bytes.getInt();
        assertThat(raw.headers().toArray()).as("nothing of the format travels in headers").isEmpty();
        var byId = json.readTree(get("/schemas/ids/" + id));
        Schema schema = new Schema.Parser().parse(byId.get("schema").asText());
        assertThat(schema).isEqualTo(SessionEvent.getClassSchema());
        var latest = json.readTree(get("/subjects/" + topic + "-value/versions/latest"));
        assertThat(latest.get("id").asInt()).isEqualTo(id);
    }

    @Test
    void deserializer_readsThePayloadAlone_whateverTheHeadersSay() throws Exception {
        registry.init(layout);
        String topic = layout.name(Topics.SESSION_EVENTS);
        SessionEvent sent = SampleEvents.userMessage("s-" + UUID.randomUUID(), 1, "rename Foo to Bar");
        byte[] payload = sentAndReadBack(topic, sent).value();

        // Apicurio's own deserializer would take this header's encoding for this record and every later one
        var misleading = new RecordHeaders()
                .add("traceparent", "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-00".getBytes(StandardCharsets.UTF_8))
                .add("apicurio.value.encoding", "JSON".getBytes(StandardCharsets.UTF_8));
        try (Serde<SessionEvent> serde = AvroSerdes.valueSerde(stack.registryUrl())) {
            Deserializer<SessionEvent> deserializer = serde.deserializer();
            assertThat(deserializer.deserialize(topic, misleading, payload)).isEqualTo(sent);
            assertThat(deserializer.deserialize(topic, new RecordHeaders(), payload)).isEqualTo(sent);
            assertThat(deserializer.deserialize(topic, payload)).isEqualTo(sent);
        }
    }

    @Test
    void registry_refusesAnIncompatibleSessionEvent_andAcceptsACompatibleOne() throws Exception {
        registry.init(layout);
        String subject = layout.name(Topics.SESSION_EVENTS) + "-value";
        var current = json.readTree(SessionEvent.getClassSchema().toString());

        var incompatible = current.deepCopy();
        ((com.fasterxml.jackson.databind.node.ArrayNode) incompatible.get("fields")).addObject()
                .put("name", "priority").put("type", "int").put("doc", "no default: old events cannot be read");
        assertThatThrownBy(() -> registry.register(subject, incompatible.toString()))
                .hasMessageContaining("refused the schema of subject '" + subject + "'")
                .hasMessageContaining("FULL_TRANSITIVE");

        var compatible = current.deepCopy();
        var field = ((com.fasterxml.jackson.databind.node.ArrayNode) compatible.get("fields")).addObject()
                .put("name", "priority").put("doc", "optional, with a default");
        field.putArray("type").add("null").add("int");
        field.putNull("default");
        int id = registry.register(subject, compatible.toString());
        assertThat(json.readTree(get("/subjects/" + subject + "/versions"))).hasSize(2);
        assertThat(id).isPositive();
    }

    private HashMap<String, Object> producerConfig() {
        var config = new HashMap<>(stack.clientConfig());
        config.put(ProducerConfig.ACKS_CONFIG, "all");
        config.put(ProducerConfig.PARTITIONER_CLASS_CONFIG, SessionPartitioner.class.getName());
        return config;
    }

    /** {@code event} sent to {@code topic} through the serde as event 1 of its session, and read back as it is in the topic. */
    private ConsumerRecord<byte[], byte[]> sentAndReadBack(String topic, SessionEvent event) throws Exception {
        try (Serde<SessionEvent> serde = AvroSerdes.valueSerde(stack.registryUrl());
                var producer = new KafkaProducer<>(producerConfig(), new SessionEventKeySerde(), serde.serializer())) {
            producer.send(new ProducerRecord<>(topic, new SessionEventKey(event.getSessionId(), 1), event)).get();
        }
        return readOne(topic);
    }

    private ConsumerRecord<byte[], byte[]> readOne(String topic) {
        var config = new HashMap<>(stack.clientConfig());
        config.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        try (var consumer = new KafkaConsumer<>(config, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            var partitions = consumer.partitionsFor(topic).stream().map(p -> new TopicPartition(topic, p.partition())).toList();
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            long deadline = System.nanoTime() + TIMEOUT.toNanos();
            while (System.nanoTime() < deadline) {
                for (var record : consumer.poll(Duration.ofMillis(200))) {
                    return record;
                }
            }
        }
        throw new AssertionError("no record in " + topic);
    }

    private String get(String path) throws Exception {
        var response = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build().send(
                HttpRequest.newBuilder(URI.create(stack.ccompatUrl() + path)).timeout(Duration.ofSeconds(30)).GET().build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).as("GET %s: %s", path, response.body()).isEqualTo(200);
        return response.body();
    }

}
