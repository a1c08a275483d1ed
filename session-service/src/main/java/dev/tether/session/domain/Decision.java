package dev.tether.session.domain;

import dev.tether.core.event.Event;
import dev.tether.core.event.ProposedEvent;
import dev.tether.core.event.ResumeReason;
import java.time.Instant;
import java.util.List;

/** The sequencer's verdict on one command. */
public sealed interface Decision permits Decision.Accepted, Decision.Rejected {

    /**
     * The command applies.
     *
     * @param events       the new events, with their seqs, to append in order (empty for a pure repeat)
     * @param appended     every event of the command with its seq, repeats marked as duplicates
     * @param head         the session's head afterwards; null once the session is erased
     * @param resumeReason for a claim of a session another worker held: why it resumed; else null
     * @param followUps    what else must happen, in the same transaction
     */
    record Accepted(List<Event> events, List<Appended> appended, SessionHead head, ResumeReason resumeReason,
                    List<FollowUp> followUps) implements Decision {
        public Accepted {
            events = List.copyOf(events);
            appended = List.copyOf(appended);
            followUps = List.copyOf(followUps);
        }
    }

    /** Refused; nothing changes. {@code field} names the offending field of an illegal event, or is null. */
    record Rejected(Rejection reason, String message, String field) implements Decision {}

    /** Where one event of the command ended up. */
    record Appended(String eventId, long seq, boolean duplicate, String type) {}

    /** Work an accepted command causes beyond its own events. */
    sealed interface FollowUp permits NotifyParent, EraseLog {}

    /** A closed subagent session reports its outcome to its parent (a command on the parent's session). */
    record NotifyParent(String parentSessionId, String tenantId, ProposedEvent event) implements FollowUp {}

    /**
     * Tombstone every event key of the session (seq 1..lastSeq), then its checkpoint, stamped {@code at}: the session's time
     * at its erasure ({@link SessionHead#timeAt}), not before its events' {@code occurredAt} unless the clock is far behind.
     */
    record EraseLog(String sessionId, String tenantId, long lastSeq, Instant at) implements FollowUp {}
}
