package dev.tether.projector.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.tether.kit.service.rest.ApiException;
import dev.tether.testing.IdleStreams;
import java.nio.file.Path;
import org.apache.kafka.streams.KafkaStreams;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * While the projection is not serving (rebalancing, or a store still restoring), a read answers 503
 * with {@code Retry-After} and no checkpoint: never stale data. The Streams instance is never started
 * (no broker, {@link IdleStreams}); only its state and its store lookup are set.
 */
class ProjectorReadsTest {

    @TempDir
    Path stateDir;

    private IdleStreams streams;

    @AfterEach
    void close() {
        streams.close();
    }

    @Test
    void whileRebalancing_readsAnswer503WithRetryAfter_andNoBody() {
        streams = new IdleStreams("projector-reads-test", stateDir, KafkaStreams.State.REBALANCING, IdleStreams.NO_LOOKUP);
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
        assertThat(streams.lookups()).as("no store is read while rebalancing").isZero();
    }

    @Test
    void whileAStoreIsRestoring_readsAnswer503WithRetryAfter() {
        streams = new IdleStreams("projector-reads-test", stateDir, KafkaStreams.State.RUNNING, IdleStreams.RESTORING);
        var reads = new ProjectorReads(streams);

        ApiException refused = catchThrowableOfType(ApiException.class, () -> reads.checkpoint("acme", "s-1"));

        assertThat(refused).isNotNull();
        assertThat(refused.status()).isEqualTo(503);
        assertThat(refused.toResponse().getHeaderString("Retry-After")).isEqualTo("1");
        assertThat(refused.body()).containsEntry("error", "unavailable").containsEntry("message", "the projection is restoring; try again shortly");
        assertThat(streams.lookups()).isEqualTo(1);
    }
}
