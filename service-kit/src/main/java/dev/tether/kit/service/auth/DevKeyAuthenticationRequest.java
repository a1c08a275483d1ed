package dev.tether.kit.service.auth;

import io.quarkus.security.identity.request.BaseAuthenticationRequest;

/** A bearer token that may be one of the configured dev keys. */
final class DevKeyAuthenticationRequest extends BaseAuthenticationRequest {

    private final String token;

    DevKeyAuthenticationRequest(String token) {
        this.token = token;
    }

    String token() {
        return token;
    }
}
