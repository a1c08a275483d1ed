package dev.tether.session.domain;

import java.time.Instant;
import java.util.Objects;

/**
 * A tenant's harness version's entry for rainbow deploys: its weight for the tenant's new sessions (a percentage), its state
 * and the model it pins its sessions to. One per tenant and version on the compacted {@code harness-versions} topic.
 *
 * @param version   the version label, e.g. {@code v1}
 * @param weight    its percentage of new sessions (0-100) while ACTIVE
 * @param state     ACTIVE takes new sessions by weight, DRAINING takes none and finishes its own, RETIRED has none left
 * @param modelId   the model its new sessions are pinned to, or null if it pins none
 * @param updatedAt when an operator last changed it
 * @param updatedBy who did, or {@value #DEFAULT_ENTRY_AUTHOR} for the default version's implicit entry
 * @param tenantId  the tenant whose harness it is; null for an entry written before versions were a tenant's, which is
 *                  every tenant's until the tenant registers the version itself ({@link #key}), and for the implicit default
 */
public record HarnessVersion(String version, int weight, State state, String modelId, Instant updatedAt, String updatedBy,
                             String tenantId) {

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
        return new HarnessVersion(version, 0, State.ACTIVE, null, Instant.EPOCH, DEFAULT_ENTRY_AUTHOR, null);
    }

    /**
     * The entry's key on {@code harness-versions}: {@code tenantId NUL version}, or the bare version for an entry of no
     * tenant (written before versions were a tenant's). A NUL is in no tenant id, so no two tenants' keys meet.
     */
    public static String key(String tenantId, String version) {
        return tenantId == null ? version : tenantId + '\0' + version;
    }

    public String key() {
        return key(tenantId, version);
    }

    /** Whether this is {@link #unregisteredDefault}'s entry rather than one an operator wrote. */
    public boolean isImplicitDefault() {
        return DEFAULT_ENTRY_AUTHOR.equals(updatedBy);
    }

    public boolean active() {
        return state == State.ACTIVE;
    }
}
