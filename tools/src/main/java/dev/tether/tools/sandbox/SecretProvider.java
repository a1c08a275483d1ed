package dev.tether.tools.sandbox;

import java.util.Optional;

/**
 * Where the executor looks up the {@code secret://name} references in tool arguments (see {@link SecretResolver}).
 * Only the executor resolves them, right before a tool runs; the values never go back into an event.
 *
 * <p>Implementations are thread-safe.
 */
@FunctionalInterface
public interface SecretProvider {

    /**
     * @param name a secret's name, never null
     * @return its value, or empty if there is no such secret; never null
     */
    Optional<String> resolve(String name);
}
