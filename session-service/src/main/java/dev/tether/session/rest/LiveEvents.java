package dev.tether.session.rest;

import dev.tether.core.event.Event;
import dev.tether.session.config.SessionServiceConfig;
import dev.tether.session.domain.SessionHead;
import dev.tether.session.kafka.SessionStores;
import io.smallrye.mutiny.Multi;
import io.smallrye.mutiny.infrastructure.Infrastructure;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A session's events as a stream: everything from a seq on, then each new event as the sequencer
 * appends it. The stream reads the event store from a cursor (the next seq it owes), so it can
 * neither skip nor repeat an event, whatever the timing. Ends when the session is erased (also when another session
 * has been made under its id since: the stream is of the session it was opened on, whose start it keeps), or when this
 * instance no longer holds its partition (a client opens it again, and is relayed to the new owner).
 */
@ApplicationScoped
public class LiveEvents {

    private static final int BATCH = 500;

    /** What a stream reads: the session's head as a tenant sees it, and its events from a seq on as the store has them. */
    interface Log {
        Optional<SessionHead> head(String tenantId, String sessionId);

        List<Event> events(String sessionId, long fromSeq, int limit);
    }

    private final Log log;
    private final Duration pollInterval;

    @Inject
    LiveEvents(SessionStores stores, SessionServiceConfig config) {
        this(new Log() {
            @Override
            public Optional<SessionHead> head(String tenantId, String sessionId) {
                return stores.head(tenantId, sessionId);
            }

            @Override
            public List<Event> events(String sessionId, long fromSeq, int limit) {
                return stores.events(sessionId, fromSeq, limit);
            }
        }, config.streamPollInterval());
    }

    LiveEvents(Log log, Duration pollInterval) {
        this.log = log;
        this.pollInterval = pollInterval;
    }

    /**
     * The events of the session {@code head} is the head of (the caller checked that {@code tenantId} sees it) from
     * {@code fromSeq} on.
     */
    public Multi<Event> stream(String tenantId, SessionHead head, long fromSeq) {
        String sessionId = head.sessionId();
        Instant startedAt = head.startedAt();
        var next = new AtomicLong(fromSeq);
        var reached = new AtomicBoolean(); // once the store holds this session's start, it holds it until the session goes
        return Multi.createFrom().ticks().startingAfter(Duration.ofMillis(1)).every(pollInterval)
                .onOverflow().drop()
                .emitOn(Infrastructure.getDefaultWorkerPool())
                .concatMap(tick -> {
                    same(tenantId, sessionId, startedAt);
                    if (!reached.get()) {
                        if (!SessionStores.holdsStartOf(head, log.events(sessionId, 1, 1))) {
                            return Multi.createFrom().<Event>empty(); // not yet: it may hold an erased session's events
                        }
                        reached.set(true);
                    }
                    List<Event> batch = log.events(sessionId, next.get(), BATCH);
                    if (batch.isEmpty()) {
                        return Multi.createFrom().<Event>empty();
                    }
                    // the head again after the events: the event store follows the sequencer, so while the sequencer still
                    // holds this session, the events read are this session's, not those of one made under its id since
                    same(tenantId, sessionId, startedAt);
                    next.set(batch.get(batch.size() - 1).seq() + 1);
                    return Multi.createFrom().iterable(batch);
                })
                .onFailure(SessionGone.class).recoverWithCompletion();
    }

    /** Throws {@link SessionGone} unless the session the tenant sees under the id is still the one that started then. */
    private void same(String tenantId, String sessionId, Instant startedAt) {
        Optional<SessionHead> now = log.head(tenantId, sessionId);
        if (now.isEmpty() || !Objects.equals(now.get().startedAt(), startedAt)) {
            throw new SessionGone();
        }
    }

    /** The session was erased while streaming (and another may have been made under its id): the stream completes. */
    private static final class SessionGone extends RuntimeException {
        SessionGone() {
            super(null, null, false, false);
        }
    }
}
