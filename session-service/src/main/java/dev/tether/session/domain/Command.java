package dev.tether.session.domain;

import dev.tether.core.event.ProposedEvent;
import java.util.List;

/** What a caller asks the sequencer to do to one session (imperative names; the envelope is {@link CommandEnvelope}). */
public sealed interface Command permits Command.AppendEvents, Command.ClaimSession, Command.MigrateSession, Command.EraseSession {

    /** Append events, all or nothing. A first event {@code session_started} creates the session. */
    record AppendEvents(List<ProposedEvent> events, Long expectedSeq, Long epoch) implements Command {
        public AppendEvents {
            events = List.copyOf(events);
        }
    }

    /** A worker takes the session over (epoch + 1). {@code rollout}: the claim is part of a deploy. */
    record ClaimSession(String workerId, String harnessVersion, boolean rollout) implements Command {}

    /** An operator pins the session to another harness version. */
    record MigrateSession(String toVersion) implements Command {}

    /** Erase the session: tombstones for every event and for its checkpoint. */
    record EraseSession(String reason) implements Command {}
}
