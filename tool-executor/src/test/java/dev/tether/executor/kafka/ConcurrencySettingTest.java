package dev.tether.executor.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** A concurrency of 0 or less made a thread pool that failed with a bare IllegalArgumentException, naming no setting. */
class ConcurrencySettingTest {

    @Test
    void aConcurrencyBelowOne_isRefusedNamingTheSetting() {
        for (int n : new int[] {0, -4}) {
            assertThatThrownBy(() -> Executor.concurrency(n)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("tether.executor.concurrency").hasMessageContaining("not " + n);
        }
        assertThat(Executor.concurrency(1)).isEqualTo(1);
        assertThat(Executor.concurrency(16)).isEqualTo(16);
    }
}
