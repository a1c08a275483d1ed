package dev.tether.tools;

import java.time.Duration;
import java.util.Collection;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * Where and how {@code http_fetch} may fetch: {@code HttpFetchPolicy.allowing(Set.of("api.github.com"))}.
 *
 * @param allowedHosts     the host names (or IP literals) that may be fetched from, exactly, in lower case; empty
 *                         allows none, which disables the tool
 * @param timeout          how long a fetch may take, connection, headers and body together; positive
 * @param maxBytes         how much of a body is kept; the rest is not read; positive
 * @param privateAddresses whether an allowed host <em>name</em> may resolve to an address that is not public
 *                         (loopback, private, link-local such as a cloud's metadata service, ...; see
 *                         {@link PublicAddress}). False by default: whoever controls an allowed name's DNS could
 *                         otherwise point it into the executor's own network. An allowed IP literal is always
 *                         fetched from, whatever its range: the operator named that address
 */
public record HttpFetchPolicy(Set<String> allowedHosts, Duration timeout, int maxBytes, boolean privateAddresses) {

    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(10);
    public static final int DEFAULT_MAX_BYTES = 1024 * 1024;

    private static final Pattern HOST = Pattern.compile("[a-z0-9.-]+|\\[[0-9a-f:.]+]");

    public HttpFetchPolicy {
        Objects.requireNonNull(timeout, "timeout");
        allowedHosts = allowedHosts.stream().map(host -> host.toLowerCase(Locale.ROOT)).collect(Collectors.toUnmodifiableSet());
        for (String host : allowedHosts) {
            if (!HOST.matcher(host).matches()) {
                throw new IllegalArgumentException("not a host name: " + host + " (no scheme, port or path)");
            }
        }
        if (timeout.isNegative() || timeout.isZero() || maxBytes <= 0) {
            throw new IllegalArgumentException("timeout and maxBytes must be positive, got " + timeout + ", " + maxBytes);
        }
    }

    /** Allows no host: the default, so that {@code http_fetch} fetches nothing until hosts are configured. */
    public static HttpFetchPolicy denyAll() {
        return allowing(Set.of());
    }

    /** Allows exactly these hosts, with the default timeout and size cap. */
    public static HttpFetchPolicy allowing(Collection<String> hosts) {
        return new HttpFetchPolicy(Set.copyOf(hosts), DEFAULT_TIMEOUT, DEFAULT_MAX_BYTES, false);
    }

    public HttpFetchPolicy withTimeout(Duration timeout) {
        return new HttpFetchPolicy(allowedHosts, timeout, maxBytes, privateAddresses);
    }

    public HttpFetchPolicy withMaxBytes(int maxBytes) {
        return new HttpFetchPolicy(allowedHosts, timeout, maxBytes, privateAddresses);
    }

    public HttpFetchPolicy withPrivateAddresses(boolean privateAddresses) {
        return new HttpFetchPolicy(allowedHosts, timeout, maxBytes, privateAddresses);
    }

    /** Whether {@code host} is allowed, compared without regard to case. */
    public boolean allows(String host) {
        return allowedHosts.contains(host.toLowerCase(Locale.ROOT));
    }
}
