package dev.tether.core.event;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** A token count is the client's: sums saturate at the largest long, never wrap negative nor throw. */
class TokenUsageTest {

    @Test
    void sumsNearTheLargestLong_saturate() {
        var huge = new TokenUsage(Long.MAX_VALUE, Long.MAX_VALUE);

        assertThat(huge.total()).isEqualTo(Long.MAX_VALUE);
        assertThat(huge.plus(new TokenUsage(1, 1))).isEqualTo(huge);
        assertThat(new TokenUsage(3, 4).plus(new TokenUsage(5, 6))).isEqualTo(new TokenUsage(8, 10));
        assertThat(new TokenUsage(3, 4).total()).isEqualTo(7);
    }

    @Test
    void aTurnOfMoreThanATurnMayReport_saysSo() {
        assertThat(new TokenUsage(TokenUsage.MAX_PER_TURN, TokenUsage.MAX_PER_TURN).tooLarge()).isNull();
        assertThat(new TokenUsage(TokenUsage.MAX_PER_TURN + 1, 0).tooLarge()).contains("at most " + TokenUsage.MAX_PER_TURN);
    }
}
