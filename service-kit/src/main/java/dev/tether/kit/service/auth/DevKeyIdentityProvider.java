package dev.tether.kit.service.auth;

import io.quarkus.security.AuthenticationFailedException;
import io.quarkus.security.identity.AuthenticationRequestContext;
import io.quarkus.security.identity.IdentityProvider;
import io.quarkus.security.identity.SecurityIdentity;
import io.quarkus.security.runtime.QuarkusPrincipal;
import io.quarkus.security.runtime.QuarkusSecurityIdentity;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;

/** Turns a dev key into a security identity: its principal, roles and tenant (attribute {@value Caller#TENANT_ATTRIBUTE}). */
@ApplicationScoped
public class DevKeyIdentityProvider implements IdentityProvider<DevKeyAuthenticationRequest> {

    private final DevKeys devKeys;

    DevKeyIdentityProvider(DevKeys devKeys) {
        this.devKeys = devKeys;
    }

    @Override
    public Class<DevKeyAuthenticationRequest> getRequestType() {
        return DevKeyAuthenticationRequest.class;
    }

    @Override
    public Uni<SecurityIdentity> authenticate(DevKeyAuthenticationRequest request, AuthenticationRequestContext context) {
        var principal = devKeys.principal(request.token()).orElseThrow(AuthenticationFailedException::new);
        var identity = QuarkusSecurityIdentity.builder()
                .setPrincipal(new QuarkusPrincipal(principal.id()))
                .addAttribute(Caller.TENANT_ATTRIBUTE, principal.tenantId());
        principal.roles().forEach(r -> identity.addRole(r.wireName()));
        return Uni.createFrom().item(identity.build());
    }
}
