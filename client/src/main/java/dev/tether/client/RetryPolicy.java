package dev.tether.client;

import java.time.Duration;
import java.util.Objects;

/**
 * How often, and how patiently, the client repeats a call that failed on the way: the service was
 * unreachable, the connection broke, the request timed out, or the service answered 502, 503 or
 * 504 (a 503's {@code Retry-After} is honoured up to a minute). The wait doubles from {@link #initialBackoff()} up
 * to {@link #maxBackoff()}, with jitter.
 *
 * <p>Only calls that are safe to repeat are ever retried, whatever the policy says: reads; appends,
 * because every event carries a deterministic eventId and the sequencer answers a re-sent eventId
 * with its original seq; session creation and forks, because the client chooses the new session's
 * id and its first eventId; claims and migrations, because they carry a request id; and the
 * idempotent {@code PUT} of a harness version. An approval decision and an erasure are never
 * retried: when their answer is lost, or is a 502, 503 or 504, the client says the outcome is unknown. Subscriptions
 * reconnect for as long as they are open, with the same backoff.
 *
 * <p>Immutable and thread-safe.
 */
public final class RetryPolicy {

    /**
     * The longest wait between attempts a policy may have, 2^31 - 1 ms (about 24.8 days, the TypeScript SDK's bound too):
     * a longer one is no retry, and one past 2^63 ns has no millis to wait.
     */
    public static final Duration MAX_BACKOFF = Duration.ofMillis(Integer.MAX_VALUE);

    private static final RetryPolicy NONE = new RetryPolicy(1, Duration.ZERO, Duration.ZERO);

    private final int maxAttempts;
    private final Duration initialBackoff;
    private final Duration maxBackoff;

    private RetryPolicy(int maxAttempts, Duration initialBackoff, Duration maxBackoff) {
        this.maxAttempts = maxAttempts;
        this.initialBackoff = initialBackoff;
        this.maxBackoff = maxBackoff;
    }

    /**
     * Eight attempts, waiting 0.2 s, 0.4 s, 0.8 s … up to 5 s between them: about 16 s in all,
     * enough to ride out a restart of the sequencer or a rebalance.
     */
    public static RetryPolicy defaults() {
        return new RetryPolicy(8, Duration.ofMillis(200), Duration.ofSeconds(5));
    }

    /**
     * One attempt: every failure reaches the caller at once. Subscriptions still reconnect, with the {@link #defaults()}'
     * backoff (as under any policy that never waits: they would reconnect in a tight loop while the service is down).
     */
    public static RetryPolicy none() {
        return NONE;
    }

    /**
     * @param maxAttempts    attempts in all, at least 1 (1 means no retry)
     * @param initialBackoff the first wait, not negative
     * @param maxBackoff     the longest wait, at least {@code initialBackoff}, at most {@link #MAX_BACKOFF}
     */
    public static RetryPolicy of(int maxAttempts, Duration initialBackoff, Duration maxBackoff) {
        if (maxAttempts < 1) {
            throw new IllegalArgumentException("maxAttempts must be at least 1, not " + maxAttempts);
        }
        Objects.requireNonNull(initialBackoff, "initialBackoff");
        Objects.requireNonNull(maxBackoff, "maxBackoff");
        if (initialBackoff.isNegative()) {
            throw new IllegalArgumentException("initialBackoff must not be negative");
        }
        if (maxBackoff.compareTo(initialBackoff) < 0) {
            throw new IllegalArgumentException("maxBackoff (" + maxBackoff + ") must be at least initialBackoff (" + initialBackoff + ")");
        }
        if (maxBackoff.compareTo(MAX_BACKOFF) > 0) {
            throw new IllegalArgumentException("maxBackoff (" + maxBackoff + ") must be at most " + MAX_BACKOFF);
        }
        return new RetryPolicy(maxAttempts, initialBackoff, maxBackoff);
    }

    /** The same policy with another number of attempts. */
    public RetryPolicy withMaxAttempts(int attempts) {
        return of(attempts, initialBackoff, maxBackoff);
    }

    public int maxAttempts() {
        return maxAttempts;
    }

    public Duration initialBackoff() {
        return initialBackoff;
    }

    public Duration maxBackoff() {
        return maxBackoff;
    }

    /**
     * The wait after the {@code failures}-th failure in a row, before jitter: {@code initialBackoff ×
     * 2^(failures-1)}, at most {@code maxBackoff}.
     */
    public Duration backoff(int failures) {
        if (failures < 1) {
            throw new IllegalArgumentException("failures start at 1");
        }
        long millis = initialBackoff.toMillis();
        for (int i = 1; i < failures && millis < maxBackoff.toMillis(); i++) {
            millis *= 2;
        }
        return Duration.ofMillis(Math.min(millis, maxBackoff.toMillis()));
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof RetryPolicy p && p.maxAttempts == maxAttempts && p.initialBackoff.equals(initialBackoff)
                && p.maxBackoff.equals(maxBackoff);
    }

    @Override
    public int hashCode() {
        return Objects.hash(maxAttempts, initialBackoff, maxBackoff);
    }

    @Override
    public String toString() {
        return "RetryPolicy[maxAttempts=" + maxAttempts + ", initialBackoff=" + initialBackoff + ", maxBackoff=" + maxBackoff + "]";
    }
}
