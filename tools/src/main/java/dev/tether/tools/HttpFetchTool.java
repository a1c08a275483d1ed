package dev.tether.tools;

import static java.nio.charset.StandardCharsets.UTF_8;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tether.tools.sandbox.Workspace;
import java.io.IOException;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.UnknownHostException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Pattern;

/**
 * {@code http_fetch {url, headers?}}: an HTTP GET of an {@code http} or {@code https} URL whose host is on the
 * {@link HttpFetchPolicy}'s allowlist, exactly (the default allowlist is empty: every host is refused). Redirects are
 * not followed at all, so a redirect cannot lead off the allowlist: a 3xx is returned as it is, with its
 * {@code location}. Header values may hold {@code secret://name} references, resolved right before the request and
 * redacted from the output; the URL may not (it is logged and recorded), nor hold {@code user:password@}. The fetch
 * has a timeout and keeps at most the policy's number of body bytes (a secret's beginning left at the end of a cut body
 * is redacted like the secret); it goes to the host directly, through no proxy.
 *
 * <p>An allowed host <em>name</em> must resolve to public addresses only, unless the policy allows others
 * ({@link HttpFetchPolicy#privateAddresses()}): whoever controls the name's DNS could otherwise point it at the
 * executor's loopback, its private network or a cloud's metadata service. The name is looked up before the request
 * and again once the answer has come; the client's own lookup, between the two, is served by the JVM's cache of
 * lookups (30 s by default), so an answer that changes in between (DNS rebinding) is seen by the second look at the
 * latest, and the response is then refused, not returned. An allowed IP literal is not checked: the operator named it.
 *
 * <p>The output is the status line, the {@code content-type} (and {@code location}) header, a blank line and the
 * body as UTF-8; a status other than 2xx is an ERROR result. An approver is {@linkplain #shown shown} the method, the
 * URL and the headers as written.
 *
 * <p>A GET is idempotent; reconciled by fetching again. Thread-safe: one client serves every call.
 */
public final class HttpFetchTool implements Tool {

    public static final String NAME = "http_fetch";

    private static final Set<String> ARGUMENTS = Set.of("url", "headers");
    private static final Pattern HEADER_NAME = Pattern.compile("[!#$%&'*+.^_`|~0-9A-Za-z-]+");

    private final HttpFetchPolicy policy;
    private final Lookup lookup;
    private final HttpClient client;

    /** How a host name is looked up to be checked: {@link InetAddress#getAllByName}, or a test's own. */
    @FunctionalInterface
    interface Lookup {
        InetAddress[] addresses(String host) throws UnknownHostException;
    }

    /** @param policy the allowlist, timeout and size cap, never null */
    public HttpFetchTool(HttpFetchPolicy policy) {
        this(policy, InetAddress::getAllByName);
    }

    HttpFetchTool(HttpFetchPolicy policy, Lookup lookup) {
        this.policy = Objects.requireNonNull(policy, "policy");
        this.lookup = lookup;
        this.client = HttpClient.newBuilder()
                .followRedirects(HttpClient.Redirect.NEVER)
                .connectTimeout(policy.timeout())
                .proxy(HttpClient.Builder.NO_PROXY)
                .build();
    }

    @Override
    public String name() {
        return NAME;
    }

    /** What it may fetch, and how. */
    public HttpFetchPolicy policy() {
        return policy;
    }

    @Override
    public boolean mutating() {
        return false;
    }

    @Override
    public boolean idempotent() {
        return true;
    }

    /**
     * {@code GET <url>} and a {@code name: value} line per header, as written: a {@code secret://} reference in a
     * value is shown, never its value. Checked as {@link #execute} checks it: a URL off the allowlist is refused.
     */
    @Override
    public String shown(Workspace workspace, JsonNode arguments) throws ToolException {
        ToolArguments args = ToolArguments.of(arguments, ARGUMENTS);
        URI uri = allowedUri(args.nonEmptyString("url"));
        var shown = new StringBuilder("GET ").append(uri).append('\n');
        for (Map.Entry<String, String> header : headers(uri, args).entrySet()) {
            shown.append(header.getKey()).append(": ").append(header.getValue()).append('\n');
        }
        return shown.toString();
    }

