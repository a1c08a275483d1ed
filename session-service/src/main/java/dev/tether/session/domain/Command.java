package dev.tether.session.domain;

import dev.tether.core.event.ProposedEvent;
import java.time.Instant;
import java.util.List;

/** What a caller asks the sequencer to do to one session (imperative names; the envelope is {@link CommandEnvelope}). */
public sealed interface Command permits Command.AppendEvents, Command.ClaimSession, Command.MigrateSession, Command.EraseSession {

    /**
     * Append events, all or nothing. A first event {@code session_started} creates the session. Each condition, if set,
     * must hold: {@code expectedSeq} the session's last seq, {@code epoch} its worker's epoch, {@code sessionStartedAt} when
     * its first event was accepted (the session the append was made for, not a later one under its id).
     */
    record AppendEvents(List<ProposedEvent> events, Long expectedSeq, Long epoch, Instant sessionStartedAt) implements Command {
        public AppendEvents {
            events = List.copyOf(events);
        }

        /** An append made for whichever session is under the id. */
        public AppendEvents(List<ProposedEvent> events, Long expectedSeq, Long epoch) {
            this(events, expectedSeq, epoch, null);
        }
    }

    /** A worker takes the session over (epoch + 1). {@code rollout}: the claim is part of a deploy. */
    record ClaimSession(String workerId, String harnessVersion, boolean rollout) implements Command {}

    /** An operator pins the session to another harness version. */
    record MigrateSession(String toVersion) implements Command {}

    /**
     * Erase the session: tombstones for every event and for its checkpoint. When set, {@code epoch} must be the session's
     * worker epoch and {@code sessionStartedAt} when its first event was accepted (a writer erases only the session it
     * holds: not after another worker claimed it, nor a later session under its id).
     */
    record EraseSession(String reason, Long epoch, Instant sessionStartedAt) implements Command {
        /** An erasure whatever holds the session (its owner's or an admin's). */
        public EraseSession(String reason) {
            this(reason, null, null);
        }
    }
}
