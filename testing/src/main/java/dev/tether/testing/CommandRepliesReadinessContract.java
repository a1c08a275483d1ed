package dev.tether.testing;

import static io.restassured.RestAssured.given;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.quarkus.test.junit.QuarkusTestProfile;
import io.restassured.path.json.JsonPath;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.function.Predicate;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.junit.jupiter.api.Test;

/**
 * A service that waits for the sequencer's verdicts is not ready until it reads them. Started on topics nobody has
 * created yet ({@code tether.topics.init=none}, a fresh prefix: as when another service creates them), it stays
 * DOWN while {@code session-replies} is missing — even once its Kafka Streams application runs — and becomes ready
 * once the topic exists. A service's test extends it as a {@code @QuarkusTest} with {@link TetherStackResource} and
 * the profile {@link UncreatedTopics}.
 */
public abstract class CommandRepliesReadinessContract {

    /** The topic prefix of the run, fresh per JVM. */
    private static final String PREFIX = "readiness-" + UUID.randomUUID() + ".";

    private static final Duration START = Duration.ofSeconds(90);

    /** The topics the service's Kafka Streams application reads (unprefixed), which it waits for before it starts. */
    protected abstract List<String> streamsSourceTopics();

    @Test
    void readiness_isDown_untilSessionRepliesExists_andUpOnceTheChannelReadsIt() throws Exception {
        JsonPath before = ready();
        assertEquals("DOWN", before.getString("status"));
        assertEquals("DOWN", check(before, "tether-command-replies", "status"));
        assertEquals("WAITING_FOR_TOPIC", check(before, "tether-command-replies", "data.state"));

        create(streamsSourceTopics());
        JsonPath streaming = awaitReady(h -> "UP".equals(check(h, "tether-streams-running", "status")));
        assertEquals("DOWN", streaming.getString("status"));
        assertEquals("WAITING_FOR_TOPIC", check(streaming, "tether-command-replies", "data.state"));

        create(List.of("session-replies"));
        JsonPath after = awaitReady(h -> "UP".equals(h.getString("status")));
        assertEquals("UP", check(after, "tether-command-replies", "status"));
        assertEquals("READING", check(after, "tether-command-replies", "data.state"));
    }

    /** Topics nobody has created yet, and a service that creates none. */
    public static class UncreatedTopics implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("tether.topics.init", "none", "tether.topics.prefix", PREFIX);
        }
    }

    private static JsonPath ready() {
        return given().get("/q/health/ready").then().extract().jsonPath();
    }

    private static String check(JsonPath health, String name, String path) {
        return health.getString("checks.find { it.name == '" + name + "' }." + path);
    }

    private static JsonPath awaitReady(Predicate<JsonPath> condition) throws InterruptedException {
        long deadline = System.nanoTime() + START.toNanos();
        JsonPath health = ready();
        while (!condition.test(health)) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("readiness did not get there within " + START + ": " + health.prettify());
            }
            Thread.sleep(200);
            health = ready();
        }
        return health;
    }

    private static void create(List<String> topics) throws ExecutionException, InterruptedException {
        try (Admin admin = Admin.create(TetherStack.shared().clientConfig())) {
            admin.createTopics(topics.stream().map(t -> new NewTopic(PREFIX + t, 6, (short) 1)).toList()).all().get();
        }
    }
}
