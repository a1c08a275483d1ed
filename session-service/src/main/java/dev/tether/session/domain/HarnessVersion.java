package dev.tether.session.domain;

import java.time.Instant;
import java.util.Objects;

/**
 * A harness version's entry for rainbow deploys: its weight for new sessions (a percentage), its state and the model it
 * pins its sessions to. One per version on the compacted {@code harness-versions} topic.
 *
 * @param version   the version label, e.g. {@code v1}
 * @param weight    its percentage of new sessions (0-100) while ACTIVE
 * @param state     ACTIVE takes new sessions by weight, DRAINING takes none and finishes its own, RETIRED has none left
 * @param modelId   the model its new sessions are pinned to, or null if it pins none
 * @param updatedAt when an operator last changed it
 * @param updatedBy who did, or {@value #DEFAULT_ENTRY_AUTHOR} for the default version's implicit entry
 */
public record HarnessVersion(String version, int weight, State state, String modelId, Instant updatedAt, String updatedBy) {

    /** The author of the entry the default version has while no operator registered it. */
    public static final String DEFAULT_ENTRY_AUTHOR = "default";

    /** A version's lifecycle. */
    public enum State { ACTIVE, DRAINING, RETIRED }

    public HarnessVersion {
        Objects.requireNonNull(version, "version");
        Objects.requireNonNull(state, "state");
        Objects.requireNonNull(updatedAt, "updatedAt");
        Objects.requireNonNull(updatedBy, "updatedBy");
    }

    /** The entry of the default version while it is not registered: ACTIVE with weight 0, so it takes the rest. */
    public static HarnessVersion unregisteredDefault(String version) {
        return new HarnessVersion(version, 0, State.ACTIVE, null, Instant.EPOCH, DEFAULT_ENTRY_AUTHOR);
    }

    /** Whether this is {@link #unregisteredDefault}'s entry rather than one an operator wrote. */
    public boolean isImplicitDefault() {
        return DEFAULT_ENTRY_AUTHOR.equals(updatedBy);
    }

    public boolean active() {
        return state == State.ACTIVE;
    }
}
