package dev.tether.client;

import java.util.Objects;

/**
 * The session is pinned to another harness version than the claiming worker runs; only an
 * operator's migration ({@link TetherClient#migrate}) moves it.
 *
 * @param message the service's explanation, naming both versions; never null
 */
public record VersionPinned(String message) implements ClaimResult {

    public VersionPinned {
        Objects.requireNonNull(message, "message");
    }
}
