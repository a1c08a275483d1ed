package dev.tether.session;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tether.avro.SessionEvent;
import dev.tether.kit.kafka.AvroSerdes;
import dev.tether.kit.kafka.SessionEventKeySerde;
import dev.tether.kit.kafka.TopicLayout;
import dev.tether.kit.kafka.Topics;
import dev.tether.testing.ServiceProcess;
import dev.tether.testing.TetherStack;
import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The session-service as its own process, restarted and killed with SIGKILL while it works: an
 * eventId is appended once whatever happens, retries are always safe, and the log stays gapless.
 */
class SequencerCrashIT {

    private static final String AGENT = "Bearer dev-acme-agent";

    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(2)).build();
    private final ObjectMapper json = new ObjectMapper();
    private TopicLayout layout;
    private Path workDir;
    private ServiceProcess service;

    @BeforeEach
    void start() throws IOException {
        String prefix = "crash-" + UUID.randomUUID().toString().substring(0, 8) + ".";
        layout = TopicLayout.local().withPrefix(prefix);
        workDir = Files.createTempDirectory("sequencer-crash-");
        service = new ServiceProcess(Path.of("").toAbsolutePath(), workDir, ServiceProcess.env("TETHER_TOPICS_PREFIX", prefix), List.of())
                .start();
    }

    @AfterEach
    void stop() throws IOException {
        service.close();
        try (var paths = Files.walk(workDir)) {
            paths.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }

    @Test
    void reSendingEventIds_afterTheServiceRestarted_appendsNothing() throws Exception {
        String session = createSession();
        List<String> ids = List.of(uuid(), uuid(), uuid());
        JsonNode first = appendUntilAccepted(session, ids);
        assertThat(seqs(first)).containsExactly(2L, 3L, 4L);

        service.stop();
        service.start();

        JsonNode again = appendUntilAccepted(session, ids);
        assertThat(seqs(again)).containsExactly(2L, 3L, 4L);
        assertThat(again.get("appended")).allSatisfy(a -> assertThat(a.get("duplicate").asBoolean()).isTrue());
        assertThat(again.get("lastSeq").asLong()).isEqualTo(4);
        assertThat(readLog(session)).extracting(SessionEvent::getSeq).containsExactly(1L, 2L, 3L, 4L);
    }

    @Test
    void sigkillInTheMiddleOfBatches_losesNothing_andDuplicatesNothing() throws Exception {
        String session = createSession();
        int batches = 200;
        var accepted = new LinkedHashSet<String>();
        var attempts = new AtomicInteger();
        var done = new AtomicInteger();
        Thread client = new Thread(() -> {
            for (int b = 0; b < batches; b++) {
                List<String> ids = List.of(session + "-" + b + "-a", session + "-" + b + "-b", session + "-" + b + "-c");
                JsonNode reply = appendUntilAccepted(session, ids, attempts);
                reply.get("appended").forEach(a -> accepted.add(a.get("eventId").asText()));
                done.incrementAndGet();
            }
        }, "crash-it-client");
        client.start();

        // each kill lands while the client is appending, however fast the machine (on a quiet one, 40 batches took
        // less than the 2 s the test used to wait before its first kill, and no kill hit a batch)
        for (int killAt : List.of(10, 60)) {
            await().atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofMillis(5)).until(() -> done.get() >= killAt);
            service.kill();
            Thread.sleep(500);
            service.start();
        }
        client.join(Duration.ofMinutes(5).toMillis());
        assertThat(client.isAlive()).as("the client finished").isFalse();

        List<SessionEvent> log = readLog(session);
        List<String> logged = log.stream().map(SessionEvent::getEventId).filter(id -> !id.equals(log.get(0).getEventId())).toList();
        assertThat(accepted).hasSize(batches * 3);
        assertThat(logged).as("every accepted eventId is in the log exactly once").containsExactlyInAnyOrderElementsOf(accepted);
        assertThat(log).extracting(SessionEvent::getSeq).as("gapless from 1")
                .containsExactlyElementsOf(java.util.stream.LongStream.rangeClosed(1, log.size()).boxed().toList());
        assertThat(attempts.get()).as("the kills made the client retry").isGreaterThan(batches);
    }

    // ---------------------------------------------------------------------------------------------

    private String createSession() throws Exception {
        String id = "crash-" + UUID.randomUUID();
        var body = Map.of("objective", "survive crashes", "modelId", "model-x", "toolMode", "READ_ONLY", "sessionId", id,
                "eventId", id + "-started");
        var response = post("/v1/sessions", body);
        for (int retry = 0; response.statusCode() == 503 && retry < 50; retry++) {
            Thread.sleep(200);
            response = post("/v1/sessions", body);
        }
        assertThat(response.statusCode()).as(response.body()).isEqualTo(201);
        return id;
    }

    private JsonNode appendUntilAccepted(String session, List<String> eventIds) {
        return appendUntilAccepted(session, eventIds, new AtomicInteger());
    }

    /** What a careful client does: resend the same eventIds until the service answers. */
    private JsonNode appendUntilAccepted(String session, List<String> eventIds, AtomicInteger attempts) {
        var events = new ArrayList<Map<String, Object>>();
        for (String id : eventIds) {
            events.add(Map.of("eventId", id, "type", "user_message", "content", "message " + id));
        }
        long deadline = System.nanoTime() + Duration.ofMinutes(3).toNanos();
        while (System.nanoTime() < deadline) {
            attempts.incrementAndGet();
            try {
                var response = post("/v1/sessions/" + session + "/events", Map.of("events", events));
                if (response.statusCode() == 200) {
                    return json.readTree(response.body());
                }
                assertThat(response.statusCode()).as("only 503 may be retried: %s", response.body()).isIn(503);
            } catch (ConnectException e) {
                // the service is down or starting
            } catch (IOException e) {
                // the connection broke mid-request: the outcome is unknown, so resend
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
            try {
                Thread.sleep(200);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }
        throw new AssertionError("not accepted within 3 minutes: " + eventIds);
    }

    private HttpResponse<String> post(String path, Object body) throws IOException, InterruptedException {
        var request = HttpRequest.newBuilder(URI.create(service.baseUrl() + path))
                .timeout(Duration.ofSeconds(20))
                .header("Authorization", AGENT)
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(json.writeValueAsString(body)))
                .build();
        return http.send(request, HttpResponse.BodyHandlers.ofString());
    }

    private static List<Long> seqs(JsonNode reply) {
        var seqs = new ArrayList<Long>();
        reply.get("appended").forEach(a -> seqs.add(a.get("seq").asLong()));
        return seqs;
    }

    /** The session's events as committed to session-events, in log order. */
    private List<SessionEvent> readLog(String session) {
        TetherStack stack = TetherStack.shared();
        var config = new HashMap<>(stack.clientConfig());
        config.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        String topic = layout.name(Topics.SESSION_EVENTS);
        var events = new ArrayList<SessionEvent>();
        try (var serde = AvroSerdes.<SessionEvent>valueSerde(stack.registryUrl());
                var consumer = new KafkaConsumer<>(config, new SessionEventKeySerde(), serde.deserializer())) {
            var partitions = consumer.partitionsFor(topic).stream().map(p -> new TopicPartition(topic, p.partition())).toList();
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            Map<TopicPartition, Long> end = consumer.endOffsets(partitions);
            while (partitions.stream().anyMatch(p -> consumer.position(p) < end.get(p))) {
                for (var record : consumer.poll(Duration.ofMillis(200))) {
                    if (record.key().sessionId().equals(session) && record.value() != null) {
                        events.add(record.value());
                    }
                }
            }
        }
        return events;
    }

    private static String uuid() {
        return UUID.randomUUID().toString();
    }
}
