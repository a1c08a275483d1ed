package dev.tether.kit.service;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tether.kit.kafka.StoreFormatException;
import dev.tether.testing.MovableClock;
import java.time.Duration;
import java.time.Instant;
import org.apache.kafka.common.errors.InvalidTxnStateException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.streams.errors.StreamsException;
import org.apache.kafka.streams.errors.StreamsUncaughtExceptionHandler.StreamThreadExceptionResponse;
import org.junit.jupiter.api.Test;

/** Which failed stream threads are replaced, and when the client stops instead (the registry's case: RegistryOutageIT). */
class StreamThreadRecoveryTest {

    private final MovableClock clock = new MovableClock(Instant.parse("2026-12-01T12:00:00Z"));
    private final StreamThreadRecovery recovery = new StreamThreadRecovery(null, Duration.ofSeconds(1), clock);

    @Test
    void aCommitRefusedWhileTheClusterFailsOver_replacesTheThread() {
        var commit = new StreamsException("commit failed", new InvalidTxnStateException("The producer attempted a transactional "
                + "operation in an invalid state."));

        assertThat(recovery.handle(commit)).isEqualTo(StreamThreadExceptionResponse.REPLACE_THREAD);
        assertThat(recovery.handle(new StreamsException(new TimeoutException("Timeout expired after 60000ms"))))
                .isEqualTo(StreamThreadExceptionResponse.REPLACE_THREAD);
    }

    @Test
    void aBrokerErrorThatKeepsComing_stopsTheClient_andOneOutsideTheWindowIsReplacedAgain() {
        var error = new StreamsException(new InvalidTxnStateException("invalid state"));
        for (int i = 0; i < StreamThreadRecovery.BROKER_REPLACEMENTS; i++) {
            assertThat(recovery.handle(error)).as("replacement %d", i + 1).isEqualTo(StreamThreadExceptionResponse.REPLACE_THREAD);
            clock.advance(Duration.ofSeconds(10));
        }

        assertThat(recovery.handle(error)).isEqualTo(StreamThreadExceptionResponse.SHUTDOWN_CLIENT);

        clock.advance(StreamThreadRecovery.BROKER_WINDOW);
        assertThat(recovery.handle(error)).isEqualTo(StreamThreadExceptionResponse.REPLACE_THREAD);
    }

    @Test
    void anythingElse_stopsTheClient() {
        assertThat(recovery.handle(new StreamsException(StoreFormatException.newer("session-heads", 9, 2))))
                .isEqualTo(StreamThreadExceptionResponse.SHUTDOWN_CLIENT);
        assertThat(recovery.handle(new IllegalStateException("a bug"))).isEqualTo(StreamThreadExceptionResponse.SHUTDOWN_CLIENT);
    }
}
