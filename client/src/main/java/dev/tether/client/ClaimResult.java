package dev.tether.client;

/**
 * What {@link TetherClient#claim} got: {@link Claimed}; {@link Fenced} (this claim was retried
 * after another worker's claim superseded it); {@link VersionPinned} (the session is pinned to
 * another harness version); {@link NotFound}; or {@link Rejected}.
 */
public sealed interface ClaimResult permits Claimed, Fenced, VersionPinned, NotFound, Rejected {

    /** The {@link Claimed} outcome, or an {@link UnexpectedOutcomeException} carrying the other one. */
    default Claimed claimedOrThrow() {
        if (this instanceof Claimed c) {
            return c;
        }
        throw new UnexpectedOutcomeException(this);
    }
}
