package dev.tether.projector.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.tether.kit.service.rest.ApiException;
import java.nio.file.Path;
import java.util.Properties;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StoreQueryParameters;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.errors.InvalidStateStoreException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * While the projection is not serving (rebalancing, or a store still restoring), a read answers 503
 * with {@code Retry-After} and no checkpoint: never stale data. The Streams instance is never started
 * (no broker); only its state and its store lookup are set.
 */
class ProjectorReadsTest {

    @TempDir
    Path stateDir;

    private StubStreams streams;

    @AfterEach
    void close() {
        streams.close();
    }

    @Test
    void whileRebalancing_readsAnswer503WithRetryAfter_andNoBody() {
        streams = new StubStreams(KafkaStreams.State.REBALANCING, false, stateDir);
        var reads = new ProjectorReads(streams);

        for (Runnable read : new Runnable[] {() -> reads.checkpoint("acme", "s-1"), () -> reads.call("s-1", "c1"), reads::log}) {
            ApiException refused = catchThrowableOfType(ApiException.class, read::run);

            assertThat(refused).isNotNull();
            var response = refused.toResponse();
            assertThat(response.getStatus()).isEqualTo(503);
            assertThat(response.getHeaderString("Retry-After")).isEqualTo("1");
            assertThat(refused.body()).containsEntry("error", "unavailable").containsOnlyKeys("error", "message");
            assertThat((String) refused.body().get("message")).contains("rebalancing");
        }
        assertThat(streams.storeLookups).as("no store is read while rebalancing").isZero();
    }

    @Test
    void whileAStoreIsRestoring_readsAnswer503WithRetryAfter() {
        streams = new StubStreams(KafkaStreams.State.RUNNING, true, stateDir);
        var reads = new ProjectorReads(streams);

        ApiException refused = catchThrowableOfType(ApiException.class, () -> reads.checkpoint("acme", "s-1"));

        assertThat(refused).isNotNull();
        assertThat(refused.status()).isEqualTo(503);
        assertThat(refused.toResponse().getHeaderString("Retry-After")).isEqualTo("1");
        assertThat(refused.body()).containsEntry("error", "unavailable").containsEntry("message", "the projection is restoring; try again shortly");
        assertThat(streams.storeLookups).isEqualTo(1);
    }

    /** A Kafka Streams instance that is never started: a fixed state, and a store lookup that fails as during restoration. */
    private static final class StubStreams extends KafkaStreams {
        private final State state;
        private final boolean restoring;
        int storeLookups;

        StubStreams(State state, boolean restoring, Path stateDir) {
            super(topology(), config(stateDir));
            this.state = state;
            this.restoring = restoring;
        }

        @Override
        public State state() {
            return state;
        }

        @Override
        public <T> T store(StoreQueryParameters<T> parameters) {
            storeLookups++;
            if (restoring) {
                throw new InvalidStateStoreException("store " + parameters.storeName() + " is restoring");
            }
            throw new AssertionError("a store was read");
        }

        private static org.apache.kafka.streams.Topology topology() {
            var builder = new StreamsBuilder();
            builder.stream("in");
            return builder.build();
        }

        private static Properties config(Path stateDir) {
            var props = new Properties();
            props.put(StreamsConfig.APPLICATION_ID_CONFIG, "projector-reads-test");
            props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "127.0.0.1:1");
            props.put(StreamsConfig.STATE_DIR_CONFIG, stateDir.toString());
            return props;
        }
    }
}
