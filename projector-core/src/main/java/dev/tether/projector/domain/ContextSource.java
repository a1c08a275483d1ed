package dev.tether.projector.domain;

import dev.tether.core.event.ContextCompacted;
import dev.tether.core.event.Event;
import dev.tether.core.event.EventPayload;
import dev.tether.core.event.SessionForked;
import dev.tether.core.event.SessionStarted;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Gathers what a session's model context at a seq is rendered from ({@link ContextInput}): its
 * start, its latest compaction and the facts captured then, the events after the compaction point,
 * and the volatile tail. A fork's context is its parent's at the fork point followed by the
 * fork's own events. Reads events through {@link Events} when they are first looked at ({@link LazyEvents}, joined for a
 * fork: a context fitted into a window reads its newest events, not all). A fork's parent part (the parent's start,
 * compaction and facts at the fork point) is folded from the parent's log up to the fork point, once per fork point
 * when {@link ForkBases} keep it; otherwise pure.
 */
public final class ContextSource {

    /**
     * Where events come from: the projector's message store (this instance's, or for a session whose partition another
     * instance holds, that one's), scoped to one tenant.
     */
    public interface Events {
        /** Events {@code fromSeq..toSeq} of a session of this tenant, in order; empty for another tenant's. */
        List<Event> range(String sessionId, long fromSeq, long toSeq);
    }

    private ContextSource() {}

    /**
     * The input for the context of {@code sessionId} as of {@code atSeq}, whose checkpoint at that
     * seq is {@code state}; empty if a fork's parent is gone (erased, or another tenant's). A fork's parent part is
     * worked out from the parent's log up to the fork point, every time.
     */
    public static Optional<ContextInput> at(Events events, SessionProjection state, long atSeq) {
        return at(events, state, atSeq, null);
    }

    /**
     * The same, with a fork's parent part taken from {@code bases} when they kept it: then only the events the
     * rendering looks at are read, and one event of each ancestor, to see that it is still there.
     *
     * @throws LazyEvents.MissingEvents when the session's log lacks its first event or its compaction's, as the events
     *                                  the rendering reads may lack a seq later
     */
    public static Optional<ContextInput> at(Events events, SessionProjection state, long atSeq, ForkBases bases) {
        return base(events, state, atSeq, bases).map(base -> new ContextInput(base.start(), base.compaction(), base.facts(),
                base.events(events), tail(state)));
    }

    /** What the context of {@code state}'s session at {@code atSeq} is made of, but its tail. */
    private static Optional<Base> base(Events events, SessionProjection state, long atSeq, ForkBases bases) {
        Event first = event(events, state.sessionId(), 1);
        if (state.compaction() != null) {
            SessionProjection.Compaction c = state.compaction();
            Event compactionEvent = event(events, state.sessionId(), c.compactedAtSeq());
            return Optional.of(new Base(start(first.payload()), (ContextCompacted) compactionEvent.payload(), c.facts(),
                    List.of(new Part(state.sessionId(), c.throughSeq() + 1, atSeq, c.compactedAtSeq(), null))));
        }
        Part own = new Part(state.sessionId(), 2, atSeq, Long.MIN_VALUE, null);
        if (first.payload() instanceof SessionForked fork) {
            return parentBase(events, fork, bases).map(parent -> parent.then(own));
        }
        var started = (SessionStarted) first.payload();
        return Optional.of(new Base(started, null, Facts.start(started.objective(), started.constraints()), List.of(own)));
    }

    /**
     * The session's event at {@code seq}, which its checkpoint says it has.
     *
     * @throws LazyEvents.MissingEvents when the log does not hold it: the session was erased since its checkpoint was
     *                                  read, or the log read is a warm copy's that has not restored it yet
     */
    private static Event event(Events events, String sessionId, long seq) {
        return events.range(sessionId, seq, seq).stream().findFirst().orElseThrow(
                () -> new LazyEvents.MissingEvents("the log of session " + sessionId + " does not hold seq " + seq));
    }

    /**
     * The parent's part of a fork's context: as {@code bases} kept it if every ancestor still holds the very event it
     * held at its fork point, read through this tenant's events (an erased session's id may be used again, even by
     * another tenant, and an erased log must never be rendered); otherwise folded from the parent's log. Empty when the
     * parent is gone, or when the session now under its id is not the one forked (its event at the fork point is not
     * the one the fork recorded: {@link #forkedFrom}).
     */
    private static Optional<Base> parentBase(Events events, SessionForked fork, ForkBases bases) {
        Base kept = bases == null ? null : bases.get(fork.parentSessionId(), fork.atSeq());
        if (kept != null && kept.parts().stream().allMatch(part -> part.end() != null && List.of(part.end()).equals(
                events.range(part.sessionId(), part.toSeq(), part.toSeq())))) {
            return forkedFrom(fork, kept.parts().get(kept.parts().size() - 1).end()) ? Optional.of(kept) : Optional.empty();
        }
        List<Event> parentLog = events.range(fork.parentSessionId(), 1, fork.atSeq());
        if (parentLog.size() < fork.atSeq() || !forkedFrom(fork, parentLog.get(parentLog.size() - 1))) {
            return Optional.empty();
        }
        SessionProjection parentState = null;
        for (Event e : parentLog) {
            parentState = Projection.evolve(parentState, e, -1, -1);
        }
        Optional<Base> base = base(events, parentState, fork.atSeq(), bases).map(b -> b.endingAt(parentLog.get(parentLog.size() - 1)));
        if (bases != null) {
            base.ifPresent(b -> bases.put(fork.parentSessionId(), fork.atSeq(), b));
        }
        return base;
    }

