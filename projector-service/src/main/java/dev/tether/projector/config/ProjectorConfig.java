package dev.tether.projector.config;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import java.util.Map;
import java.util.Optional;

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

    /**
     * Where the session-service answers, as this instance reaches it: the live subscription of {@code GET …/events} with
     * {@code Accept: text/event-stream} is relayed from there (the session explorer follows a running session through it).
     */
    @WithDefault("http://127.0.0.1:8080")
    String sessionServiceUrl();

    /**
     * The session explorer's link from an event's trace id into the tracing backend: a URL in which {@code {traceId}}
     * stands for the id (e.g. {@code http://jaeger:16686/trace/{traceId}}); unset (the default), the id is shown without a link.
     */
    Optional<String> explorerTraceUrl();

    default int windowOf(String modelId) {
        return windows().getOrDefault(modelId, defaultWindow());
    }

    /** Whether a context of {@code tokens} for {@code modelId} should be compacted: above 75 % of its window. */
    default boolean compactionAdvised(String modelId, int tokens) {
        return tokens > windowOf(modelId) * 3L / 4;
    }
}
