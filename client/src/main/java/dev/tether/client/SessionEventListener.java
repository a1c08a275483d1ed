package dev.tether.client;

/**
 * Receives a session's events from a {@link Subscription}: every event exactly once, in seq order,
 * without gaps — across reconnects too. All callbacks run on the subscription's own thread, one at a
 * time; a slow listener slows only its own subscription. A listener that throws ends the
 * subscription ({@link SubscriptionEnd.Reason#FAILED}).
 *
 * <p>Only {@link #onEvent} must be implemented; the others are notifications with no-op defaults.
 */
@FunctionalInterface
public interface SessionEventListener {

    /** The next event of the session. */
    void onEvent(SessionEvent event);

    /**
     * The stream broke (the service restarted, the network failed, the service closed it); the
     * subscription reconnects on its own, from {@code lastSeq + 1}, with backoff.
     *
     * @param lastSeq the last seq delivered
     * @param cause   what broke it; never null
     */
    default void onDisconnected(long lastSeq, Exception cause) {}

    /** The stream is open (again): catch-up from {@code fromSeq}, then live. */
    default void onConnected(long fromSeq) {}

    /** The subscription ended; no callback follows. */
    default void onEnd(SubscriptionEnd end) {}
}
