package dev.tether.tools.sandbox;

import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;

/**
 * Secrets from a configured map. Immutable, so thread-safe; {@link #toString()} shows the names, never a value.
 */
public final class MapSecretProvider implements SecretProvider {

    private final Map<String, String> secrets;

    /** @param secrets names to values, copied; no null names or values */
    public MapSecretProvider(Map<String, String> secrets) {
        this.secrets = Map.copyOf(secrets);
    }

    @Override
    public Optional<String> resolve(String name) {
        return Optional.ofNullable(secrets.get(name));
    }

    /** All of them. */
    @Override
    public Map<String, String> listable() {
        return secrets;
    }

    @Override
    public String toString() {
        return "MapSecretProvider" + new TreeSet<>(secrets.keySet());
    }
}