    @Override
    public ToolOutput execute(ToolContext context, JsonNode arguments) throws ToolException {
        ToolArguments args = ToolArguments.of(arguments, ARGUMENTS);
        URI uri = allowedUri(args.nonEmptyString("url"));
        HttpRequest.Builder request = HttpRequest.newBuilder(uri).GET().timeout(policy.timeout());
        for (Map.Entry<String, String> header : headers(uri, args).entrySet()) {
            String argument = "headers." + header.getKey();
            String value = context.resolveSecrets(argument, header.getValue());
            header(request, argument, header.getKey(), value);
        }
        requirePublicAddresses(uri);
        if (context.cancellation().isCancelled()) {
            return context.output(ToolOutput.Status.CANCELLED, "[http_fetch: cancelled before the request]\n");
        }
        CompletableFuture<HttpResponse<CappedBodySubscriber.Body>> response =
                client.sendAsync(request.build(), info -> new CappedBodySubscriber(policy.maxBytes()));
        CancellationToken.Registration cancelOnInterrupt = context.cancellation().onCancel(() -> response.cancel(true));
        try {
            HttpResponse<CappedBodySubscriber.Body> answer = response.get(policy.timeout().toMillis(), TimeUnit.MILLISECONDS);
            requirePublicAddresses(uri);
            return output(context, answer);
        } catch (CancellationException e) {
            return context.output(ToolOutput.Status.CANCELLED, "[http_fetch: cancelled]\n");
        } catch (InterruptedException e) {
            response.cancel(true);
            Thread.currentThread().interrupt();
            return context.output(ToolOutput.Status.CANCELLED, "[http_fetch: interrupted]\n");
        } catch (TimeoutException e) {
            response.cancel(true);
            throw timedOut(uri, null);
        } catch (ExecutionException e) {
            if (context.cancellation().isCancelled()) { // the client fails a cancelled exchange with an IOException
                return context.output(ToolOutput.Status.CANCELLED, "[http_fetch: cancelled]\n");
            }
            throw failure(uri, e.getCause());
        } finally {
            cancelOnInterrupt.close();
        }
    }

    /** The headers as written, their names and values checked; {@code secret://} references unresolved. */
    private static Map<String, String> headers(URI uri, ToolArguments args) throws ToolException {
        Map<String, String> headers = args.optionalStringMap("headers");
        HttpRequest.Builder check = HttpRequest.newBuilder(uri);
        for (Map.Entry<String, String> header : headers.entrySet()) {
            String argument = "headers." + header.getKey();
            if (!HEADER_NAME.matcher(header.getKey()).matches()) {
                throw ToolException.invalidArgument(argument, "is not a valid header name");
            }
            header(check, argument, header.getKey(), header.getValue());
        }
        return headers;
    }

    private static void header(HttpRequest.Builder request, String argument, String name, String value)
            throws ToolException {
        try {
            request.header(name, value);
        } catch (IllegalArgumentException e) { // a restricted header, or a line break in the value
            throw ToolException.invalidArgument(argument, "cannot be sent (a restricted header, or a bad value)");
        }
    }

    private URI allowedUri(String url) throws ToolException {
        if (url.contains("secret://")) {
            throw ToolException.invalidArgument("url", "secret:// references are resolved in header values only");
        }
        URI uri;
        try {
            uri = new URI(url);
        } catch (URISyntaxException e) {
            throw ToolException.invalidArgument("url", "is not a valid URL: " + e.getReason());
        }
        String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
        if (!scheme.equals("http") && !scheme.equals("https")) {
            throw ToolException.invalidArgument("url", "must be an http or https URL");
        }
        if (uri.getRawUserInfo() != null) {
            throw ToolException.invalidArgument("url",
                    "must not hold user:password@; send credentials in a header, as secret://name");
        }
        if (uri.getHost() == null) {
            throw ToolException.invalidArgument("url", "has no host");
        }
        if (!policy.allows(uri.getHost())) {
            throw ToolException.refused("url", "host " + uri.getHost() + " is not on the http_fetch allowlist"
                    + (policy.allowedHosts().isEmpty() ? ", which is empty: no host may be fetched from" : ""));
        }
        return uri;
    }

