package dev.tether.kit.service.auth;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.tether.core.auth.Role;
import dev.tether.core.blob.LocalBlobStore;
import io.quarkus.security.AuthenticationFailedException;
import io.quarkus.security.UnauthorizedException;
import io.quarkus.security.identity.SecurityIdentity;
import java.lang.reflect.Proxy;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.eclipse.microprofile.jwt.JsonWebToken;
import org.junit.jupiter.api.Test;

/**
 * {@link Caller} and {@link TenantRequired}: the tenant is the {@code tenant} claim's text; a claim that is no text (a
 * number, a list, an object: a token its issuer got wrong) names no tenant, so it authenticates nobody (401), never a
 * 500 from a cast, and never a tenant made of the claim's printed form.
 */
class CallerTest {

    @Test
    void aJwtWhoseTenantClaimIsText_isThatTenantsCaller_withItsRoles() {
        var principal = new Caller(identity(jwt("alice", Map.of("tenant", "acme")), Set.of("agent", "no-such-role"))).principal();

        assertThat(principal.id()).isEqualTo("alice");
        assertThat(principal.tenantId()).isEqualTo("acme");
        assertThat(principal.roles()).containsExactly(Role.AGENT);
        assertThat(TenantRequired.tenantOf(identity(jwt("alice", Map.of("tenant", "acme")), Set.of()))).contains("acme");
    }

    @Test
    void aJwtWhoseTenantClaimIsNoText_authenticatesNobody_401NotA500() {
        for (Object claim : List.of(42L, List.of("acme", "globex"), Map.of("id", "acme"), true)) {
            SecurityIdentity identity = identity(jwt("mallory", Map.of("tenant", claim)), Set.of("admin"));

            assertThat(catchThrowable(() -> new Caller(identity).principal())).as("%s", claim).isInstanceOf(UnauthorizedException.class);
            Throwable refused = catchThrowable(() -> new TenantRequired().augment(identity, null).await().indefinitely());
            assertThat(refused).as("%s", claim).isInstanceOf(AuthenticationFailedException.class);
        }
    }

    @Test
    void aJwtWithoutTenant_orABlankOne_authenticatesNobody() {
        for (Map<String, Object> claims : List.<Map<String, Object>>of(Map.of(), Map.of("tenant", " "))) {
            SecurityIdentity identity = identity(jwt("mallory", claims), Set.of("agent"));

            assertThat(catchThrowable(() -> new Caller(identity).principal())).isInstanceOf(UnauthorizedException.class);
            assertThat(catchThrowable(() -> new TenantRequired().augment(identity, null).await().indefinitely()))
                    .isInstanceOf(AuthenticationFailedException.class);
        }
    }

    @Test
    void aJwtWhoseTenantTetherCannotKeepDataUnder_authenticatesNobody_401NotA500Later() {
        String longest = "t".repeat(LocalBlobStore.MAX_TENANT_ID_BYTES);
        assertThat(TenantRequired.tenantOf(identity(jwt("alice", Map.of("tenant", longest)), Set.of()))).contains(longest);
        assertThat(TenantRequired.tenantOf(identity(jwt("alice", Map.of("tenant", "acmé")), Set.of()))).contains("acmé");

        for (String claim : List.of(longest + "t", "é".repeat(64), "acme\u0000globex", "acme\n", "a\uD800")) {
            SecurityIdentity identity = identity(jwt("mallory", Map.of("tenant", claim)), Set.of("agent"));

            assertThat(catchThrowable(() -> new Caller(identity).principal())).as(claim).isInstanceOf(UnauthorizedException.class);
            assertThat(catchThrowable(() -> new TenantRequired().augment(identity, null).await().indefinitely()))
                    .as(claim).isInstanceOf(AuthenticationFailedException.class);
        }
    }

    private static JsonWebToken jwt(String name, Map<String, Object> claims) {
        return (JsonWebToken) Proxy.newProxyInstance(CallerTest.class.getClassLoader(), new Class<?>[] {JsonWebToken.class},
                (proxy, method, args) -> switch (method.getName()) {
                    case "getName" -> name;
                    case "getClaim" -> claims.get(args[0].toString());
                    default -> throw new UnsupportedOperationException(method.getName());
                });
    }

    private static SecurityIdentity identity(JsonWebToken jwt, Set<String> roles) {
        return (SecurityIdentity) Proxy.newProxyInstance(CallerTest.class.getClassLoader(), new Class<?>[] {SecurityIdentity.class},
                (proxy, method, args) -> switch (method.getName()) {
                    case "isAnonymous" -> false;
                    case "getPrincipal" -> jwt;
                    case "getRoles" -> roles;
                    case "getAttribute" -> null;
                    default -> throw new UnsupportedOperationException(method.getName());
                });
    }
}
