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
        return Map.of(
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
