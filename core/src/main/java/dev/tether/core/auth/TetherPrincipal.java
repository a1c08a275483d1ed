package dev.tether.core.auth;

import java.util.EnumSet;
import java.util.Objects;
import java.util.Set;

/**
 * An authenticated caller: who, in which tenant, with which roles. Every read and write is
 * scoped to {@link #tenantId()}.
 */
public record TetherPrincipal(String id, String tenantId, Set<Role> roles) {

    public TetherPrincipal {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(tenantId, "tenantId");
        roles = roles.isEmpty() ? Set.of() : Set.copyOf(EnumSet.copyOf(roles));
    }

    public boolean has(Role role) {
        return roles.contains(role);
    }

    public boolean hasAny(Role... any) {
        for (Role r : any) {
            if (roles.contains(r)) {
                return true;
            }
        }
        return false;
    }

    /** A principal for one of Tether's own services. */
    public static TetherPrincipal service(String serviceName, String tenantId) {
        return new TetherPrincipal(serviceName, tenantId, Set.of(Role.SERVICE));
    }
}
