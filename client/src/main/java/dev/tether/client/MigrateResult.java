package dev.tether.client;

/** What {@link TetherClient#migrate} got: {@link Migrated}, {@link NotFound} or {@link Rejected}. */
public sealed interface MigrateResult permits Migrated, NotFound, Rejected {

    /** The {@link Migrated} outcome, or an {@link UnexpectedOutcomeException} carrying the other one. */
    default Migrated migratedOrThrow() {
        if (this instanceof Migrated m) {
            return m;
        }
        throw new UnexpectedOutcomeException(this);
    }
}
