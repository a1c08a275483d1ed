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
    /** Everything within its tenant, including erasure of any session. */
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
