package dev.tether.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class DurationsTest {

    @Test
    void parsesWhatPeopleType_andIso() {
        assertThat(Durations.parse("500ms")).isEqualTo(Duration.ofMillis(500));
        assertThat(Durations.parse("30s")).isEqualTo(Duration.ofSeconds(30));
        assertThat(Durations.parse("5m")).isEqualTo(Duration.ofMinutes(5));
        assertThat(Durations.parse("1h")).isEqualTo(Duration.ofHours(1));
        assertThat(Durations.parse("PT2S")).isEqualTo(Duration.ofSeconds(2));
        assertThat(Durations.parse("pt2s")).isEqualTo(Duration.ofSeconds(2));
    }

    @Test
    void refusesNonsense_andZero() {
        assertThatThrownBy(() -> Durations.parse("soon")).hasMessageContaining("is not a duration (e.g. 500ms, 30s, 5m, 1h)");
        assertThatThrownBy(() -> Durations.parse("0s")).hasMessageContaining("is not a positive duration");
    }

    @Test
    void refusesWhatNoClientCanWaitFor_insteadOfOverflowingInsideOne() {
        assertThat(Durations.parse("596h")).isEqualTo(Duration.ofHours(596));
        for (String tooLong : new String[] {"597h", "720h", "PT1000000H", "9999999999999999h", "99999999999999999999s"}) {
            assertThatThrownBy(() -> Durations.parse(tooLong)).as(tooLong).isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("'" + tooLong + "' is out of range: from 1ms to 596h");
        }
        assertThatThrownBy(() -> Durations.parse("PT0.0001S")).hasMessage("'PT0.0001S' is out of range: from 1ms to 596h");
    }

    @Test
    void formatsForPeople() {
        assertThat(Durations.format(Duration.ofMillis(850))).isEqualTo("850 ms");
        assertThat(Durations.format(Duration.ofMillis(2340))).isEqualTo("2.3 s");
        assertThat(Durations.format(Duration.ofSeconds(41))).isEqualTo("41 s");
        assertThat(Durations.format(Duration.ofSeconds(185))).isEqualTo("3 min 5 s");
        assertThat(Durations.format(Duration.ofMinutes(2))).isEqualTo("2 min");
    }
}
