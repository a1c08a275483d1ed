package dev.tether.kit.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import org.apache.kafka.streams.KafkaStreams;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link StoreSignals}: a reader waiting for a write is woken by the writer's signal, not by polling; a write that
 * lands between the reader's registration and its wait is never missed; without a signal the reader answers at its
 * deadline, having looked exactly twice.
 */
class StoreSignalsTest {

    private static final String STORE = "events";

    private final StoreSignals signals = new StoreSignals();
    private final Map<String, Long> store = new ConcurrentHashMap<>();
    private final AtomicInteger checks = new AtomicInteger();
    private final ExecutorService threads = Executors.newCachedThreadPool();

    @AfterEach
    void stop() {
        threads.shutdownNow();
    }

    /** The reader's check: the session's last seq once it reached {@code wanted}. */
    private Supplier<Optional<Long>> reached(String sessionId, long wanted) {
        return () -> {
            checks.incrementAndGet();
            return Optional.ofNullable(store.get(sessionId)).filter(seq -> seq >= wanted);
        };
    }

    /** The writer: stores, then signals, as a materializer does. */
    private void write(String sessionId, long seq) {
        store.put(sessionId, seq);
        signals.changed(STORE, sessionId);
    }

    private void awaitWaiters(int n) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (signals.waiting() < n) {
            assertThat(System.nanoTime()).as("%d readers waiting", n).isLessThan(deadline);
            Thread.onSpinWait();
        }
    }

    @Test
    void aWaitingReader_isWokenByTheWritersSignal_andLooksOnlyThen() throws Exception {
        Future<Optional<Long>> answer = threads.submit(() -> signals.await(STORE, "s-1", Duration.ofSeconds(30), reached("s-1", 3)));
        awaitWaiters(1);
        Thread.sleep(200); // a poll would have looked many times by now
        assertThat(checks).as("looked once, then waited").hasValue(1);

        write("s-1", 3);

        assertThat(answer.get(5, TimeUnit.SECONDS)).contains(3L);
        assertThat(checks).hasValue(2);
        assertThat(signals.waiting()).as("the reader is gone once answered").isZero();
    }

    @Test
    void aWriteNotYetFarEnough_wakesTheReader_whichWaitsOnForTheRest() throws Exception {
        Future<Optional<Long>> answer = threads.submit(() -> signals.await(STORE, "s-1", Duration.ofSeconds(30), reached("s-1", 3)));
        awaitWaiters(1);

        write("s-1", 2);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (checks.get() < 2) {
            assertThat(System.nanoTime()).isLessThan(deadline);
            Thread.onSpinWait();
        }
        assertThat(answer).isNotDone();
        write("s-1", 3);

        assertThat(answer.get(5, TimeUnit.SECONDS)).contains(3L);
        assertThat(checks).hasValue(3);
    }

    @Test
    void aWriteBetweenTheCheckAndTheWait_isNotLost() throws Exception {
        // the writer stores and signals just after the reader's first check looked and found nothing
        Supplier<Optional<Long>> racing = () -> {
            Optional<Long> seen = reached("s-1", 1).get();
            if (checks.get() == 1) {
                write("s-1", 1);
            }
            return seen;
        };
        long start = System.nanoTime();

        Optional<Long> answer = signals.await(STORE, "s-1", Duration.ofSeconds(30), racing);

        assertThat(answer).contains(1L);
        assertThat(checks).hasValue(2);
        assertThat(Duration.ofNanos(System.nanoTime() - start)).as("no wait for the deadline").isLessThan(Duration.ofSeconds(5));
    }

    @Test
    void writesRacingReaders_areNeverMissed() throws Exception {
        int rounds = 500;
        long start = System.nanoTime();
        for (int i = 0; i < rounds; i++) {
            String sessionId = "race-" + i;
            var go = new CountDownLatch(1);
            Future<?> writer = threads.submit(() -> {
                go.await();
                write(sessionId, 1);
                return null;
            });
            Future<Optional<Long>> reader = threads.submit(() -> {
                go.countDown();
                return signals.await(STORE, sessionId, Duration.ofSeconds(20), reached(sessionId, 1));
            });
            writer.get(20, TimeUnit.SECONDS);
            assertThat(reader.get(20, TimeUnit.SECONDS)).as("round %d", i).contains(1L);
        }
        assertThat(Duration.ofNanos(System.nanoTime() - start)).as("no round waited for its deadline").isLessThan(Duration.ofSeconds(15));
        assertThat(signals.waiting()).isZero();
    }

    @Test
    void withoutASignal_theReaderAnswersEmptyAtItsDeadline_havingLookedAtOnceAndThen() throws Exception {
        long start = System.nanoTime();

        Optional<Long> answer = signals.await(STORE, "s-1", Duration.ofMillis(300), reached("s-1", 1));

        Duration waited = Duration.ofNanos(System.nanoTime() - start);
        assertThat(answer).isEmpty();
        assertThat(waited).isGreaterThanOrEqualTo(Duration.ofMillis(300)).isLessThan(Duration.ofSeconds(5));
        assertThat(checks).hasValue(2);
        assertThat(signals.waiting()).isZero();
    }

    @Test
    void aSignalOfAnotherKeyOrStore_doesNotWakeTheReader() throws Exception {
        Future<Optional<Long>> answer = threads.submit(() -> signals.await(STORE, "s-1", Duration.ofMillis(600), reached("s-1", 1)));
        awaitWaiters(1);

        write("s-2", 1);
        signals.changed("other-store", "s-1");
        signals.changed(STORE, "s-10");

        assertThat(answer.get(5, TimeUnit.SECONDS)).isEmpty();
        assertThat(checks).as("at once and at the deadline only").hasValue(2);
    }

    @Test
    void everyReaderOfTheKey_isWoken() throws Exception {
        var answers = new ArrayList<Future<Optional<Long>>>();
        for (int i = 0; i < 4; i++) {
            answers.add(threads.submit(() -> signals.await(STORE, "s-1", Duration.ofSeconds(30), reached("s-1", 1))));
        }
        awaitWaiters(4);

        write("s-1", 1);

        for (Future<Optional<Long>> answer : answers) {
            assertThat(answer.get(5, TimeUnit.SECONDS)).contains(1L);
        }
        assertThat(signals.waiting()).isZero();
    }

    @Test
    void aChangeOfTheApplicationsState_wakesEveryReader_whoseCheckAnswersForIt() throws Exception {
        var running = new AtomicBoolean(true);
        Supplier<Optional<Long>> check = () -> {
            if (!running.get()) {
                throw new IllegalStateException("rebalancing");
            }
            return Optional.empty();
        };
        Future<Optional<Long>> a = threads.submit(() -> signals.await(STORE, "s-1", Duration.ofSeconds(30), check));
        Future<Optional<Long>> b = threads.submit(() -> signals.await("versions", "v1", Duration.ofSeconds(30), check));
        awaitWaiters(2);

        running.set(false);
        signals.onChange(KafkaStreams.State.REBALANCING, KafkaStreams.State.RUNNING);

        for (Future<Optional<Long>> answer : List.of(a, b)) {
            assertThatThrownBy(() -> answer.get(5, TimeUnit.SECONDS)).hasCauseInstanceOf(IllegalStateException.class);
        }
        assertThat(signals.waiting()).as("a reader whose check threw is gone too").isZero();
    }

    @Test
    void anInterruptedReader_stopsWaiting_withInterruptedException() throws Exception {
        var thrown = new AtomicReference<Throwable>();
        var reader = new Thread(() -> {
            try {
                signals.await(STORE, "s-1", Duration.ofSeconds(30), reached("s-1", 1));
            } catch (Throwable e) {
                thrown.set(e);
            }
        });
        reader.start();
        awaitWaiters(1);

        reader.interrupt();
        reader.join(5_000);

        assertThat(reader.isAlive()).isFalse();
        assertThat(thrown.get()).isInstanceOf(InterruptedException.class);
        assertThat(signals.waiting()).isZero();
    }
}
