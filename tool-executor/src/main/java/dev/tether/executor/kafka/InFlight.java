package dev.tether.executor.kafka;

import dev.tether.core.event.TurnInterrupted;
import dev.tether.tools.CancellationToken;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BinaryOperator;
import org.jboss.logging.Logger;

/**
 * The calls running now, by session, and the interruptions and erasures seen: a {@code turn_interrupted} cancels the
 * running calls of the turns it interrupts ({@link TurnInterrupted#cutsOff}: asked for before it; their process groups
 * are killed, they end CANCELLED), and the executor does not start a call of such a turn ({@link #lastInterruptSeq}).
 * An erasure cancels the running calls authorized before it, and the executor neither starts nor reports a call of the
 * erased session ({@link #erasedAt}).
 *
 * <p>Interruptions and erasures are each remembered for the last {@value #REMEMBERED_SESSIONS} sessions that had one (by
 * their latest: a session interrupted again is as recent as that interruption). Thread-safe.
 */
final class InFlight {

    private static final Logger LOG = Logger.getLogger(InFlight.class);
    static final int REMEMBERED_SESSIONS = 10_000;

    private record Running(long requestSeq, Instant requestedAt, CancellationToken token) {}

    private final Map<String, Map<CancellationToken, Running>> running = new ConcurrentHashMap<>();
    private final Map<String, Long> interruptedAt = new LinkedHashMap<>(16, 0.75f, false) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Long> eldest) {
            return size() > REMEMBERED_SESSIONS;
        }
    };
    private final Map<String, Instant> erasedAt = new LinkedHashMap<>(16, 0.75f, false) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Instant> eldest) {
            return size() > REMEMBERED_SESSIONS;
        }
    };

    /** Removes the call from the running ones when closed. */
    interface Registration extends AutoCloseable {
        @Override
        void close();
    }

    /**
     * Registers a call asked for at {@code requestSeq} (the seq of its idempotency key) and authorized at
     * {@code requestedAt} as running until the registration is closed; its token is cancelled at once if its turn was
     * interrupted, or its session erased, already.
     */
    Registration register(String sessionId, long requestSeq, Instant requestedAt, CancellationToken token) {
        running.computeIfAbsent(sessionId, s -> new ConcurrentHashMap<>()).put(token, new Running(requestSeq, requestedAt, token));
        if (TurnInterrupted.cutsOff(lastInterruptSeq(sessionId), requestSeq) || erasedSince(erasedAt(sessionId), requestedAt)) {
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

    /** When {@code sessionId} was last seen erased, or null. */
    Instant erasedAt(String sessionId) {
        synchronized (erasedAt) {
            return erasedAt.get(sessionId);
        }
    }

    /**
     * Whether a call authorized at {@code requestedAt} is of a session erased at {@code erasedAt} (null: none seen): a
     * call of a session made again under the id since is authorized after the erasure.
     */
    static boolean erasedSince(Instant erasedAt, Instant requestedAt) {
        return erasedAt != null && !requestedAt.isAfter(erasedAt);
    }

    /**
     * The session was erased at {@code at}: its interruptions are forgotten, since a session id is free again and a
     * session made under it starts its seqs anew; its calls authorized before then that still run are cancelled.
     */
    void erased(String sessionId, Instant at) {
        synchronized (interruptedAt) {
            interruptedAt.remove(sessionId);
        }
        synchronized (erasedAt) {
            remembered(erasedAt, sessionId, at, (a, b) -> a.isAfter(b) ? a : b);
        }
        var calls = running.get(sessionId);
        if (calls != null) {
            // once per erasure, though the watcher reads a tombstone per event
            calls.values().stream().filter(c -> erasedSince(at, c.requestedAt()) && !c.token().isCancelled()).forEach(c -> {
                LOG.infof("session %s was erased at %s: cancelling its call asked for at seq %d", sessionId, at, c.requestSeq());
                c.token().cancel();
            });
        }
    }

    /**
     * What the log held of the session before the part of it read so far: its last interruption after its last erasure
     * there ({@code interruptSeq}, 0 if none) and that erasure's time (null if none). It lies beneath what is known:
     * the interruption counts only if nothing of the session is known yet (anything known is later), the erasure time
     * only if later than the one known. Nothing running is cancelled: a call starts only once the log was read from
     * before its authorization, so nothing read from further back can cut it off.
     */
    void before(String sessionId, long interruptSeq, Instant erasedAt) {
        synchronized (interruptedAt) {
            synchronized (this.erasedAt) {
                if (interruptSeq > 0 && !interruptedAt.containsKey(sessionId) && !this.erasedAt.containsKey(sessionId)) {
                    interruptedAt.put(sessionId, interruptSeq);
                }
                if (erasedAt != null) {
                    this.erasedAt.merge(sessionId, erasedAt, (a, b) -> a.isAfter(b) ? a : b);
                }
            }
        }
    }

    /**
     * Merges {@code value} into what {@code seen} holds of {@code sessionId}, and makes the session the youngest entry:
     * the eldest, evicted first, is the session whose latest interruption or erasure is the oldest, not its first.
     */
    private static <T> void remembered(Map<String, T> seen, String sessionId, T value, BinaryOperator<T> merge) {
        T known = seen.remove(sessionId);
        seen.put(sessionId, known == null ? value : merge.apply(known, value));
    }

    /** A {@code turn_interrupted} at {@code seq}: cancels the session's running calls of the turns it interrupts. */
    void interrupt(String sessionId, long seq) {
        synchronized (interruptedAt) {
            remembered(interruptedAt, sessionId, seq, Math::max);
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
