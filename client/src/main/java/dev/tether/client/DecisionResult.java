package dev.tether.client;

/**
 * What {@link TetherClient#decide} got: {@link Decided}; {@link AlreadyDecided} (someone else
 * decided first, or the item expired or was cancelled); {@link NotFound}; or {@link Rejected} (a
 * decision that does not apply to the item, a missing reason, a role that may not decide).
 */
public sealed interface DecisionResult permits Decided, AlreadyDecided, NotFound, Rejected {

    /** The {@link Decided} outcome, or an {@link UnexpectedOutcomeException} carrying the other one. */
    default Decided decidedOrThrow() {
        if (this instanceof Decided d) {
            return d;
        }
        throw new UnexpectedOutcomeException(this);
    }
}
