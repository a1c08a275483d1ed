package dev.tether.client;

import java.net.URI;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * Where the Tether services are and how to talk to them: the session-service (sessions, events,
 * claims, subscriptions, harness versions), the projector-service (checkpoints, context, recovery
 * reports, call records) and the approval-service (approvals); the bearer token; timeouts; the
 * retry policy.
 *
 * <pre>{@code
 * TetherOptions.local().withToken("dev-acme-agent")
 * TetherOptions.of(URI.create("https://sessions.example"), URI.create("https://projector.example"),
 *                  URI.create("https://approvals.example"))
 *         .withToken(jwt).withTimeout(Duration.ofSeconds(10))
 * }</pre>
 *
 * <p>Immutable and thread-safe: every {@code withX} returns a copy. {@link #toString()} never shows
 * the token.
 */
public final class TetherOptions {

    /** The session-service of a local {@code bin/run}. */
    public static final URI LOCAL_SESSIONS = URI.create("http://127.0.0.1:8080");
    /** The projector-service of a local {@code bin/run}. */
    public static final URI LOCAL_PROJECTOR = URI.create("http://127.0.0.1:8081");
    /** The approval-service of a local {@code bin/run}. */
    public static final URI LOCAL_APPROVALS = URI.create("http://127.0.0.1:8082");

    /** How long one request may take, unless {@link #withTimeout} says otherwise. */
    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(30);
    /** How long opening a connection may take, unless {@link #withConnectTimeout} says otherwise. */
    public static final Duration DEFAULT_CONNECT_TIMEOUT = Duration.ofSeconds(5);

    private final URI sessions;
    private final URI projector;
    private final URI approvals;
    private final String token;
    private final Duration timeout;
    private final Duration connectTimeout;
    private final RetryPolicy retry;

    private TetherOptions(URI sessions, URI projector, URI approvals, String token, Duration timeout, Duration connectTimeout,
                          RetryPolicy retry) {
        this.sessions = sessions;
        this.projector = projector;
        this.approvals = approvals;
        this.token = token;
        this.timeout = timeout;
        this.connectTimeout = connectTimeout;
        this.retry = retry;
    }

    /** The services of a local {@code bin/run} on 127.0.0.1:8080, 8081 and 8082; no token yet. */
    public static TetherOptions local() {
        return of(LOCAL_SESSIONS, LOCAL_PROJECTOR, LOCAL_APPROVALS);
    }

    /**
     * The services at these base URLs ({@code http} or {@code https}, no query; a trailing slash is
     * ignored); no token yet, default timeouts and {@link RetryPolicy#defaults()}.
     */
    public static TetherOptions of(URI sessions, URI projector, URI approvals) {
        return new TetherOptions(base(sessions, "sessions"), base(projector, "projector"), base(approvals, "approvals"), null,
                DEFAULT_TIMEOUT, DEFAULT_CONNECT_TIMEOUT, RetryPolicy.defaults());
    }

    /** The bearer token every request carries: a JWT, or a dev key such as {@code dev-acme-agent}. */
    public TetherOptions withToken(String bearerToken) {
        Objects.requireNonNull(bearerToken, "bearerToken");
        if (bearerToken.isBlank()) {
            throw new IllegalArgumentException("the token must not be blank");
        }
        for (int i = 0; i < bearerToken.length(); i++) {
            char c = bearerToken.charAt(i);
            if (c <= ' ' || c >= 0x7f) {
                throw new IllegalArgumentException("the token must be printable ASCII without spaces (character " + i + " is not)");
            }
        }
        return new TetherOptions(sessions, projector, approvals, bearerToken, timeout, connectTimeout, retry);
    }

    /**
     * How long one request may take until its answer starts, and then again until its body has
     * arrived (for a subscription: until the stream opens; an open stream may stay quiet for as long
     * as the session does).
     */
    public TetherOptions withTimeout(Duration requestTimeout) {
        return new TetherOptions(sessions, projector, approvals, token, positive(requestTimeout, "timeout"), connectTimeout, retry);
    }

    /** How long opening a TCP connection may take. */
    public TetherOptions withConnectTimeout(Duration timeout) {
        return new TetherOptions(sessions, projector, approvals, token, this.timeout, positive(timeout, "connectTimeout"), retry);
    }

    /** How calls that are safe to repeat are retried (see {@link RetryPolicy} for which are). */
    public TetherOptions withRetry(RetryPolicy policy) {
        return new TetherOptions(sessions, projector, approvals, token, timeout, connectTimeout, Objects.requireNonNull(policy, "policy"));
    }

    /** The session-service's base URL, without a trailing slash. */
    public URI sessionsUri() {
        return sessions;
    }

    /** The projector-service's base URL, without a trailing slash. */
    public URI projectorUri() {
        return projector;
    }

    /** The approval-service's base URL, without a trailing slash. */
    public URI approvalsUri() {
        return approvals;
    }

    /** The bearer token; empty until {@link #withToken} (every service then answers 401). */
    public Optional<String> token() {
        return Optional.ofNullable(token);
    }

    public Duration timeout() {
        return timeout;
    }

    public Duration connectTimeout() {
        return connectTimeout;
    }

    public RetryPolicy retry() {
        return retry;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof TetherOptions t && t.sessions.equals(sessions) && t.projector.equals(projector)
                && t.approvals.equals(approvals) && Objects.equals(t.token, token) && t.timeout.equals(timeout)
                && t.connectTimeout.equals(connectTimeout) && t.retry.equals(retry);
    }

    @Override
    public int hashCode() {
        return Objects.hash(sessions, projector, approvals, token, timeout, connectTimeout, retry);
    }

    @Override
    public String toString() {
        return "TetherOptions[sessions=" + sessions + ", projector=" + projector + ", approvals=" + approvals + ", token="
                + (token == null ? "none" : "(set)") + ", timeout=" + timeout + ", connectTimeout=" + connectTimeout + ", retry=" + retry
                + "]";
    }

    private static URI base(URI uri, String name) {
        Objects.requireNonNull(uri, name);
        String scheme = uri.getScheme();
        if (!uri.isAbsolute() || uri.isOpaque() || !("http".equalsIgnoreCase(scheme) || "https".equalsIgnoreCase(scheme))) {
            throw new IllegalArgumentException(name + " must be an absolute http or https URL, not " + uri);
        }
        if (uri.getHost() == null) {
            throw new IllegalArgumentException(name + " has no host: " + uri);
        }
        if (uri.getRawQuery() != null || uri.getRawFragment() != null) {
            throw new IllegalArgumentException(name + " must be a base URL without query or fragment, not " + uri);
        }
        if (uri.getRawUserInfo() != null) {
            throw new IllegalArgumentException(name + " must not carry credentials; use withToken");
        }
        String text = uri.toString();
        while (text.endsWith("/")) {
            text = text.substring(0, text.length() - 1);
        }
        return URI.create(text);
    }

    /** The longest timeout: 2^63 - 1 ns, about 292 years; a longer one has no nanoseconds to wait. */
    private static final Duration MAX_TIMEOUT = Duration.ofNanos(Long.MAX_VALUE);

    private static Duration positive(Duration d, String name) {
        Objects.requireNonNull(d, name);
        if (d.isNegative() || d.isZero()) {
            throw new IllegalArgumentException(name + " must be positive, not " + d);
        }
        if (d.compareTo(MAX_TIMEOUT) > 0) {
            // every call would fail with an ArithmeticException when it converts it
            throw new IllegalArgumentException(name + " must be at most " + MAX_TIMEOUT + " (about 292 years), not " + d);
        }
        return d;
    }
}
