package dev.tether.session.rest;

import dev.tether.core.event.Event;
import dev.tether.session.config.SessionServiceConfig;
import dev.tether.session.kafka.SessionStores;
import io.smallrye.mutiny.Multi;
import io.smallrye.mutiny.infrastructure.Infrastructure;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A session's events as a stream: everything from a seq on, then each new event as the sequencer
 * appends it. The stream reads the event store from a cursor (the next seq it owes), so it can
 * neither skip nor repeat an event, whatever the timing. Ends when the session is erased, or when this instance no
 * longer holds its partition (a client opens it again, and is relayed to the new owner).
 */
@ApplicationScoped
public class LiveEvents {

    private static final int BATCH = 500;

    private final SessionStores stores;
    private final Duration pollInterval;

    LiveEvents(SessionStores stores, SessionServiceConfig config) {
        this.stores = stores;
        this.pollInterval = config.streamPollInterval();
    }

    public Multi<Event> stream(String tenantId, String sessionId, long fromSeq) {
        var next = new AtomicLong(fromSeq);
        return Multi.createFrom().ticks().startingAfter(Duration.ofMillis(1)).every(pollInterval)
                .onOverflow().drop()
                .emitOn(Infrastructure.getDefaultWorkerPool())
                .select().where(tick -> {
                    if (stores.head(tenantId, sessionId).isEmpty()) {
                        throw new SessionGone();
                    }
                    return true;
                })
                .concatMap(tick -> {
                    List<Event> batch = stores.events(sessionId, next.get(), BATCH);
                    if (!batch.isEmpty()) {
                        next.set(batch.get(batch.size() - 1).seq() + 1);
                    }
                    return Multi.createFrom().iterable(batch);
                })
                .onFailure(SessionGone.class).recoverWithCompletion();
    }

    /** The session was erased while streaming: the stream completes. */
    private static final class SessionGone extends RuntimeException {
        SessionGone() {
            super(null, null, false, false);
        }
    }
}
