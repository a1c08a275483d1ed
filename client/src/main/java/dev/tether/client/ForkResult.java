package dev.tether.client;

/** What {@link TetherClient#fork} got: {@link Forked}, {@link NotFound} (no such parent) or {@link Rejected}. */
public sealed interface ForkResult permits Forked, NotFound, Rejected {

    /** The {@link Forked} outcome, or an {@link UnexpectedOutcomeException} carrying the other one. */
    default Forked forkedOrThrow() {
        if (this instanceof Forked f) {
            return f;
        }
        throw new UnexpectedOutcomeException(this);
    }
}
