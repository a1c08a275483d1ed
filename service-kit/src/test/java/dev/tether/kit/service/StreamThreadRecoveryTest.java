package dev.tether.kit.service;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tether.kit.kafka.RegistrySettings;
import dev.tether.kit.kafka.RegistryUnavailableException;
import dev.tether.kit.kafka.StoreFormatException;
import dev.tether.testing.MovableClock;
import java.lang.reflect.Proxy;
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

    @Test
    void aRegistryFailureThatKeepsComingWhileTheRegistryAnswers_stopsTheClient_notAReplacementLoopForEver() {
        // one lookup the registry keeps failing (an HTTP 5xx for that schema) while its probe answers: every replacement
        // meets the same record at once; past the cap the client stops, as for a broker error that keeps coming
        var answering = new StreamThreadRecovery(registry(true, true), Duration.ofSeconds(1), clock);
        var failure = new StreamsException(new RegistryUnavailableException("http://registry", "answered HTTP 500", null));
        for (int i = 0; i < StreamThreadRecovery.REGISTRY_REPLACEMENTS; i++) {
            assertThat(answering.handle(failure)).as("replacement %d", i + 1).isEqualTo(StreamThreadExceptionResponse.REPLACE_THREAD);
            clock.advance(Duration.ofSeconds(10));
        }

        assertThat(answering.handle(failure)).isEqualTo(StreamThreadExceptionResponse.SHUTDOWN_CLIENT);

        clock.advance(StreamThreadRecovery.REGISTRY_WINDOW);
        assertThat(answering.handle(failure)).isEqualTo(StreamThreadExceptionResponse.REPLACE_THREAD);
    }

    @Test
    void aRegistryOutage_replacesTheThreadAfterEachWait_howeverLongItLasts_andHoweverOftenItComes() {
        var failure = new StreamsException(new RegistryUnavailableException("http://registry", "refused the connection", null));
        for (boolean backAfterTheWait : new boolean[] {false, true}) {
            var outage = new StreamThreadRecovery(registry(false, backAfterTheWait), Duration.ofSeconds(1), clock);

            for (int i = 0; i < 3 * StreamThreadRecovery.REGISTRY_REPLACEMENTS; i++) {
                assertThat(outage.handle(failure)).as("replacement %d", i + 1).isEqualTo(StreamThreadExceptionResponse.REPLACE_THREAD);
                clock.advance(Duration.ofSeconds(10));
            }
        }
    }

    /** A registry whose probe answers at once, or after the wait, or not; never started. */
    private static RegistryAccess registry(boolean answersAtOnce, boolean answersAfterTheWait) {
        var settings = new RegistrySettings("http://127.0.0.1:1/apis/registry/v3", Duration.ofMillis(100), Duration.ofMillis(100));
        var registryConfig = (TetherConfig.Registry) Proxy.newProxyInstance(StreamThreadRecoveryTest.class.getClassLoader(),
                new Class<?>[] {TetherConfig.Registry.class}, (proxy, method, args) -> settings);
        var config = (TetherConfig) Proxy.newProxyInstance(StreamThreadRecoveryTest.class.getClassLoader(),
                new Class<?>[] {TetherConfig.class}, (proxy, method, args) -> registryConfig);
        return new RegistryAccess(config) {
            @Override
            boolean answersNow() {
                return answersAtOnce;
            }

            @Override
            boolean awaitReachable(Duration max) {
                return answersAtOnce || answersAfterTheWait;
            }
        };
    }
}
