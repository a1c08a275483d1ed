package dev.tether.langchain4j;

import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Function;

/**
 * A store's per-memory states, at most {@code capacity} of them in memory: when there are more, the least recently
 * used one that no call is using is evicted, leaving behind only what it must not forget ({@code holdOnTo}: for a
 * memory, its claim and whether it was taken over), from which the memory's next state starts. Without it a
 * long-running store with many users would keep every conversation it ever read. Thread-safe; every
 * {@link #acquire} is followed by one {@link #release} of the same key.
 *
 * @param <S> a memory's state
 * @param <H> what an evicted state holds on to
 */
final class MemoryStates<S, H> {

    private final int capacity;
    private final Function<S, H> holdOnTo;
    /** In the order of their last use, the least recently used first. */
    private final LinkedHashMap<String, Slot<S>> live = new LinkedHashMap<>(16, 0.75f, true);
    private final Map<String, H> held = new HashMap<>();

    private static final class Slot<S> {
        final S state;
        int users;

        Slot(S state) {
            this.state = state;
        }
    }

    /**
     * @param capacity the most states kept in memory while nobody uses them (at least 1)
     * @param holdOnTo what an evicted state leaves behind; null for nothing
     */
    MemoryStates(int capacity, Function<S, H> holdOnTo) {
        if (capacity < 1) {
            throw new IllegalArgumentException("capacity must be at least 1, not " + capacity);
        }
        this.capacity = capacity;
        this.holdOnTo = holdOnTo;
    }

    /**
     * The state of {@code key}, made by {@code create} when there is none in memory (given what an evicted one left, or
     * null); not evicted until {@link #release}d.
     */
    synchronized S acquire(String key, Function<H, S> create) {
        Slot<S> slot = live.get(key);
        if (slot == null) {
            slot = new Slot<>(create.apply(held.remove(key)));
            live.put(key, slot);
        }
        slot.users++;
        evict();
        return slot.state;
    }

    synchronized void release(String key) {
        Slot<S> slot = live.get(key);
        if (slot == null || slot.users == 0) {
            throw new IllegalStateException("memory state " + key + " released more often than acquired");
        }
        slot.users--;
        evict();
    }

    /** States in memory. */
    synchronized int size() {
        return live.size();
    }

    /** Evicted memories that left something behind. */
    synchronized int heldSize() {
        return held.size();
    }

    private void evict() {
        for (Iterator<Map.Entry<String, Slot<S>>> it = live.entrySet().iterator(); live.size() > capacity && it.hasNext(); ) {
            Map.Entry<String, Slot<S>> eldest = it.next();
            if (eldest.getValue().users == 0) {
                it.remove();
                H left = holdOnTo.apply(eldest.getValue().state);
                if (left != null) {
                    held.put(eldest.getKey(), left);
                }
            }
        }
    }
}
