package dev.tether.reliability.fuzz;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.Signature;
import java.time.Duration;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The credentials both ITs use. The services run with dev keys (the configured fixed tokens of tenants acme and
 * globex) and with a trusted RSA key for JWTs, as production verifies them; so the bad tokens are real bad tokens: a
 * JWT signed by another key, an expired one, one with its tenant claim rewritten, one with {@code alg: none}.
 */
final class Tokens {

    static final String ISSUER = "https://tether.invalid/fuzz-issuer";

    /** The key pair whose public half the services trust. */
    static final KeyPair TRUSTED = rsa();
    private static final KeyPair UNTRUSTED = rsa();
    private static final Base64.Encoder B64 = Base64.getUrlEncoder().withoutPadding();

    /** Dev keys by tenant and role; globex has no admin dev key, so its admin is a JWT. */
    private static final Map<String, String> DEV_KEYS = Map.of(
            "acme/agent", "dev-acme-agent", "acme/approver", "dev-acme-approver", "acme/admin", "dev-acme-admin",
            "acme/operator", "dev-operator",
            "globex/agent", "dev-globex-agent", "globex/approver", "dev-globex-approver", "globex/operator", "dev-globex-operator");

    static final List<String> ROLES = List.of("agent", "approver", "operator", "admin");

    private Tokens() {}

    /** A valid token of {@code tenant} with exactly {@code role}. */
    static String of(String tenant, String role) {
        String devKey = DEV_KEYS.get(tenant + "/" + role);
        return devKey != null ? devKey : jwt(TRUSTED.getPrivate(), tenant + "-" + role, tenant, role, Duration.ofHours(2));
    }

    static String acme(String role) {
        return of("acme", role);
    }

    static String globex(String role) {
        return of("globex", role);
    }

    /** A JWT of the trusted issuer and key for {@code tenant} with {@code role}. */
    static String validJwt(String tenant, String role) {
        return jwt(TRUSTED.getPrivate(), tenant + "-" + role, tenant, role, Duration.ofHours(2));
    }

    /** Signed by a key nobody trusts, claiming tenant acme and every role. */
    static String forgedSignature() {
        return jwt(UNTRUSTED.getPrivate(), "mallory", "acme", "agent", Duration.ofHours(2), "admin", "approver", "operator");
    }

    /** Signed by the trusted key, expired an hour ago. */
    static String expired() {
        return jwt(TRUSTED.getPrivate(), "acme-agent", "acme", "agent", Duration.ofHours(-1));
    }

    /** A valid globex token replayed with its tenant claim rewritten to acme, keeping globex's signature. */
    static String replayedFromOtherTenant() {
        String token = validJwt("globex", "admin");
        String[] parts = token.split("\\.");
        String claims = new String(Base64.getUrlDecoder().decode(parts[1]), StandardCharsets.UTF_8).replace("\"globex\"", "\"acme\"");
        return parts[0] + "." + B64.encodeToString(claims.getBytes(StandardCharsets.UTF_8)) + "." + parts[2];
    }

    /** {@code alg: none}, unsigned, claiming tenant acme and every role. */
    static String unsigned() {
        String header = B64.encodeToString("{\"alg\":\"none\",\"typ\":\"JWT\"}".getBytes(StandardCharsets.UTF_8));
        String claims = B64.encodeToString(claims("mallory", "acme", List.of("agent", "admin", "approver", "operator"),
                Duration.ofHours(2)).getBytes(StandardCharsets.UTF_8));
        return header + "." + claims + ".";
    }

    /** Signed by the trusted key, but naming no tenant. */
    static String withoutTenant() {
        return jwt(TRUSTED.getPrivate(), "acme-agent", null, "agent", Duration.ofHours(2));
    }

    static String jwt(PrivateKey key, String subject, String tenant, String role, Duration ttl, String... moreRoles) {
        var roles = new java.util.ArrayList<String>(List.of(role));
        roles.addAll(List.of(moreRoles));
        String header = B64.encodeToString("{\"alg\":\"RS256\",\"typ\":\"JWT\"}".getBytes(StandardCharsets.UTF_8));
        String claims = B64.encodeToString(claims(subject, tenant, roles, ttl).getBytes(StandardCharsets.UTF_8));
        try {
            Signature rs256 = Signature.getInstance("SHA256withRSA");
            rs256.initSign(key);
            rs256.update((header + "." + claims).getBytes(StandardCharsets.US_ASCII));
            return header + "." + claims + "." + B64.encodeToString(rs256.sign());
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    private static String claims(String subject, String tenant, List<String> roles, Duration ttl) {
        long now = System.currentTimeMillis() / 1000;
        var claims = new LinkedHashMap<String, Object>();
        claims.put("iss", ISSUER);
        claims.put("sub", subject);
        claims.put("upn", subject);
        claims.put("groups", roles);
        if (tenant != null) {
            claims.put("tenant", tenant);
        }
        claims.put("iat", now - 3600 * 3);
        claims.put("exp", now + ttl.toSeconds());
        try {
            return Http.JSON.writeValueAsString(claims);
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The public half of {@link #TRUSTED} as {@code mp.jwt.verify.publickey} takes it. */
    static String trustedPublicKey() {
        return Base64.getEncoder().encodeToString(TRUSTED.getPublic().getEncoded());
    }

    private static KeyPair rsa() {
        try {
            var generator = KeyPairGenerator.getInstance("RSA");
            generator.initialize(2048);
            return generator.generateKeyPair();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }
}
