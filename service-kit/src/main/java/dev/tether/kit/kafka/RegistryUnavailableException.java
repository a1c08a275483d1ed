package dev.tether.kit.kafka;

import java.util.Optional;

/**
 * The schema registry did not answer: it refused the connection, did not answer within its deadline
 * ({@link RegistrySettings}), closed the connection, or answered with a server error. Nothing was looked up or
 * registered; the same call may succeed later. A registry's definite answer (an unknown schema id, a schema its rule
 * refuses) is never this exception.
 *
 * <p>Wherever it surfaces, nothing is skipped: a Kafka Streams thread that meets it waits for the registry and is
 * replaced ({@code StreamThreadRecovery}; exactly-once redoes the aborted work), a plain consumer polls the same record
 * again, and a REST request answers 503 with {@code Retry-After}.
 */
public final class RegistryUnavailableException extends RuntimeException {

    private final String registryUrl;

    public RegistryUnavailableException(String registryUrl, String message, Throwable cause) {
        super("the schema registry at " + registryUrl + " " + message, cause);
        this.registryUrl = registryUrl;
    }

    /** The registry that did not answer. */
    public String registryUrl() {
        return registryUrl;
    }

    /** The {@code RegistryUnavailableException} in {@code error}'s chain of causes, if there is one. */
    public static Optional<RegistryUnavailableException> in(Throwable error) {
        for (Throwable t = error; t != null; t = t.getCause()) {
            if (t instanceof RegistryUnavailableException unavailable) {
                return Optional.of(unavailable);
            }
            if (t.getCause() == t) {
                break;
            }
        }
        return Optional.empty();
    }
}
