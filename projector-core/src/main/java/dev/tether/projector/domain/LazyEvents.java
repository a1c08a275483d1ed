package dev.tether.projector.domain;

import dev.tether.core.event.Event;
import java.util.AbstractList;
import java.util.List;
import java.util.Objects;
import java.util.RandomAccess;

/**
 * A session's events {@code fromSeq..toSeq} but one ({@code skippedSeq}: the compaction's own event, which a context
 * renders apart), read from the log only when asked for. A context fitted into a model's window looks at the newest
 * events and at the exchanges it keeps, so it reads those and not the whole session: the events are read a page at a
 * time from the newest back, each page as large as all read before it ({@value #FIRST_PAGE} events at first, at most
 * {@value #LARGEST_PAGE}), or down to the event asked for in one read, and kept.
 *
 * <p>A session's log holds every seq from 1 to its last, so the list's size is known without reading it; a page that
 * comes back with a seq missing or out of place is an {@link IllegalStateException}, never a shorter list. Unmodifiable;
 * for one request, not thread-safe.
 */
public final class LazyEvents extends AbstractList<Event> implements RandomAccess {

    static final int FIRST_PAGE = 64;
    static final int LARGEST_PAGE = 4_096;

    private final ContextSource.Events log;
    private final String sessionId;
    private final long fromSeq;
    private final long skippedSeq; // Long.MIN_VALUE when none is skipped
    private final Event[] events;
    private int readFrom; // events[readFrom..] are read

    /**
     * @param skippedSeq a seq of the range to leave out, or any seq outside it to keep them all
     */
    public LazyEvents(ContextSource.Events log, String sessionId, long fromSeq, long toSeq, long skippedSeq) {
        this.log = Objects.requireNonNull(log, "log");
        this.sessionId = Objects.requireNonNull(sessionId, "sessionId");
        this.fromSeq = fromSeq;
        boolean skips = skippedSeq >= fromSeq && skippedSeq <= toSeq;
        this.skippedSeq = skips ? skippedSeq : Long.MIN_VALUE;
        this.events = new Event[Math.toIntExact(Math.max(0, toSeq - fromSeq + 1) - (skips ? 1 : 0))];
        this.readFrom = events.length;
    }

    @Override
    public int size() {
        return events.length;
    }

    @Override
    public Event get(int index) {
        Objects.checkIndex(index, events.length);
        if (index < readFrom) {
            readDownTo(index);
        }
        return events[index];
    }

    /** How many of the events have been read from the log. */
    public int read() {
        return events.length - readFrom;
    }

    private void readDownTo(int index) {
        int pageSize = Math.min(LARGEST_PAGE, Math.max(FIRST_PAGE, read()));
        int from = Math.max(0, Math.min(index, readFrom - pageSize));
        List<Event> page = log.range(sessionId, seqOf(from), seqOf(readFrom - 1));
        int at = from;
        for (Event e : page) {
            if (e.seq() == skippedSeq) {
                continue;
            }
            if (at == readFrom || e.seq() != seqOf(at)) {
                throw gap(from);
            }
            events[at++] = e;
        }
        if (at != readFrom) {
            throw gap(from);
        }
        readFrom = from;
    }

    private IllegalStateException gap(int from) {
        return new IllegalStateException("the log of session " + sessionId + " does not hold every seq from " + seqOf(from) + " to "
                + seqOf(readFrom - 1));
    }

    private long seqOf(int index) {
        long seq = fromSeq + index;
        return skippedSeq != Long.MIN_VALUE && seq >= skippedSeq ? seq + 1 : seq;
    }
}
