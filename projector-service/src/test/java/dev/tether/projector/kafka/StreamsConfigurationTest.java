package dev.tether.projector.kafka;

import dev.tether.testing.StreamsConfigurationContract;
import java.util.Map;

/** What the projector-service's Kafka Streams application starts with: see {@link StreamsConfigurationContract}. */
class StreamsConfigurationTest extends StreamsConfigurationContract {

    @Override
    protected String serviceName() {
        return "projector-service";
    }

    @Override
    protected int port() {
        return 8081;
    }

    @Override
    protected String sourceTopics() {
        return "session-events,tool-outcomes";
    }

    /** A task takes each of its two topics' records as buffered: the fold does not depend on their interleaving. */
    @Override
    protected Map<String, String> ownSettings() {
        return Map.of("kafka-streams.max.task.idle.ms", "-1");
    }
}
