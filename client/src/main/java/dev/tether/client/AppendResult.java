package dev.tether.client;

/**
 * What {@link TetherClient#append} got: {@link Appended}; {@link Conflict} (a stale
 * {@code expectedSeq}); {@link Fenced} (a stale epoch); {@link NotFound}; or {@link Rejected} (an
 * invalid or illegal event, the field named; a closed session; a spent token budget).
 *
 * <p>The sequencer checks in this order: tenant, the session's start (a batch {@link AppendBatch#underClaim under a
 * claim} of a session erased since is {@link NotFound}), epoch, closed, expectedSeq — so a fenced worker learns it is
 * fenced, not that it should re-read. A batch whose every eventId is already in the log is answered {@link Appended}
 * with the original seqs before any check but the first two.
 */
public sealed interface AppendResult permits Appended, Conflict, Fenced, NotFound, Rejected {

    /** The {@link Appended} outcome, or an {@link UnexpectedOutcomeException} carrying the other one. */
    default Appended appendedOrThrow() {
        if (this instanceof Appended a) {
            return a;
        }
        throw new UnexpectedOutcomeException(this);
    }
}
