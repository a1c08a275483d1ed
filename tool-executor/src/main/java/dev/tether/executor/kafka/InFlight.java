package dev.tether.executor.kafka;

import dev.tether.tools.CancellationToken;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.jboss.logging.Logger;

/**
 * The calls running now, by session, and the interruptions seen: a {@code turn_interrupted} cancels the calls of its
 * session that were authorized before it (their process groups are killed; they end CANCELLED), and a call of that
 * session authorized before it that has not started yet does not start.
 *
 * <p>Interruptions are remembered for the last {@value #REMEMBERED_SESSIONS} sessions that had one. Thread-safe.
 */
final class InFlight {

    private static final Logger LOG = Logger.getLogger(InFlight.class);
    static final int REMEMBERED_SESSIONS = 10_000;

    private record Running(long authorizedSeq, CancellationToken token) {}

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

    Registration register(String sessionId, long authorizedSeq, CancellationToken token) {
        running.computeIfAbsent(sessionId, s -> new ConcurrentHashMap<>()).put(token, new Running(authorizedSeq, token));
        if (interrupted(sessionId, authorizedSeq)) {
            token.cancel();
        }
        return () -> running.computeIfPresent(sessionId, (s, calls) -> {
            calls.remove(token);
            return calls.isEmpty() ? null : calls;
        });
    }

    /** Whether a turn of {@code sessionId} was interrupted after the call authorized at {@code authorizedSeq}. */
    boolean interrupted(String sessionId, long authorizedSeq) {
        Long at;
        synchronized (interruptedAt) {
            at = interruptedAt.get(sessionId);
        }
        return at != null && at > authorizedSeq;
    }

    /** A {@code turn_interrupted} at {@code seq}: cancels the session's calls authorized before it. */
    void interrupt(String sessionId, long seq) {
        synchronized (interruptedAt) {
            interruptedAt.merge(sessionId, seq, Math::max);
        }
        var calls = running.get(sessionId);
        if (calls == null) {
            return;
        }
        calls.values().stream().filter(c -> c.authorizedSeq() < seq).forEach(c -> {
            LOG.infof("session %s: turn interrupted at seq %d, cancelling the call authorized at seq %d", sessionId, seq,
                    c.authorizedSeq());
            c.token().cancel();
        });
    }
}
