package dev.tether.kit.kafka;

import java.time.Duration;
import java.util.Objects;

/**
 * How Tether reaches the schema registry: where it is and how long a call may take. Every registry call of a service,
 * a serde or the CLI has these deadlines, so a registry that is down, stopped or answers nothing makes the call fail
 * in bounded time instead of parking its thread forever.
 *
 * @param url            the registry's Apicurio v3 API, e.g. {@code http://127.0.0.1:8085/apis/registry/v3}
 * @param connectTimeout how long establishing a connection may take
 * @param requestTimeout how long a request may wait for its answer once sent (no byte for this long fails it); a
 *                       schema lookup makes at most {@link #LOOKUP_ATTEMPTS} requests, so it fails within about
 *                       {@link #lookupDeadline()}
 */
public record RegistrySettings(String url, Duration connectTimeout, Duration requestTimeout) {

    /** The default of {@code tether.registry.connect-timeout}. */
    public static final Duration DEFAULT_CONNECT_TIMEOUT = Duration.ofSeconds(2);
    /** The default of {@code tether.registry.request-timeout}. */
    public static final Duration DEFAULT_REQUEST_TIMEOUT = Duration.ofSeconds(5);
    /** How many requests a schema lookup makes before it fails: one retry, after {@link #LOOKUP_BACKOFF}. */
    public static final int LOOKUP_ATTEMPTS = 2;
    /** The pause between a lookup's attempts. */
    public static final Duration LOOKUP_BACKOFF = Duration.ofMillis(500);

    public RegistrySettings {
        Objects.requireNonNull(url, "url");
        requirePositive(connectTimeout, "connectTimeout");
        requirePositive(requestTimeout, "requestTimeout");
        while (url.endsWith("/")) {
            url = url.substring(0, url.length() - 1);
        }
    }

    /** How long a request of a caller with no retry of its own may wait ({@link #patient(String)}). */
    public static final Duration PATIENT_REQUEST_TIMEOUT = Duration.ofSeconds(30);

    /** The registry at {@code url} with the default deadlines: a service's, which tries a failed lookup again itself. */
    public static RegistrySettings of(String url) {
        return new RegistrySettings(url, DEFAULT_CONNECT_TIMEOUT, DEFAULT_REQUEST_TIMEOUT);
    }

    /**
     * The registry at {@code url} with deadlines for a caller that does not try again (a test's reader or writer, a
     * benchmark): still bounded, so nothing hangs for good, but long enough for a registry slowed by a loaded machine
     * (seen: a schema registration taking more than 5 s at load 40 on 2 cores).
     */
    public static RegistrySettings patient(String url) {
        return new RegistrySettings(url, DEFAULT_CONNECT_TIMEOUT, PATIENT_REQUEST_TIMEOUT);
    }

    /** The longest a schema lookup that never gets an answer takes before it fails: every attempt and the pauses. */
    public Duration lookupDeadline() {
        return connectTimeout.plus(requestTimeout).multipliedBy(LOOKUP_ATTEMPTS).plus(LOOKUP_BACKOFF.multipliedBy(LOOKUP_ATTEMPTS - 1));
    }

    /** The registry's Confluent-compatible API, e.g. {@code http://127.0.0.1:8085/apis/ccompat/v7}. */
    public String ccompatUrl() {
        return SchemaRegistryInitializer.ccompatUrlOf(url);
    }

    private static void requirePositive(Duration d, String name) {
        if (d == null || d.isNegative() || d.isZero()) {
            throw new IllegalArgumentException(name + " must be a positive duration, not " + d);
        }
    }
}
