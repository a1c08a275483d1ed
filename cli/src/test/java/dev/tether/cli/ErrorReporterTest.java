package dev.tether.cli;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ErrorReporterTest {

    @Test
    void aListOfProblems_becomesOneLine() {
        assertThat(ErrorReporter.oneLine("Kafka topics are misconfigured; refusing to run on them:\n  - topic 'a' is wrong\n  - topic 'b' too"))
                .isEqualTo("Kafka topics are misconfigured; refusing to run on them: topic 'a' is wrong; topic 'b' too");
        assertThat(ErrorReporter.oneLine("first line\nsecond line\n")).isEqualTo("first line second line");
    }
}
