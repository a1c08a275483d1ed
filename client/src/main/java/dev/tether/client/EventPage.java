package dev.tether.client;

import java.util.List;

/**
 * One page of a session's log.
 *
 * @param events  the events from the page's first seq on, in order (at most the page size)
 * @param lastSeq the session's last seq when the page was read
 * @param nextSeq the seq to ask for next; beyond {@code lastSeq} when the page reached the end
 */
public record EventPage(List<SessionEvent> events, long lastSeq, long nextSeq) {

    public EventPage {
        events = List.copyOf(events);
    }

    /** True when the page reached the session's last seq. */
    public boolean atEnd() {
        return nextSeq > lastSeq;
    }
}
