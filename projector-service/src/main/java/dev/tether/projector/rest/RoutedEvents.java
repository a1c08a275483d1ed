package dev.tether.projector.rest;

import dev.tether.core.event.Event;
import dev.tether.kit.service.rest.EventPage;
import dev.tether.projector.domain.ContextSource;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * A session's events from this instance's message store when it holds the session's partition, otherwise from the
 * instance that does: a fork's parent usually lives in another partition, often on another instance. Both sides are
 * scoped to the caller's tenant (another tenant's session reads as empty, like an erased one). For one request: what
 * it fetched from another instance is kept, as the context of a fork reads its parent's prefix several times.
 * Not thread-safe.
 */
final class RoutedEvents implements ContextSource.Events {

    /** One page of a session's events from the instance holding it. */
    interface Owner {
        /**
         * The page of the session's events from {@code fromSeq}, none past {@code toSeq} ({@code GET …/events} there);
         * a page without events if the owner has none (missing, erased or another tenant's session); an empty
         * Optional if this instance holds the session.
         */
        Optional<EventPage> page(String sessionId, long fromSeq, long toSeq);
    }

    private final ContextSource.Events local;
    private final Owner owner;
    private final Set<String> held = new HashSet<>();
    private final Map<String, TreeMap<Long, Event>> fetched = new HashMap<>();

    RoutedEvents(ContextSource.Events local, Owner owner) {
        this.local = local;
        this.owner = owner;
    }

    @Override
    public List<Event> range(String sessionId, long fromSeq, long toSeq) {
        if (held.contains(sessionId)) {
            return local.range(sessionId, fromSeq, toSeq);
        }
        if (toSeq < fromSeq) {
            return List.of();
        }
        TreeMap<Long, Event> known = fetched.get(sessionId);
        if (known != null && known.subMap(fromSeq, true, toSeq, true).size() == toSeq - fromSeq + 1) {
            return List.copyOf(known.subMap(fromSeq, true, toSeq, true).values());
        }
        long from = fromSeq;
        while (from <= toSeq) {
            Optional<EventPage> page = owner.page(sessionId, from, toSeq);
            if (page.isEmpty()) {
                held.add(sessionId);
                return local.range(sessionId, fromSeq, toSeq);
            }
            if (page.get().events().isEmpty()) {
                break;
            }
            known = fetched.computeIfAbsent(sessionId, id -> new TreeMap<>());
            for (Event e : page.get().events()) {
                known.put(e.seq(), e);
            }
            long next = page.get().nextSeq();
            if (next > page.get().lastSeq() || next <= from) {
                break; // the session has no more (or the owner did not move on)
            }
            from = next;
        }
        return known == null ? List.of() : List.copyOf(known.subMap(fromSeq, true, toSeq, true).values());
    }
}
