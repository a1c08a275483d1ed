package dev.tether.projector.kafka;

import dev.tether.avro.SessionEvent;
import dev.tether.core.event.Event;
import dev.tether.kit.kafka.EventAvro;
import dev.tether.kit.kafka.SessionEventKey;
import dev.tether.projector.domain.LazyEvents;
import dev.tether.projector.domain.Projection;
import dev.tether.projector.domain.SessionProjection;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;

/** A session's events as the projector's message store holds them, by (sessionId, seq). */
public final class SessionLog {

    private final ReadOnlyKeyValueStore<SessionEventKey, SessionEvent> messages;

    public SessionLog(ReadOnlyKeyValueStore<SessionEventKey, SessionEvent> messages) {
        this.messages = messages;
    }

    /** Events {@code fromSeq..toSeq} of the session, in order (fewer if the session is shorter). */
    public List<Event> events(String sessionId, long fromSeq, long toSeq) {
        var events = new ArrayList<Event>();
        if (toSeq < fromSeq) {
            return events;
        }
        try (var it = messages.range(new SessionEventKey(sessionId, Math.max(1, fromSeq)), new SessionEventKey(sessionId, toSeq))) {
            it.forEachRemaining(kv -> events.add(EventAvro.fromAvro(kv.value)));
        }
        return events;
    }

    /** Every event the store holds, session by session and in order within each. */
    public void forEachEvent(Consumer<Event> action) {
        try (var it = messages.all()) {
            it.forEachRemaining(kv -> action.accept(EventAvro.fromAvro(kv.value)));
        }
    }

    public Event event(String sessionId, long seq) {
        SessionEvent e = messages.get(new SessionEventKey(sessionId, seq));
        return e == null ? null : EventAvro.fromAvro(e);
    }

    /**
     * When the sequencer accepted the session's first event (its {@code occurredAt}): which session of its id this is.
     * Null when the store does not hold it.
     */
    public java.time.Instant startedAt(String sessionId) {
        SessionEvent first = messages.get(new SessionEventKey(sessionId, 1));
        return first == null ? null : first.getOccurredAt();
    }

    /**
     * The checkpoint as it was at {@code atSeq}: the same fold the live projection runs, stopped
     * there (the rebuild of a lost checkpoint; a read of a past seq takes {@link #foldThrough}), of the events
     * the store holds, each folded as it is read. Null when the session has no events.
     * The log position is not known here: its partition and offsets read -1 ({@link Projection#placed} gives it one).
     */
    public SessionProjection fold(String sessionId, long atSeq) {
        return fold(sessionId, atSeq, false);
    }

    /**
     * As {@link #fold}, of every one of the events 1 to {@code atSeq}: the checkpoint a read of a past seq answers. The
     * events are folded as they are read, so a long log is never held in memory at once.
     *
     * @throws LazyEvents.MissingEvents when the store lacks one of them: a warm copy, which restores a partition's events
     *                                  apart from its checkpoints, that has not restored them all yet, or a session being
     *                                  erased (its tombstones go from seq 1). A fold of the events it has would be another
     *                                  seq's checkpoint, or one that never was.
     */
    public SessionProjection foldThrough(String sessionId, long atSeq) {
        return fold(sessionId, atSeq, true);
    }

    /** The fold of the events 1 to {@code atSeq} the store holds; with {@code everyOne}, {@link #foldThrough}'s. */
    private SessionProjection fold(String sessionId, long atSeq, boolean everyOne) {
        SessionProjection state = null;
        if (atSeq < 1) {
            return state;
        }
        long expected = 1;
        try (var it = messages.range(new SessionEventKey(sessionId, 1), new SessionEventKey(sessionId, atSeq))) {
            while (it.hasNext()) {
                Event e = EventAvro.fromAvro(it.next().value);
                if (everyOne && e.seq() != expected) {
                    break;
                }
                state = Projection.evolve(state, e, -1, -1);
                expected++;
            }
        }
        if (everyOne && expected <= atSeq) {
            throw new LazyEvents.MissingEvents("the log of session " + sessionId + " does not hold seq " + expected);
        }
        return state;
    }
}
