package dev.tether.testing;

import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;
import java.util.Map;

/**
 * Points a {@code @QuarkusTest} at the JVM's real broker and registry:
 * {@code @QuarkusTestResource(TetherStackResource.class)}. The stack outlives the test class
 * (it is shared by the JVM), so {@link #stop()} leaves it running.
 */
public class TetherStackResource implements QuarkusTestResourceLifecycleManager {

    @Override
    public Map<String, String> start() {
        TetherStack stack = TetherStack.shared();
        // the address Kafka Streams advertises for interactive queries is the one the test's server listens on: with a
        // port of 0 it would advertise the configured one instead, and a read over all sessions would ask that address
        // (nobody) for this instance's partitions (OwnerRouting.gatherFromOthers)
        int port = Ports.free();
        return Map.of(
                "quarkus.http.test-port", Integer.toString(port),
                "quarkus.kafka-streams.application-server", "127.0.0.1:" + port,
                "kafka.bootstrap.servers", stack.bootstrapServers(),
                "tether.registry.url", stack.registryUrl(),
                // Kafka Streams state belongs to this broker: a state directory left by an earlier
                // run against another broker would look corrupt and be restored from scratch
                "kafka-streams.state.dir", stack.scratchDir("kafka-streams-state").toString());
    }

    @Override
    public void stop() {
        // shared by every test of this JVM; stopped when the JVM exits
    }
}
