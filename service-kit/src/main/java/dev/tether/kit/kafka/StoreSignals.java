package dev.tether.kit.kafka;

import java.time.Duration;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.apache.kafka.streams.KafkaStreams;

/**
 * Read-your-writes waits without polling: a request thread that must see a write in a state store before it answers
 * (an append, then the event store that follows {@code session-events}) waits here until whatever writes that store
 * says it did, instead of sleeping and looking again.
 *
 * <p>The writer (a processor or materializer of the Kafka Streams application, on any stream thread or the global
 * thread) calls {@link #changed} after each write, with the store's name and the key the readers wait on (a session
 * id, a version). A reader calls {@link #await}: it registers first, then checks the store, and checks again after
 * every signal, so a write is either seen by a check or its signal finds the registered reader; no wake-up is lost.
 * A change of the application's state (a rebalance, a return to RUNNING after a restore, which writes stores without
 * their processors) wakes every reader too: its check answers for the new state at once, as a poll would have.
 * Only this instance's writes signal: a reader waiting for data another instance materializes waits until its
 * deadline, exactly as long as a poll would have looked for it.
 *
 * <p>Thread-safe; one per application, shared by its topology and its REST resources. Registered with Kafka Streams
 * as its {@link KafkaStreams.StateListener} (the Quarkus extension does that for the bean of that type).
 */
public final class StoreSignals implements KafkaStreams.StateListener {

    private record Watch(String store, String key) {}

    /** One waiting reader: a permit per signal since it last looked. */
    private static final class Waiter {
        private final Semaphore signals = new Semaphore(0);

        void wake() {
            signals.release();
        }
    }

    private final ConcurrentHashMap<Watch, Set<Waiter>> waiting = new ConcurrentHashMap<>();

    /**
     * Wakes the readers waiting on {@code key} of {@code store}; call it after the write returned. Cheap when nobody
     * waits (one map lookup), so it may be called for every record.
     */
    public void changed(String store, String key) {
        Set<Waiter> waiters = waiting.get(new Watch(store, key));
        if (waiters != null) {
            waiters.forEach(Waiter::wake);
        }
    }

    /** Wakes every waiting reader: the application's state changed, so every check may answer differently now. */
    @Override
    public void onChange(KafkaStreams.State newState, KafkaStreams.State oldState) {
        waiting.values().forEach(waiters -> waiters.forEach(Waiter::wake));
    }

    /**
     * The first non-empty answer of {@code check}, which reads {@code store}: asked at once, then after each signal on
     * {@code key} of {@code store} (or change of state), until {@code timeout} has passed, and once more then. Blocks
     * the calling thread, so call it from a worker thread, never from an event loop. {@code check} may throw (e.g. a
     * 503 while the application is not running): the wait ends with its exception.
     *
     * @return the answer, or empty if there was none by the deadline
     * @throws InterruptedException if the thread was interrupted while it waited
     */
    public <T> Optional<T> await(String store, String key, Duration timeout, Supplier<Optional<T>> check) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        Watch watch = new Watch(store, key);
        Waiter waiter = new Waiter();
        waiting.compute(watch, (w, waiters) -> {
            Set<Waiter> all = waiters == null ? ConcurrentHashMap.newKeySet() : waiters;
            all.add(waiter);
            return all;
        });
        try {
            while (true) {
                waiter.signals.drainPermits(); // what signalled before this check, the check sees
                Optional<T> answer = check.get();
                long left = deadline - System.nanoTime();
                if (answer.isPresent() || left <= 0) {
                    return answer;
                }
                if (!waiter.signals.tryAcquire(left, TimeUnit.NANOSECONDS)) {
                    return check.get();
                }
            }
        } finally {
            waiting.computeIfPresent(watch, (w, waiters) -> {
                waiters.remove(waiter);
                return waiters.isEmpty() ? null : waiters;
            });
        }
    }

    /** How many readers wait now, on any key: for tests and metrics. */
    public int waiting() {
        return waiting.values().stream().mapToInt(Set::size).sum();
    }
}
