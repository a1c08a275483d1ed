package dev.tether.session;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.equalTo;

import dev.tether.testing.TetherStackResource;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.smallrye.jwt.build.Jwt;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.Base64;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Production credentials: a JWT signed by the configured key, with the tenant in a {@code tenant}
 * claim and the roles in {@code groups}. A token signed by another key, expired, or without a
 * tenant authenticates nobody.
 */
@QuarkusTest
@QuarkusTestResource(TetherStackResource.class)
@TestProfile(JwtAuthIT.ProductionCredentials.class)
class JwtAuthIT {

    static final String ISSUER = "https://issuer.example/tether";
    /** A fresh RSA key pair; the service trusts its public half. */
    static final KeyPair trusted = rsa();

    /** Production's credentials: JWTs verified with the trusted key, no dev keys. A profile of its own restarts the app. */
    public static class ProductionCredentials implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("mp.jwt.verify.publickey", Base64.getEncoder().encodeToString(trusted.getPublic().getEncoded()),
                    "mp.jwt.verify.issuer", ISSUER,
                    "tether.auth.dev-keys.enabled", "false");
        }
    }

    @Test
    void validJwt_withTenantAndRoles_isTheCaller() {
        SessionApiIT.awaitReady();
        String token = token(trusted, "alice", "acme", Set.of("agent"), Duration.ofMinutes(5));
        String id = SessionApiIT.newSessionId();

        given().auth().oauth2(token).contentType("application/json")
                .body(Map.of("sessionId", id, "objective", "x", "modelId", "m", "toolMode", "READ_ONLY"))
                .post("/v1/sessions").then().statusCode(201);
        given().auth().oauth2(token).get("/v1/sessions/{id}", id).then().statusCode(200).body("owner", equalTo("alice"))
                .body("tenantId", equalTo("acme"));
        // the same session is another tenant's to a globex token
        given().auth().oauth2(token(trusted, "bob", "globex", Set.of("agent"), Duration.ofMinutes(5)))
                .get("/v1/sessions/{id}", id).then().statusCode(404);
    }

    @Test
    void jwtSignedByAnotherKey_expired_orWithoutTenant_isRefused() {
        SessionApiIT.awaitReady();
        given().auth().oauth2(token(rsa(), "mallory", "acme", Set.of("admin"), Duration.ofMinutes(5)))
                .get("/v1/sessions").then().statusCode(401);
        given().auth().oauth2(token(trusted, "alice", "acme", Set.of("agent"), Duration.ofMinutes(-5)))
                .get("/v1/sessions").then().statusCode(401);
        given().auth().oauth2(token(trusted, "alice", null, Set.of("agent"), Duration.ofMinutes(5)))
                .get("/v1/sessions").then().statusCode(401);
        given().auth().oauth2(token(trusted, "alice", "acme", Set.of("approver"), Duration.ofMinutes(5)))
                .contentType("application/json").body(Map.of()).post("/v1/sessions").then().statusCode(403);
        // dev keys are off here, as in production
        given().auth().oauth2("dev-acme-agent").get("/v1/sessions").then().statusCode(401);
    }

    private static String token(KeyPair keys, String subject, String tenant, Set<String> roles, Duration ttl) {
        long now = System.currentTimeMillis() / 1000;
        var builder = Jwt.issuer(ISSUER).subject(subject).upn(subject).groups(roles).issuedAt(now - 60)
                .expiresAt(now + ttl.toSeconds());
        if (tenant != null) {
            builder.claim("tenant", tenant);
        }
        return builder.sign(keys.getPrivate());
    }

    private static KeyPair rsa() {
        try {
            var generator = KeyPairGenerator.getInstance("RSA");
            generator.initialize(2048);
            return generator.generateKeyPair();
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
