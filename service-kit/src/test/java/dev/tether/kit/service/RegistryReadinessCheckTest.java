package dev.tether.kit.service;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tether.kit.kafka.RegistryConnection.Status;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class RegistryReadinessCheckTest {

    private static final Duration GRACE = Duration.ofSeconds(15);
    private static final Instant FAILING_SINCE = Instant.parse("2026-12-01T10:00:00Z");

    @Test
    void aRegistryThatAnswers_isReady() {
        assertThat(RegistryReadinessCheck.ready(new Status(true, FAILING_SINCE, "answered HTTP 200", true), GRACE,
                FAILING_SINCE.plus(Duration.ofHours(1)))).isTrue();
    }

    @Test
    void aRegistryThatAnsweredBefore_staysReadyForTheGrace_thenIsDown() {
        var failing = new Status(false, FAILING_SINCE, "did not answer within 8000 ms", true);

        assertThat(RegistryReadinessCheck.ready(failing, GRACE, FAILING_SINCE.plusSeconds(14))).isTrue();
        assertThat(RegistryReadinessCheck.ready(failing, GRACE, FAILING_SINCE.plusSeconds(15))).isFalse();
        assertThat(RegistryReadinessCheck.ready(failing, GRACE, FAILING_SINCE.plusSeconds(600))).isFalse();
    }

    @Test
    void aRegistryThatNeverAnswered_isDownAtOnce() {
        var never = new Status(false, FAILING_SINCE, "connection refused", false);

        assertThat(RegistryReadinessCheck.ready(never, GRACE, FAILING_SINCE)).isFalse();
        assertThat(RegistryReadinessCheck.ready(new Status(false, FAILING_SINCE, "not asked yet", false), GRACE, FAILING_SINCE)).isFalse();
    }
}
