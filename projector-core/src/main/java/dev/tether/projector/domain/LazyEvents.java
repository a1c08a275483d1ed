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
 * <p>The newest page also tells where the list ends: at {@code toSeq}, or where the log ends if that is before it — a
 * warm copy of a partition (a standby) restores the events and the checkpoints from different topics, so its events
 * may be behind the checkpoint that says how far to read, and then the list holds the events it has, as one range read
 * would. Below that a session's log holds every seq, so the list's indexes are its seqs; a page that comes back with a
 * seq missing or out of place is {@link MissingEvents}, never a shorter list. Unmodifiable; for one request, not
 * thread-safe.
 */
public final class LazyEvents extends AbstractList<Event> implements RandomAccess {

    static final int FIRST_PAGE = 64;
    static final int LARGEST_PAGE = 4_096;

    private final ContextSource.Events log;
    private final String sessionId;
    private final long fromSeq;
    private final long skippedSeq; // Long.MIN_VALUE when none is skipped
    private final int asked; // the events fromSeq..toSeq but the skipped one
    private Event[] events; // null until the newest page is read
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
        this.asked = Math.toIntExact(Math.max(0, toSeq - fromSeq + 1) - (skips ? 1 : 0));
    }

    @Override
    public int size() {
        return events().length;
    }

    @Override
    public Event get(int index) {
        Objects.checkIndex(index, events().length);
        if (index < readFrom) {
            readDownTo(index);
        }
        return events[index];
    }

    /** How many of the events have been read from the log. */
    public int read() {
        return events == null ? 0 : events.length - readFrom;
    }

    private Event[] events() {
        if (events == null) {
            readNewest();
        }
        return events;
    }

    /** The newest page, which says where the list ends; if the log has none of it, everything before it. */
    private void readNewest() {
        int from = Math.max(0, asked - FIRST_PAGE);
        List<Event> page = asked == 0 ? List.of() : range(from, asked - 1);
        if (page.isEmpty() && from > 0) {
            page = range(0, from - 1);
            from = 0;
        }
        events = new Event[page.isEmpty() ? 0 : indexOf(page.get(page.size() - 1).seq()) + 1];
        readFrom = from;
        store(page, readFrom, events.length);
    }

    private void readDownTo(int index) {
        int pageSize = Math.min(LARGEST_PAGE, Math.max(FIRST_PAGE, read()));
        int from = Math.max(0, Math.min(index, readFrom - pageSize));
        store(range(from, readFrom - 1), from, readFrom);
        readFrom = from;
    }

    /** The log's events from index {@code from} to {@code to} (inclusive), but the skipped one. */
    private List<Event> range(int from, int to) {
        List<Event> page = log.range(sessionId, seqOf(from), seqOf(to));
        return skippedSeq == Long.MIN_VALUE ? page : page.stream().filter(e -> e.seq() != skippedSeq).toList();
    }

    /** Puts {@code page} at indexes {@code from} (inclusive) to {@code to} (exclusive), which it must fill in order. */
    private void store(List<Event> page, int from, int to) {
        int at = from;
        for (Event e : page) {
            if (at == to || e.seq() != seqOf(at)) {
                throw gap(from, to);
            }
            events[at++] = e;
        }
        if (at != to) {
            throw gap(from, to);
        }
    }

    private MissingEvents gap(int from, int to) {
        return new MissingEvents("the log of session " + sessionId + " does not hold every seq from " + seqOf(from) + " to "
                + seqOf(to - 1));
    }

    private long seqOf(int index) {
        long seq = fromSeq + index;
        return skippedSeq != Long.MIN_VALUE && seq >= skippedSeq ? seq + 1 : seq;
    }

    private int indexOf(long seq) {
        return Math.toIntExact(seq - fromSeq - (skippedSeq != Long.MIN_VALUE && seq > skippedSeq ? 1 : 0));
    }

    /**
     * Lazy lists one after the other, as a fork's context has its parent's events and then its own: an event is read
     * only when asked for, but each list's newest page is, to learn its size, once an event after it is asked for.
     * Unmodifiable; for one request, not thread-safe.
     */
    public static final class Joined extends AbstractList<Event> implements RandomAccess {

        private final List<LazyEvents> lists;

        public Joined(List<LazyEvents> lists) {
            this.lists = List.copyOf(lists);
        }

        @Override
        public int size() {
            int size = 0;
            for (LazyEvents list : lists) {
                size += list.size();
            }
            return size;
        }

        @Override
        public Event get(int index) {
            Objects.checkIndex(index, size());
            int at = index;
            for (LazyEvents list : lists) {
                if (at < list.size()) {
                    return list.get(at);
                }
                at -= list.size();
            }
            throw new AssertionError(index);
        }

        /** How many of the events have been read from the log. */
        public int read() {
            return lists.stream().mapToInt(LazyEvents::read).sum();
        }
    }

    /**
     * The log lacks a seq that the list must hold: the session was erased between two of its page reads (each page is
     * read from the store as it is then), or its log is damaged.
     */
    public static final class MissingEvents extends IllegalStateException {
        public MissingEvents(String message) {
            super(message);
        }
    }
}
