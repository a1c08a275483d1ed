package dev.tether.client;

/** What {@link TetherClient#createSession} got: {@link Created} or {@link Rejected}. */
public sealed interface CreateResult permits Created, Rejected {

    /** The {@link Created} outcome, or an {@link UnexpectedOutcomeException} carrying the other one. */
    default Created createdOrThrow() {
        if (this instanceof Created c) {
            return c;
        }
        throw new UnexpectedOutcomeException(this);
    }
}
