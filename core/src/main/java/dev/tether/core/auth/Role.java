package dev.tether.core.auth;

import java.util.Locale;
import java.util.Optional;

/**
 * What a principal may do. Roles come from the credential (a JWT's {@code groups} claim, or a
 * configured dev key), never from anything a client writes in a request body.
 */
public enum Role {
    /** An agent harness: creates, claims and appends to its tenant's sessions. */
    AGENT,
    /** A human who decides on gated tool calls of its tenant's sessions. */
    APPROVER,
    /** Manages harness versions and migrations. */
    OPERATOR,
    /**
     * What an agent and an operator may do within its tenant, and the erasure of any of its sessions (an agent erases
     * only those it owns). It reads what an approver reads, but decides no approval: a decision is an approver's, in
     * their own name.
     */
    ADMIN,
    /** Tether's own services (approval-service, tool-executor), writing through Kafka. */
    SERVICE;

    /** The name in credentials and in {@code @RolesAllowed}: lower-case. */
    public String wireName() {
        return name().toLowerCase(Locale.ROOT);
    }

    public static Optional<Role> fromWireName(String name) {
        for (Role r : values()) {
            if (r.wireName().equals(name)) {
                return Optional.of(r);
            }
        }
        return Optional.empty();
    }
}
