package dev.tether.session.kafka;

import dev.tether.testing.StreamsConfigurationContract;
import java.util.Map;

/** What the session-service's Kafka Streams application starts with: see {@link StreamsConfigurationContract}. */
class StreamsConfigurationTest extends StreamsConfigurationContract {

    @Override
    protected String serviceName() {
        return "session-service";
    }

    @Override
    protected int port() {
        return 8080;
    }

    @Override
    protected String sourceTopics() {
        return "session-commands,session-events,harness-versions";
    }

    /**
     * A 20 ms commit interval (the verdict of an append waits for its commit), polls that block at most 10 ms (so an idle
     * thread checks for a due commit every 10 ms, not every 100).
     */
    @Override
    protected Map<String, String> ownSettings() {
        return Map.of("kafka-streams.commit.interval.ms", "20", "kafka-streams.poll.ms", "10");
    }
}