    /**
     * Whether {@code atForkPoint} is the parent's event the fork was made at: its eventId and the time the sequencer
     * accepted it as the fork recorded them (a later session under the parent's id may repeat the eventId, not the
     * time); any, in a fork made before they were recorded.
     */
    private static boolean forkedFrom(SessionForked fork, Event atForkPoint) {
        return (fork.parentEventId() == null || fork.parentEventId().equals(atForkPoint.eventId()))
                && (fork.parentEventAt() == null || fork.parentEventAt().equals(atForkPoint.occurredAt()));
    }

    /** The start a fork renders with: its parent's system prompt and objective, as the fork carries them. */
    private static SessionStarted start(EventPayload first) {
        if (first instanceof SessionStarted s) {
            return s;
        }
        var f = (SessionForked) first;
        return new SessionStarted(f.objective(), f.systemPrompt(), f.modelId(), f.harnessVersion(), f.toolMode(), f.constraints(), null,
                null);
    }

    public static VolatileTail tail(SessionProjection s) {
        SessionProjection.PendingAction p = s.pendingAction();
        String pending = p == null ? null : p.kind().wireName() + (p.callId() == null ? "" : " for call " + p.callId()) + " since seq " + p.sinceSeq();
        return new VolatileTail(s.lastSeq(), s.step(), s.usedTokens().inputTokens(), s.usedTokens().outputTokens(), s.status().name(),
                pending, Facts.openWork(s), s.updatedAt());
    }

    /**
     * A range of a session's events in a context: {@code fromSeq..toSeq} but {@code skippedSeq} (none: any seq outside);
     * for an ancestor's, {@code end} is its event at {@code toSeq}, the fork point (null for the session's own range).
     */
    record Part(String sessionId, long fromSeq, long toSeq, long skippedSeq, Event end) {}

    /**
     * What a context is made of but its tail: the start, the compaction and facts it renders, and the ranges of events
     * after them, the oldest first (a fork's parent's, then its own). A parent's, as of a fork point, does not change
     * while the parent exists: a session's log up to a seq is fixed once written.
     */
    record Base(SessionStarted start, ContextCompacted compaction, String facts, List<Part> parts) {

        Base then(Part part) {
            var all = new ArrayList<>(parts);
            all.add(part);
            return new Base(start, compaction, facts, List.copyOf(all));
        }

        /** This, its last range an ancestor's whose event at the fork point is {@code end}. */
        Base endingAt(Event end) {
            Part last = parts.get(parts.size() - 1);
            return new Base(start, compaction, facts, List.copyOf(parts.subList(0, parts.size() - 1)))
                    .then(new Part(last.sessionId(), last.fromSeq(), last.toSeq(), last.skippedSeq(), end));
        }

        List<Event> events(Events log) {
            List<LazyEvents> lists = parts.stream()
                    .map(p -> new LazyEvents(log, p.sessionId(), p.fromSeq(), p.toSeq(), p.skippedSeq())).toList();
            return lists.size() == 1 ? lists.get(0) : new LazyEvents.Joined(lists);
        }
    }

    /**
     * The parent parts of fork contexts, kept across requests so that a fork's context does not read and fold its
     * parent's log up to the fork point each time: the {@value #KEPT} fork points used last. What is kept does not go
     * stale, since a log up to a seq never changes while it exists; an erased ancestor, or a new session under its id, is
     * seen when the part is used, from the ancestor's event at the fork point (one read per ancestor). Tenants are apart
     * because that read goes through the caller's tenant's events. Thread-safe.
     */
    public static final class ForkBases {

        static final int KEPT = 256;

        private final Map<String, Base> kept = Collections.synchronizedMap(new LinkedHashMap<>(64, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<String, Base> eldest) {
                return size() > KEPT;
            }
        });

        Base get(String parentSessionId, long atSeq) {
            return kept.get(key(parentSessionId, atSeq));
        }

        void put(String parentSessionId, long atSeq, Base base) {
            kept.put(key(parentSessionId, atSeq), base);
        }

        /** How many fork points are kept. */
        public int size() {
            return kept.size();
        }

        private static String key(String parentSessionId, long atSeq) {
            return atSeq + "@" + parentSessionId;
        }
    }
}
