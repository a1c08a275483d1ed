package dev.tether.executor.kafka;

import dev.tether.core.event.TurnInterrupted;
import dev.tether.tools.CancellationToken;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.jboss.logging.Logger;

/**
 * The calls running now, by session, and the interruptions seen: a {@code turn_interrupted} cancels the running calls
 * of the turns it interrupts ({@link TurnInterrupted#cutsOff}: asked for before it; their process groups are killed,
 * they end CANCELLED), and the executor does not start a call of such a turn ({@link #lastInterruptSeq}).
 *
 * <p>Interruptions are remembered for the last {@value #REMEMBERED_SESSIONS} sessions that had one. Thread-safe.
 */
final class InFlight {

    private static final Logger LOG = Logger.getLogger(InFlight.class);
    static final int REMEMBERED_SESSIONS = 10_000;

    private record Running(long requestSeq, CancellationToken token) {}

    private final Map<String, Map<CancellationToken, Running>> running = new ConcurrentHashMap<>();
    private final Map<String, Long> interruptedAt = new LinkedHashMap<>(16, 0.75f, false) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Long> eldest) {
            return size() > REMEMBERED_SESSIONS;
        }
    };

    /** Removes the call from the running ones when closed. */
    interface Registration extends AutoCloseable {
        @Override
        void close();
    }

    /**
     * Registers a call asked for at {@code requestSeq} (the seq of its idempotency key) as running until the registration
     * is closed; its token is cancelled at once if its turn was interrupted already.
     */
    Registration register(String sessionId, long requestSeq, CancellationToken token) {
        running.computeIfAbsent(sessionId, s -> new ConcurrentHashMap<>()).put(token, new Running(requestSeq, token));
        if (TurnInterrupted.cutsOff(lastInterruptSeq(sessionId), requestSeq)) {
            token.cancel();
        }
        return () -> running.computeIfPresent(sessionId, (s, calls) -> {
            calls.remove(token);
            return calls.isEmpty() ? null : calls;
        });
    }

    /** The seq of the latest {@code turn_interrupted} of {@code sessionId} seen, 0 if none. */
    long lastInterruptSeq(String sessionId) {
        synchronized (interruptedAt) {
            return interruptedAt.getOrDefault(sessionId, 0L);
        }
    }

    /**
     * The session was erased: its interruptions are forgotten, since a session id is free again and a session made under it
     * starts its seqs anew. A call of the erased session still running runs to its end (its result finds no session).
     */
    void erased(String sessionId) {
        synchronized (interruptedAt) {
            interruptedAt.remove(sessionId);
        }
    }

    /** A {@code turn_interrupted} at {@code seq}: cancels the session's running calls of the turns it interrupts. */
    void interrupt(String sessionId, long seq) {
        synchronized (interruptedAt) {
            interruptedAt.merge(sessionId, seq, Math::max);
        }
        var calls = running.get(sessionId);
        if (calls == null) {
            return;
        }
        calls.values().stream().filter(c -> TurnInterrupted.cutsOff(seq, c.requestSeq())).forEach(c -> {
            LOG.infof("session %s: turn interrupted at seq %d, cancelling the call asked for at seq %d", sessionId, seq,
                    c.requestSeq());
            c.token().cancel();
        });
    }
}
