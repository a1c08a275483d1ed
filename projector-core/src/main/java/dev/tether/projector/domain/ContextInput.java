package dev.tether.projector.domain;

import dev.tether.core.event.ContextCompacted;
import dev.tether.core.event.Event;
import dev.tether.core.event.SessionStarted;
import java.util.List;
import java.util.Objects;

/**
 * Everything a model context is rendered from.
 *
 * @param start      the session's {@code session_started} payload: system prompt, pinned objective, constraints
 * @param compaction the latest {@code context_compacted} payload at or before the context's seq, or null
 * @param facts      the authoritative facts block (plain text) from typed state: as captured when the
 *                   context was last compacted, or the start facts (objective, constraints) when never compacted;
 *                   stable between compactions, so it never breaks the stable prefix
 * @param events     the events after the compaction point ({@code seq > compaction.throughSeq()}, or all
 *                   events after seq 1 when never compacted), in seq order, up to the context's seq; a
 *                   {@link LazyEvents} (or a fork's {@link LazyEvents.Joined}) is kept as it is, so only the events a
 *                   rendering looks at are read
 * @param tail       the volatile values, rendered last
 */
public record ContextInput(SessionStarted start, ContextCompacted compaction, String facts, List<Event> events, VolatileTail tail) {
    public ContextInput {
        Objects.requireNonNull(start, "start");
        Objects.requireNonNull(facts, "facts");
        events = events instanceof LazyEvents || events instanceof LazyEvents.Joined ? events : List.copyOf(events); // unmodifiable either way
        Objects.requireNonNull(tail, "tail");
    }
}
