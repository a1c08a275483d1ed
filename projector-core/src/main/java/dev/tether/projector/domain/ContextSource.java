package dev.tether.projector.domain;

import dev.tether.core.event.ContextCompacted;
import dev.tether.core.event.Event;
import dev.tether.core.event.EventPayload;
import dev.tether.core.event.SessionForked;
import dev.tether.core.event.SessionStarted;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Gathers what a session's model context at a seq is rendered from ({@link ContextInput}): its
 * start, its latest compaction and the facts captured then, the events after the compaction point,
 * and the volatile tail. A fork's context is its parent's at the fork point followed by the
 * fork's own events. Reads events through {@link Events}, a session's own when they are first looked at
 * ({@link LazyEvents}: a context fitted into a window reads its newest events, not all); otherwise pure.
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
     * seq is {@code state}; empty if a fork's parent is gone (erased, or another tenant's).
     */
    public static Optional<ContextInput> at(Events events, SessionProjection state, long atSeq) {
        Event first = events.range(state.sessionId(), 1, 1).stream().findFirst().orElseThrow(
                () -> new IllegalStateException("no first event for " + state.sessionId()));
        VolatileTail tail = tail(state);
        if (state.compaction() != null) {
            return Optional.of(compacted(events, state, atSeq, start(first.payload()), tail));
        }
        if (first.payload() instanceof SessionForked fork) {
            return parentPart(events, fork).map(parent -> {
                var all = new ArrayList<>(parent.events());
                all.addAll(events.range(state.sessionId(), 2, atSeq));
                return new ContextInput(parent.start(), parent.compaction(), parent.facts(), all, tail);
            });
        }
        var started = (SessionStarted) first.payload();
        return Optional.of(new ContextInput(started, null, Facts.start(started.objective(), started.constraints()),
                new LazyEvents(events, state.sessionId(), 2, atSeq, Long.MIN_VALUE), tail));
    }

    /** The parent's context source at the fork point, without its tail. */
    private static Optional<ContextInput> parentPart(Events events, SessionForked fork) {
        List<Event> parentLog = events.range(fork.parentSessionId(), 1, fork.atSeq());
        if (parentLog.size() < fork.atSeq()) {
            return Optional.empty();
        }
        SessionProjection parentState = null;
        for (Event e : parentLog) {
            parentState = Projection.evolve(parentState, e, -1, -1);
        }
        return at(events, parentState, fork.atSeq());
    }

    private static ContextInput compacted(Events events, SessionProjection state, long atSeq, SessionStarted start, VolatileTail tail) {
        SessionProjection.Compaction c = state.compaction();
        Event compactionEvent = events.range(state.sessionId(), c.compactedAtSeq(), c.compactedAtSeq()).get(0);
        var after = new LazyEvents(events, state.sessionId(), c.throughSeq() + 1, atSeq, c.compactedAtSeq());
        return new ContextInput(start, (ContextCompacted) compactionEvent.payload(), c.facts(), after, tail);
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
}
