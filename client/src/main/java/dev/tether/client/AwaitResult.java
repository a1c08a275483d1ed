package dev.tether.client;

/**
 * What {@link TetherClient#awaitDecision} got: {@link Settled} (the item left PENDING),
 * {@link StillPending} (the wait ran out first) or {@link NotFound}.
 */
public sealed interface AwaitResult permits Settled, StillPending, NotFound {

    /** The item once it left PENDING, or an {@link UnexpectedOutcomeException} carrying the other outcome. */
    default Approval settledOrThrow() {
        if (this instanceof Settled s) {
            return s.approval();
        }
        throw new UnexpectedOutcomeException(this);
    }
}
