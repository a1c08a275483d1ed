package dev.tether.approval.kafka;

import dev.tether.testing.StreamsConfigurationContract;

/** What the approval-service's Kafka Streams application starts with: see {@link StreamsConfigurationContract}. */
class StreamsConfigurationTest extends StreamsConfigurationContract {

    @Override
    protected String serviceName() {
        return "approval-service";
    }

    @Override
    protected int port() {
        return 8082;
    }

    @Override
    protected String sourceTopics() {
        return "session-events,session-commands";
    }
}
