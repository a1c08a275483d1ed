package dev.tether.kit.service.auth;

import dev.tether.core.auth.Role;
import dev.tether.core.auth.TetherPrincipal;
import io.quarkus.security.UnauthorizedException;
import io.quarkus.security.identity.SecurityIdentity;
import jakarta.enterprise.context.RequestScoped;
import java.util.EnumSet;

/**
 * The authenticated caller of the current request as a {@link TetherPrincipal}: from a dev key,
 * or from a JWT whose {@value #TENANT_CLAIM} claim names the tenant (as text) and whose {@code groups} claim
 * lists the roles. A JWT without a tenant authenticates nobody, nor one whose tenant claim is no text.
 */
@RequestScoped
public class Caller {

    public static final String TENANT_ATTRIBUTE = "tether.tenant";
    public static final String TENANT_CLAIM = "tenant";

    private final SecurityIdentity identity;

    Caller(SecurityIdentity identity) {
        this.identity = identity;
    }

    public TetherPrincipal principal() {
        if (identity.isAnonymous()) {
            throw new UnauthorizedException();
        }
        String tenant = TenantRequired.tenantOf(identity).orElseThrow(() -> new UnauthorizedException("the credential names no tenant"));
        var roles = EnumSet.noneOf(Role.class);
        identity.getRoles().forEach(r -> Role.fromWireName(r).ifPresent(roles::add));
        return new TetherPrincipal(identity.getPrincipal().getName(), tenant, roles);
    }
}
