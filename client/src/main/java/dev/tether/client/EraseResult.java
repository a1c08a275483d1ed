package dev.tether.client;

/** What {@link TetherClient#erase} got: {@link Erased}, {@link NotFound} or {@link Rejected} (not the owner). */
public sealed interface EraseResult permits Erased, NotFound, Rejected {

    /** The {@link Erased} outcome, or an {@link UnexpectedOutcomeException} carrying the other one. */
    default Erased erasedOrThrow() {
        if (this instanceof Erased e) {
            return e;
        }
        throw new UnexpectedOutcomeException(this);
    }
}