    /** Refuses a host name that resolves to an address which is not public, unless the policy allows those. */
    private void requirePublicAddresses(URI uri) throws ToolException {
        String host = uri.getHost();
        if (policy.privateAddresses() || isIpLiteral(host)) {
            return;
        }
        InetAddress[] addresses;
        try {
            addresses = lookup.addresses(host);
        } catch (UnknownHostException e) {
            throw ToolException.failed("cannot resolve " + host, e);
        }
        for (InetAddress address : addresses) {
            if (!PublicAddress.isPublic(address)) {
                throw ToolException.refused("url", "host " + host + " resolves to " + address.getHostAddress()
                        + ", which is not a public address (loopback, private, link-local, ...); an operator who means"
                        + " it allows such addresses with tether.executor.http.allow-private-addresses");
            }
        }
    }

    /** An IPv4 literal (every DNS name has a letter in its last label) or a bracketed IPv6 one. */
    private static boolean isIpLiteral(String host) {
        return host.startsWith("[") || host.chars().allMatch(c -> c == '.' || (c >= '0' && c <= '9'));
    }

    private static ToolOutput output(ToolContext context, HttpResponse<CappedBodySubscriber.Body> response) {
        var content = new StringBuilder("HTTP ").append(response.statusCode()).append('\n');
        response.headers().firstValue("content-type").ifPresent(type -> content.append("content-type: ").append(type).append('\n'));
        response.headers().firstValue("location").ifPresent(to -> content.append("location: ").append(to).append('\n'));
        content.append('\n');
        CappedBodySubscriber.Body body = response.body();
        String text = new String(body.bytes(), UTF_8);
        if (body.truncated()) { // the cut may end in the beginning of a secret, which redacting the whole would miss
            text = context.redactor().redactCut(text).text();
        }
        if (text.indexOf('\0') >= 0) {
            content.append("[http_fetch: binary body not shown]\n");
        } else {
            content.append(text);
        }
        if (body.truncated()) {
            content.append(text.endsWith("\n") ? "" : "\n").append("[http_fetch: body cut at ")
                    .append(body.bytes().length).append(" bytes]\n");
        }
        if (response.statusCode() / 100 == 3) {
            content.append("[http_fetch: redirects are not followed]\n");
        }
        boolean ok = response.statusCode() / 100 == 2;
        return context.output(ok ? ToolOutput.Status.OK : ToolOutput.Status.ERROR, content.toString());
    }

    /** The same failure whichever timeout fires first: the request's, or the wait for its body. */
    private ToolException timedOut(URI uri, Throwable cause) {
        return ToolException.failed("no complete response from " + target(uri) + " within "
                + policy.timeout().toMillis() + " ms", cause);
    }

    private ToolException failure(URI uri, Throwable cause) {
        String target = target(uri);
        if (cause instanceof HttpTimeoutException) {
            return timedOut(uri, cause);
        }
        if (cause instanceof ConnectException) {
            return ToolException.failed("cannot connect to " + target, cause);
        }
        if (cause instanceof IOException) {
            return ToolException.failed("fetching from " + target + " failed: " + cause.getClass().getSimpleName(),
                    cause);
        }
        return ToolException.failed("fetching from " + target + " failed unexpectedly", cause);
    }

    private static String target(URI uri) {
        return uri.getHost() + (uri.getPort() < 0 ? "" : ":" + uri.getPort());
    }

    @Override
    public Reconciliation reconcile(ToolContext context, JsonNode arguments, LedgerEntry started) {
        return new Reconciliation.NotApplied();
    }
}
