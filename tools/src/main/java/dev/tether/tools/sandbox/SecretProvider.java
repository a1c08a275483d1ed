package dev.tether.tools.sandbox;

import java.util.Map;
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

    /**
     * Every secret this provider can list, by name, so that each call's redactor can be given them all: a value
     * that reached the workspace (a command that wrote a resolved secret into a file) is then redacted from a later
     * call's output too, not only from the call that resolved it. A provider that cannot list its secrets returns an
     * empty map, the default.
     *
     * @return names to values, never null
     */
    default Map<String, String> listable() {
        return Map.of();
    }
}
