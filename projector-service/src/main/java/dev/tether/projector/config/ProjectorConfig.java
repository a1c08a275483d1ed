package dev.tether.projector.config;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import java.util.Map;

/** The projector's own settings ({@code tether.projector.*}). */
@ConfigMapping(prefix = "tether.projector")
public interface ProjectorConfig {

    /** Context window, in tokens, of a model not listed in {@link #windows()}. */
    @WithDefault("128000")
    int defaultWindow();

    /** Context window, in tokens, by modelId. */
    Map<String, Integer> windows();

    /** Largest page of {@code compaction-source} and {@code events}. */
    @WithDefault("1000")
    int maxPageSize();

    default int windowOf(String modelId) {
        return windows().getOrDefault(modelId, defaultWindow());
    }

    /** Whether a context of {@code tokens} for {@code modelId} should be compacted: above 75 % of its window. */
    default boolean compactionAdvised(String modelId, int tokens) {
        return tokens > windowOf(modelId) * 3L / 4;
    }
}
