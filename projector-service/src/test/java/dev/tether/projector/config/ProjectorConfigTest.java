package dev.tether.projector.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Windows by modelId and the 75 % threshold of {@code compactionAdvised}. */
class ProjectorConfigTest {

    /** A window of 1,000 tokens for "tiny-model", 400 for every other model. */
    private static final ProjectorConfig CONFIG = new ProjectorConfig() {
        @Override
        public int defaultWindow() {
            return 400;
        }

        @Override
        public Map<String, Integer> windows() {
            return Map.of("tiny-model", 1_000);
        }

        @Override
        public int maxPageSize() {
            return 1_000;
        }

        @Override
        public String sessionServiceUrl() {
            return "http://127.0.0.1:8080";
        }

        @Override
        public Optional<String> explorerTraceUrl() {
            return Optional.empty();
        }

        @Override
        public Blobs blobs() {
            throw new UnsupportedOperationException("not used by these tests");
        }
    };

    @Test
    void givenConfiguredModel_thenItsOwnWindow() {
        assertThat(CONFIG.windowOf("tiny-model")).isEqualTo(1_000);
    }

    @Test
    void givenUnlistedModel_thenTheDefaultWindow() {
        assertThat(CONFIG.windowOf("some-other-model")).isEqualTo(400);
    }

    @Test
    void compactionAdvised_isTrueJustAbove75PercentOfTheModelsWindow_andFalseAtOrBelowIt() {
        assertThat(CONFIG.compactionAdvised("tiny-model", 749)).isFalse();
        assertThat(CONFIG.compactionAdvised("tiny-model", 750)).isFalse();
        assertThat(CONFIG.compactionAdvised("tiny-model", 751)).isTrue();
        assertThat(CONFIG.compactionAdvised("tiny-model", 5_000)).isTrue();
    }

    @Test
    void compactionAdvised_forAnUnlistedModel_usesTheDefaultWindow() {
        assertThat(CONFIG.compactionAdvised("some-other-model", 300)).isFalse();
        assertThat(CONFIG.compactionAdvised("some-other-model", 301)).isTrue();
        assertThat(CONFIG.compactionAdvised("tiny-model", 301)).as("the same count is fine for the larger window").isFalse();
    }
}
