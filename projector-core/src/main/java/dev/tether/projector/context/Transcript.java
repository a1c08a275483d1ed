package dev.tether.projector.context;

import dev.tether.core.event.Event;
import java.util.List;

/**
 * The turns of a session's events, split where the first tool call still in flight is.
 *
 * <p>A call is in flight while no result has arrived for it, its turn was not interrupted and, in a fork, it is not a
 * call of the parent's that the fork can never be given a result for. It
 * is rendered with a stand-in cancellation that its real result will replace, so the assistant turn
 * that made it, and everything after that turn, may still change: they are {@code unsettled}.
 * Everything before it is {@code settled} and renders the same in every later context until the
 * next compaction. Immutable.
 *
 * @param settled   the turns before the first assistant turn with a call in flight
 * @param unsettled that turn and every turn after it; empty when no call is in flight
 */
record Transcript(List<Turn> settled, List<Turn> unsettled) {

    Transcript {
        settled = List.copyOf(settled);
        unsettled = List.copyOf(unsettled);
    }

    /**
     * The transcript of {@code events}, in seq order: a session's, or a fork's, its ancestors' events up to each fork
     * point first; where the session of the events changes, the walk passes a fork point.
     */
    static Transcript of(List<Event> events) {
        var walk = new TranscriptWalk();
        String session = null;
        for (Event event : events) {
            if (session != null && !session.equals(event.sessionId())) {
                walk.passForkPoint();
            }
            session = event.sessionId();
            walk.add(event.payload());
        }
        return split(walk.turns());
    }

    private static Transcript split(List<Turn> turns) {
        int firstInFlight = 0;
        while (firstInFlight < turns.size() && !isInFlight(turns.get(firstInFlight))) {
            firstInFlight++;
        }
        return new Transcript(turns.subList(0, firstInFlight), turns.subList(firstInFlight, turns.size()));
    }

    private static boolean isInFlight(Turn turn) {
        return turn instanceof Turn.Assistant assistant && assistant.inFlight();
    }
}
