package dev.tether.projector.config;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import java.time.Duration;
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

    /** The blob store the services offload large content to, where the blobs no session refers to any more are deleted. */
    Blobs blobs();

    /** {@code tether.projector.blobs.*}. */
    interface Blobs {

        /**
         * The blob store's directory: the session-service's, the executor's and the approval-service's
         * ({@code TETHER_SESSIONS_BLOBS_DIR}).
         */
        String dir();

        /**
         * How long before the blob sweeper's horizon a blob no session refers to any more must have been last put to
         * be deleted: the longest a service may take from putting content to writing the command or tool outcome that
         * carries its ref. The horizon covers the rest of the way (the sequencer, the projector), however long it takes.
         */
        @WithDefault("PT24H")
        Duration grace();

        /** How often the unreferenced blobs are looked at; see {@link #sweep()}. */
        @WithDefault("PT1M")
        Duration sweepEvery();

        /**
         * The consumer group of the session-service's sequencer (its Kafka Streams application id), whose committed
         * offsets on {@code session-commands} are the first stage of the blob sweeper's horizon.
         */
        String sequencerGroup();

        /** Whether unreferenced blobs are deleted at all (they are still tracked when not). */
        @WithDefault("true")
        boolean sweep();
    }

    default int windowOf(String modelId) {
        return windows().getOrDefault(modelId, defaultWindow());
    }

    /** Whether a context of {@code tokens} for {@code modelId} should be compacted: above 75 % of its window. */
    default boolean compactionAdvised(String modelId, int tokens) {
        return tokens > windowOf(modelId) * 3L / 4;
    }
}
