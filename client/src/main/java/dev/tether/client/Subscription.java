package dev.tether.client;

import java.time.Duration;
import java.util.Optional;

/**
 * A live feed of one session's events, from {@link TetherClient#subscribe}: catch-up from the seq
 * asked for, then each new event as the sequencer appends it. When the stream breaks it reconnects
 * by itself and resumes after the last seq delivered (SSE {@code Last-Event-ID}), so the listener
 * sees every event exactly once, in order; an event out of order is never delivered (the
 * subscription reconnects instead).
 *
 * <p>Lifecycle: open from creation until {@link #close()}, until the session turns out not to exist
 * (or is erased), until the listener throws, or until its client is closed. Thread-safe; runs on a
 * thread of its own (a daemon thread named {@code tether-subscription-<session>}).
 */
public interface Subscription extends AutoCloseable {

    String sessionId();

    /** The last seq delivered to the listener; the starting seq minus one before the first event. */
    long lastSeq();

    /** True until the subscription has ended. */
    boolean isOpen();

    /**
     * Waits up to {@code timeout} (not negative; one longer than 2^63 ns waits without limit) for the subscription to end.
     *
     * @return why it ended; empty if it is still open
     */
    Optional<SubscriptionEnd> awaitEnd(Duration timeout) throws InterruptedException;

    /**
     * Ends the subscription and waits briefly for its thread; idempotent. May be called from the
     * listener itself (the current callback then returns normally and no event follows). From another thread it
     * never interrupts a callback that runs, {@code onEnd} included.
     */
    @Override
    void close();
}
