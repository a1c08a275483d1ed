package dev.tether.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.config.ConfigException;
import org.junit.jupiter.api.Test;

class ErrorReporterTest {

    @Test
    void aListOfProblems_becomesOneLine() {
        assertThat(ErrorReporter.oneLine("Kafka topics are misconfigured; refusing to run on them:\n  - topic 'a' is wrong\n  - topic 'b' too"))
                .isEqualTo("Kafka topics are misconfigured; refusing to run on them: topic 'a' is wrong; topic 'b' too");
        assertThat(ErrorReporter.oneLine("first line\nsecond line\n")).isEqualTo("first line second line");
    }

    @Test
    void aKafkaClientFailure_saysWhy_notOnlyThatTheClientCouldNotBeMade() {
        var e = new KafkaException("Failed to construct kafka consumer",
                new ConfigException("No resolvable bootstrap urls given in bootstrap.servers"));

        assertThat(ErrorReporter.describe(e, null))
                .isEqualTo("Kafka: Failed to construct kafka consumer: No resolvable bootstrap urls given in bootstrap.servers");
    }

    @Test
    void aFailuresStackTrace_followsItsLine_onlyWhenTetherDebugIsOn() {
        String[] failing = {"--session-url", "http://127.0.0.1:9", "sessions", "show", "s1"}; // nothing listens on port 9
        for (String off : new String[] {"0", "", "false", "OFF", "no"}) {
            CliRun run = CliRun.run(Map.of("TETHER_DEBUG", off), failing);
            assertThat(run.exitCode()).as("TETHER_DEBUG='%s': %s", off, run).isEqualTo(1);
            assertThat(run.errLines()).as("TETHER_DEBUG='%s': %s", off, run).hasSize(1);
        }
        assertThat(CliRun.run(Map.of(), failing).errLines()).hasSize(1);
        for (String on : new String[] {"1", "true", "yes"}) {
            CliRun run = CliRun.run(Map.of("TETHER_DEBUG", on), failing);
            assertThat(run.errLines()).as("TETHER_DEBUG='%s': %s", on, run).hasSizeGreaterThan(1);
            assertThat(run.err()).as("TETHER_DEBUG='%s'", on).contains("\tat dev.tether.cli.");
        }
    }
}
