package dev.tether.kit.service.auth;

import dev.tether.core.blob.LocalBlobStore;
import io.quarkus.security.AuthenticationFailedException;
import io.quarkus.security.identity.AuthenticationRequestContext;
import io.quarkus.security.identity.SecurityIdentity;
import io.quarkus.security.identity.SecurityIdentityAugmentor;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.json.JsonString;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
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
        return tenantOf(identity).isPresent();
    }

    /**
     * The tenant {@code identity} names: a dev key's, or the text of a JWT's {@value Caller#TENANT_CLAIM} claim; empty
     * when there is none, when it is blank, or when the claim is no text (a number, a list, an object), which names no
     * tenant rather than one spelt as the claim prints. Nor does a text Tether cannot keep a tenant's data under: longer
     * than {@value LocalBlobStore#MAX_TENANT_ID_BYTES} UTF-8 bytes (its blob directory's name), or holding a control
     * character (a NUL ends the tenant's part of the {@code tenantId NUL sessionId} index keys) or an unpaired surrogate.
     */
    static Optional<String> tenantOf(SecurityIdentity identity) {
        Object tenant = identity.getAttribute(Caller.TENANT_ATTRIBUTE);
        if (tenant == null && identity.getPrincipal() instanceof JsonWebToken jwt) {
            tenant = jwt.getClaim(Caller.TENANT_CLAIM);
        }
        if (tenant instanceof JsonString text) {
            tenant = text.getString();
        }
        return tenant instanceof String text && !text.isBlank() && keepable(text) ? Optional.of(text) : Optional.empty();
    }

    private static boolean keepable(String tenant) {
        return tenant.codePoints().noneMatch(c -> Character.isISOControl(c) || Character.getType(c) == Character.SURROGATE)
                && tenant.getBytes(StandardCharsets.UTF_8).length <= LocalBlobStore.MAX_TENANT_ID_BYTES;
    }
}
