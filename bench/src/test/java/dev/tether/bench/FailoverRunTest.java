package dev.tether.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Figure 10's growth: the median kill at the largest size over the median at the smallest, each the later of reads and appends. */
class FailoverRunTest {

    private static Failover.Round kill(long events, double readsMs, double appendsMs) {
        return new Failover.Round(events, 1_000, "a", 6, readsMs, appendsMs, 0, 0, 0, 0, 0);
    }

    @Test
    void growthIsTheRatioOfTheMedianKills_notOfOneKillPerSize() {
        var run = new Failover.Run(List.of(
                kill(100_000, 1_200, 6_200), kill(100_000, 2_200, 7_200), kill(100_000, 8_000, 2_700),
                kill(1_000_000, 3_400, 6_900), kill(1_000_000, 2_900, 6_900), kill(1_000_000, 2_200, 5_900)), Map.of());

        assertThat(run.bySize().keySet()).containsExactly(100_000L, 1_000_000L);
        assertThat(run.bySize().get(100_000L).values()).containsExactly(6_200.0, 7_200.0, 8_000.0);
        assertThat(run.bySize().get(1_000_000L).median()).isEqualTo(6_900.0);
        // the first kill alone at each size would give 6,900 / 6,200 = 1.11
        assertThat(run.growth()).isCloseTo(6_900.0 / 7_200.0, within(1e-9));
    }

    @Test
    void sizesAreOrderedBySize_whateverTheOrderOfTheKills() {
        var run = new Failover.Run(List.of(kill(4_000, 1, 3_000), kill(2_000, 1, 2_000)), Map.of());

        assertThat(run.bySize().keySet()).containsExactly(2_000L, 4_000L);
        assertThat(run.growth()).isEqualTo(1.5);
    }
}
