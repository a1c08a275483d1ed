package dev.tether.kit.service.auth;

import dev.tether.core.auth.Role;
import dev.tether.core.auth.TetherPrincipal;
import io.quarkus.security.UnauthorizedException;
import io.quarkus.security.identity.SecurityIdentity;
import jakarta.enterprise.context.RequestScoped;
import java.util.EnumSet;
import org.eclipse.microprofile.jwt.JsonWebToken;

/**
 * The authenticated caller of the current request as a {@link TetherPrincipal}: from a dev key,
 * or from a JWT whose {@value #TENANT_CLAIM} claim names the tenant and whose {@code groups} claim
 * lists the roles. A JWT without a tenant authenticates nobody.
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
        String tenant = identity.getAttribute(TENANT_ATTRIBUTE);
        if (tenant == null && identity.getPrincipal() instanceof JsonWebToken jwt) {
            tenant = jwt.getClaim(TENANT_CLAIM);
        }
        if (tenant == null || tenant.isBlank()) {
            throw new UnauthorizedException("the credential names no tenant");
        }
        var roles = EnumSet.noneOf(Role.class);
        identity.getRoles().forEach(r -> Role.fromWireName(r).ifPresent(roles::add));
        return new TetherPrincipal(identity.getPrincipal().getName(), tenant, roles);
    }
}
