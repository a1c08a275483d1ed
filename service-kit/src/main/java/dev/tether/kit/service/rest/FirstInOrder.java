package dev.tether.kit.service.rest;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.PriorityQueue;

/**
 * The first {@code limit} of whatever it is offered, in {@code order}, holding no more than {@code limit} at a time: a
 * page of a list read from a store in another order (or in several sorted runs), without keeping the whole list. Not
 * thread-safe; one per read.
 *
 * @param <T> what is listed
 */
public final class FirstInOrder<T> {

    private final Comparator<? super T> order;
    private final int limit;
    /** The first so far, the last of them (the one to drop for an earlier one) at the head. */
    private final PriorityQueue<T> kept;

    public FirstInOrder(Comparator<? super T> order, int limit) {
        if (limit < 1) {
            throw new IllegalArgumentException("a page holds at least one element, not " + limit);
        }
        this.order = order;
        this.limit = limit;
        this.kept = new PriorityQueue<>(order.reversed());
    }

    /** Keeps {@code element} if it is among the first {@code limit} offered so far. */
    public void offer(T element) {
        kept.add(element);
        if (kept.size() > limit) {
            kept.poll();
        }
    }

    /** The first {@code limit} offered, in order. */
    public List<T> sorted() {
        var out = new ArrayList<>(kept);
        out.sort(order);
        return out;
    }
}
