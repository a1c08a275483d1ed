package dev.tether.cli;

import static org.assertj.core.api.Assertions.assertThat;

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
}
