package dev.tether.kit.service.auth;

import io.quarkus.security.AuthenticationFailedException;
import io.quarkus.security.identity.AuthenticationRequestContext;
import io.quarkus.security.identity.SecurityIdentity;
import io.quarkus.security.identity.SecurityIdentityAugmentor;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import org.eclipse.microprofile.jwt.JsonWebToken;

/**
 * A credential that names no tenant authenticates nobody: refused here, before any role check, so such a token gets
 * 401 everywhere instead of 403 where its roles do not fit and 401 where they do.
 */
@ApplicationScoped
public class TenantRequired implements SecurityIdentityAugmentor {

    @Override
    public Uni<SecurityIdentity> augment(SecurityIdentity identity, AuthenticationRequestContext context) {
        if (identity.isAnonymous() || hasTenant(identity)) {
            return Uni.createFrom().item(identity);
        }
        return Uni.createFrom().failure(new AuthenticationFailedException("the credential names no tenant"));
    }

    private static boolean hasTenant(SecurityIdentity identity) {
        String tenant = identity.getAttribute(Caller.TENANT_ATTRIBUTE);
        if (tenant == null && identity.getPrincipal() instanceof JsonWebToken jwt) {
            Object claim = jwt.getClaim(Caller.TENANT_CLAIM);
            tenant = claim == null ? null : claim.toString();
        }
        return tenant != null && !tenant.isBlank();
    }
}
