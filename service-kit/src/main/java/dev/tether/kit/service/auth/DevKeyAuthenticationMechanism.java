package dev.tether.kit.service.auth;

import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.quarkus.security.identity.IdentityProviderManager;
import io.quarkus.security.identity.SecurityIdentity;
import io.quarkus.security.identity.request.AuthenticationRequest;
import io.quarkus.vertx.http.runtime.security.ChallengeData;
import io.quarkus.vertx.http.runtime.security.HttpAuthenticationMechanism;
import io.quarkus.vertx.http.runtime.security.HttpCredentialTransport;
import io.smallrye.mutiny.Uni;
import io.vertx.ext.web.RoutingContext;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.Set;

/**
 * Authenticates {@code Authorization: Bearer <dev key>} when dev keys are enabled. It runs before
 * the JWT mechanism and leaves every other token to it, so local runs and production use the
 * same code paths beyond this point.
 */
@ApplicationScoped
public class DevKeyAuthenticationMechanism implements HttpAuthenticationMechanism {

    private static final String BEARER = "bearer ";

    private final DevKeys devKeys;

    DevKeyAuthenticationMechanism(DevKeys devKeys) {
        this.devKeys = devKeys;
    }

    @Override
    public Uni<SecurityIdentity> authenticate(RoutingContext context, IdentityProviderManager identityProviderManager) {
        String token = bearerToken(context);
        if (token == null || devKeys.principal(token).isEmpty()) {
            return Uni.createFrom().nullItem(); // not ours: the JWT mechanism decides
        }
        return identityProviderManager.authenticate(new DevKeyAuthenticationRequest(token));
    }

    static String bearerToken(RoutingContext context) {
        String header = context.request().getHeader(HttpHeaderNames.AUTHORIZATION);
        if (header == null || header.length() <= BEARER.length() || !header.regionMatches(true, 0, BEARER, 0, BEARER.length())) {
            return null;
        }
        return header.substring(BEARER.length()).trim();
    }

    @Override
    public Uni<ChallengeData> getChallenge(RoutingContext context) {
        return Uni.createFrom().item(new ChallengeData(HttpResponseStatus.UNAUTHORIZED.code(),
                HttpHeaderNames.WWW_AUTHENTICATE, "Bearer"));
    }

    @Override
    public Set<Class<? extends AuthenticationRequest>> getCredentialTypes() {
        return Set.of(DevKeyAuthenticationRequest.class);
    }

    @Override
    public Uni<HttpCredentialTransport> getCredentialTransport(RoutingContext context) {
        return Uni.createFrom().item(new HttpCredentialTransport(HttpCredentialTransport.Type.AUTHORIZATION, "bearer"));
    }

    @Override
    public int getPriority() {
        return DEFAULT_PRIORITY + 1000;
    }
}
