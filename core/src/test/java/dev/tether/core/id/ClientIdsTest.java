package dev.tether.core.id;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class ClientIdsTest {

    @ParameterizedTest
    @ValueSource(strings = {"s1", "a", "Session-2026.12_05", "0abc"})
    void takesLettersDigitsDotsUnderscoresAndDashes_startingWithALetterOrDigit(String id) {
        assertThat(ClientIds.isValid(id)).isTrue();
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "-s", ".s", "_s", "s/1", "s~1", "s\u00001", "s 1", "sé", "s:1"})
    void refusesAnythingElse_soAnIdNeverHoldsAKeySeparator(String id) {
        assertThat(ClientIds.isValid(id)).isFalse();
    }

    @Test
    void takes128Characters_notMore_andNotNull() {
        assertThat(ClientIds.isValid("a".repeat(128))).isTrue();
        assertThat(ClientIds.isValid("a".repeat(129))).isFalse();
        assertThat(ClientIds.isValid(null)).isFalse();
    }
}
