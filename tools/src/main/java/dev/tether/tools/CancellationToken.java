package dev.tether.tools;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Tells a call in flight to stop: the executor cancels it when the turn is interrupted, and tools react through
 * {@link #onCancel} (killing a command) or by checking {@link #isCancelled()} (between files).
 *
 * <p>Thread-safe. Actions run once, on the thread that cancels, or at once on the registering thread if the token is
 * already cancelled.
 */
public final class CancellationToken {

    private final List<Runnable> actions = new ArrayList<>(); // guarded by this
    private boolean cancelled; // guarded by this

    /** Cancels: runs the registered actions that are still registered. Later calls do nothing. */
    public void cancel() {
        List<Runnable> toRun;
        synchronized (this) {
            if (cancelled) {
                return;
            }
            cancelled = true;
            toRun = List.copyOf(actions);
            actions.clear();
        }
        toRun.forEach(Runnable::run);
    }

    public synchronized boolean isCancelled() {
        return cancelled;
    }

    /**
     * Runs {@code action} when cancelled, or now if already cancelled.
     *
     * @return closing it unregisters the action, when the work it would stop is done
     */
    public Registration onCancel(Runnable action) {
        Objects.requireNonNull(action, "action");
        synchronized (this) {
            if (!cancelled) {
                actions.add(action);
                return () -> {
                    synchronized (this) {
                        actions.remove(action);
                    }
                };
            }
        }
        action.run();
        return () -> { };
    }

    /** An action registered with {@link #onCancel}; closing it more than once is harmless. */
    @FunctionalInterface
    public interface Registration extends AutoCloseable {
        @Override
        void close();
    }
}
