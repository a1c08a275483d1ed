package dev.tether.bench;

import dev.tether.client.TetherClient;
import java.time.Duration;
import java.util.Map;

/**
 * What the figures after the projection run share: the SDK client, the load generator, the broker's admin
 * view of the run's topics, and the two services' CPU counters.
 *
 * @param prefix the run's topic prefix (every topic and Streams application id of the run starts with it)
 */
record Rig(TetherClient client, AppendLoad load, String prefix, ProjectionCatchUp watch, StoreSizes sizes, ServiceCpu projectorCpu,
        ServiceCpu sessionServiceCpu) {

    String eventsTopic() {
        return prefix + "session-events";
    }

    /** The projector's Kafka Streams application id, which prefixes its changelog topics too. */
    String projectorApp() {
        return prefix + "tether-projector-service";
    }

    /** Returns once the projector has committed the end of {@code session-events}: all appended events are folded. */
    void awaitProjected() throws Exception {
        watch.awaitCaughtUp(projectorApp(), eventsTopic(), Duration.ofMinutes(10), 50);
    }

    /** Bytes on disk of every topic of Tether in this run (not the raw ceiling's topic), by name without the prefix. */
    Map<String, Long> tetherTopicBytes() throws Exception {
        return sizes.tetherBytes(prefix);
    }

    /** Whether {@code topic} (without the prefix) holds what the projector writes: its changelogs, checkpoints and tool requests. */
    static boolean isProjectorOutput(String topic) {
        return topic.startsWith("tether-projector-service") || topic.equals("session-checkpoints") || topic.equals("tool-requests");
    }
}
