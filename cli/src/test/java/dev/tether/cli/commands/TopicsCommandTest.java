package dev.tether.cli.commands;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tether.cli.CliException;
import dev.tether.cli.FakeServices;
import dev.tether.cli.kafka.KafkaSettings;
import dev.tether.kit.kafka.SchemaRegistryInitializer;
import dev.tether.kit.kafka.TopicLayout;
import dev.tether.kit.kafka.TopicSpec;
import dev.tether.kit.kafka.Topics;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** {@code topics init}'s registry step, against a fake of the registry's Confluent-compatible API. */
class TopicsCommandTest {

    private static final String CCOMPAT = "/apis/ccompat/v7";

    private final FakeServices registry = new FakeServices();
    private final KafkaSettings kafka = new KafkaSettings("127.0.0.1:9", registry.url() + "/apis/registry/v3",
            new TopicLayout("staging.", 3, (short) 1), Duration.ofSeconds(5));

    @AfterEach
    void stop() {
        registry.close();
    }

    @Test
    void verifyOnly_looksEachSchemaAndRuleUp_andRegistersNothing() {
        int id = 1;
        for (TopicSpec spec : Topics.all(kafka.layout())) {
            registry.on("POST " + CCOMPAT + "/subjects/" + spec.valueSubject(), 200,
                            "{\"subject\":\"" + spec.valueSubject() + "\",\"id\":" + id++ + ",\"version\":1}")
                    .on("GET " + CCOMPAT + "/config/" + spec.valueSubject(), 200, "{\"compatibilityLevel\":\"FULL_TRANSITIVE\"}");
        }

        var subjects = TopicsCommand.subjects(kafka, true);

        assertThat(subjects).hasSize(8).first().isEqualTo(new SchemaRegistryInitializer.Subject("staging.session-commands-value", 1,
                "FULL_TRANSITIVE"));
        assertThat(registry.requests()).hasSize(16).allSatisfy(r -> {
            assertThat(r.method()).isIn("GET", "POST");
            assertThat(r.target()).doesNotContain("/versions"); // a POST to /subjects/<s>/versions would register the schema
        });
    }

    @Test
    void verifyOnly_namesEverySubjectWithoutItsSchemaOrRule_andWritesNothing() {
        for (TopicSpec spec : Topics.all(kafka.layout())) {
            boolean missing = spec.name().endsWith(Topics.SESSION_EVENTS);
            registry.on("POST " + CCOMPAT + "/subjects/" + spec.valueSubject(), missing ? 404 : 200,
                            missing ? "{\"error_code\":40401,\"message\":\"Subject not found\"}" : "{\"id\":7}")
                    .on("GET " + CCOMPAT + "/config/" + spec.valueSubject(), 200, "{\"compatibilityLevel\":\""
                            + (spec.name().endsWith(Topics.TOOL_OUTCOMES) ? "BACKWARD" : "FULL_TRANSITIVE") + "\"}");
        }

        assertThatThrownBy(() -> TopicsCommand.subjects(kafka, true)).isInstanceOf(CliException.class)
                .hasMessageContaining("staging.session-events-value does not hold the schema of staging.session-events")
                .hasMessageContaining("staging.tool-outcomes-value has the rule BACKWARD, not FULL_TRANSITIVE");
        assertThat(registry.requests()).noneMatch(r -> r.method().equals("PUT") || r.target().contains("/versions"));
    }

    @Test
    void aRegistryThatFails_isNamedWithTheOptionsThatPointAtIt() {
        String first = Topics.all(kafka.layout()).get(0).valueSubject();
        registry.on("POST " + CCOMPAT + "/subjects/" + first, 503, "{}").on("GET " + CCOMPAT + "/config/" + first, 503, "{}")
                .on("POST " + CCOMPAT + "/subjects/" + first + "/versions", 503, "{}");

        assertThatThrownBy(() -> TopicsCommand.subjects(kafka, true)).isInstanceOf(CliException.class)
                .hasMessageContaining("answered HTTP 503 to POST /subjects/" + first).hasMessageContaining("(see --registry-url and --timeout)");
        assertThatThrownBy(() -> TopicsCommand.subjects(kafka, false)).isInstanceOf(CliException.class)
                .hasMessageContaining("answered HTTP 503 to POST /subjects/" + first + "/versions")
                .hasMessageContaining("(see --registry-url and --timeout)");
    }

    @Test
    void verifyOnly_takesAnAnswerThatIsNeitherTheSubjectNorMissing_forAnError_notForAMissingSchema() {
        String first = Topics.all(kafka.layout()).get(0).valueSubject();
        registry.on("POST " + CCOMPAT + "/subjects/" + first, 401, "{\"message\":\"who are you\"}")
                .on("GET " + CCOMPAT + "/config/" + first, 401, "{}");

        assertThatThrownBy(() -> TopicsCommand.subjects(kafka, true)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("looking up the schema of " + first + " failed: HTTP 401");
        assertThat(registry.requests()).hasSize(2);
    }
}
