package dev.tether.projector.kafka;

import dev.tether.testing.StreamsConfigurationContract;

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
        return "session-events,tool-outcomes,blob-references";
    }
}
