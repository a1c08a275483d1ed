package dev.tether.client;

import java.util.List;

/** What a change of a harness version got: {@link VersionsUpdated} or {@link Rejected}. */
public sealed interface VersionResult permits VersionsUpdated, Rejected {

    /** Every version after the change, or an {@link UnexpectedOutcomeException} carrying the other outcome. */
    default List<HarnessVersion> versionsOrThrow() {
        if (this instanceof VersionsUpdated u) {
            return u.versions();
        }
        throw new UnexpectedOutcomeException(this);
    }
}
