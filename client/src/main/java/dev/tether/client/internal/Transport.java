package dev.tether.client.internal;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tether.client.ApiError;
import dev.tether.client.RetryPolicy;
import dev.tether.client.TetherException;
import dev.tether.client.TetherOptions;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * HTTP for the SDK: one {@link HttpClient} (HTTP/1.1, so a stream is one plain connection), the
 * bearer token on every request, JSON bodies, and the retry loop for calls marked
 * {@link Retry#SAFE}. Not part of the API. Thread-safe.
 */
public final class Transport {

    /** Whether a call may be sent again when its answer is lost. */
    public enum Retry {
        /** Repeating it changes nothing (a read, an idempotent write): retried per the policy. */
        SAFE,
        /** Repeating it could act twice, or answer differently: sent once. */
        NEVER
    }

    /** A service's answer: its status, its body, and a 503's {@code Retry-After}. */
    public record Answer(int status, String body, Optional<Duration> retryAfter) {

        public boolean ok() {
            return status >= 200 && status < 300;
        }

        public JsonNode json() {
            return Json.parse(body);
        }

        /** The error body, read as an {@link ApiError}; a body that is not one reads as code {@code http_<status>}. */
        public ApiError error() {
            return apiError(status, body);
        }
    }

    private static final String USER_AGENT = "tether-client/0.1";
    private static final int ERROR_BODY = 64 * 1024;

    private final TetherOptions options;
    private final HttpClient http;

    public Transport(TetherOptions options) {
        this.options = options;
        this.http = HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(options.connectTimeout())
                .followRedirects(HttpClient.Redirect.NEVER)
                .build();
    }

    public TetherOptions options() {
        return options;
    }

    public Answer get(URI uri) {
        return send("GET", uri, null, Retry.SAFE);
    }

    /**
     * Sends the request; retries it per the policy when it is {@link Retry#SAFE} and failed on the way
     * or with 502/503/504.
     *
     * @throws TetherException when no answer came (after the retries allowed)
     */
    public Answer send(String method, URI uri, JsonNode body, Retry retry) {
        HttpRequest.Builder builder = request(uri).timeout(options.timeout()).header("Accept", "application/json");
        if (body == null) {
            builder.method(method, HttpRequest.BodyPublishers.noBody());
        } else {
            builder.header("Content-Type", "application/json")
                    .method(method, HttpRequest.BodyPublishers.ofString(Json.write(body), StandardCharsets.UTF_8));
        }
        HttpRequest request = builder.build();
        RetryPolicy policy = options.retry();
        int attempts = retry == Retry.SAFE ? policy.maxAttempts() : 1;
        for (int attempt = 1; ; attempt++) {
            try {
                HttpResponse<String> response = exchange(request, info -> HttpResponse.BodySubscribers.ofString(StandardCharsets.UTF_8));
                Answer answer = new Answer(response.statusCode(), response.body(), retryAfter(response));
                if (transient5xx(answer.status()) && attempt < attempts) {
                    pause(policy, attempt, answer.retryAfter());
                    continue;
                }
                return answer;
            } catch (IOException e) {
                if (attempt < attempts) {
                    pause(policy, attempt, Optional.empty());
                    continue;
                }
                boolean neverArrived = e instanceof ConnectException || e instanceof HttpConnectTimeoutException;
                String what = method + " " + uri.getPath();
                throw retry == Retry.SAFE || neverArrived
                        ? new TetherException(what + " failed after " + attempt + " attempt(s): " + e, e, false)
                        : new TetherException(what + " got no answer (" + e + "); not retried, since repeating it is not safe: "
                                + "it may or may not have taken effect", e, true);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new TetherException(method + " " + uri.getPath() + " was interrupted", e, retry == Retry.NEVER);
            }
        }
    }

    /**
     * One exchange: the request's timeout bounds the wait for the answer's headers (the HTTP client's own), and the same
     * timeout again, from the headers on, the wait for its body, which the HTTP client alone would wait for without end.
     */
    private <T> HttpResponse<T> exchange(HttpRequest request, HttpResponse.BodyHandler<T> body) throws IOException, InterruptedException {
        var headersAt = new AtomicLong();
        CompletableFuture<HttpResponse<T>> answer = http.sendAsync(request, info -> {
            headersAt.set(System.nanoTime() | 1); // never 0: "no headers yet"
            return body.apply(info);
        });
        long timeout = options.timeout().toNanos();
        long wait = timeout;
        try {
            while (true) {
                try {
                    return answer.get(wait, TimeUnit.NANOSECONDS);
                } catch (TimeoutException e) {
                    long at = headersAt.get();
                    if (at == 0) {
                        continue; // still waiting for the headers: the request's own timeout ends that wait
                    }
                    wait = at + timeout - System.nanoTime();
                    if (wait <= 0) {
                        answer.cancel(true);
                        throw new HttpTimeoutException("the answer's body did not arrive within " + options.timeout() + " of its headers");
                    }
                }
            }
        } catch (InterruptedException e) {
            answer.cancel(true);
            throw e;
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            while (cause instanceof java.util.concurrent.CompletionException && cause.getCause() != null) {
                cause = cause.getCause();
            }
            if (cause instanceof IOException io) {
                throw io;
            }
            if (cause instanceof RuntimeException r) {
                throw r;
            }
            throw new IOException(cause);
        }
    }

    /**
     * Opens a server-sent-event stream. The request timeout bounds the wait for the answer's
     * headers; a 200's body then stays open for as long as the service keeps it. Any other answer's
     * body (its first 64 KiB kept) is read before this returns, within the timeout again.
     */
    public HttpResponse<InputStream> openStream(URI uri, String lastEventId) throws IOException, InterruptedException {
        HttpRequest.Builder builder = request(uri).timeout(options.timeout()).header("Accept", "text/event-stream").GET();
        if (lastEventId != null) {
            builder.header("Last-Event-ID", lastEventId);
        }
        return exchange(builder.build(), info -> info.statusCode() == 200 ? HttpResponse.BodySubscribers.ofInputStream() : errorBody());
    }

    /** An error answer's body, read whole, its first 64 KiB kept. */
    private static HttpResponse.BodySubscriber<InputStream> errorBody() {
        var kept = new ByteArrayOutputStream();
        return HttpResponse.BodySubscribers.mapping(HttpResponse.BodySubscribers.ofByteArrayConsumer(chunk -> chunk.ifPresent(bytes -> {
            int room = ERROR_BODY - kept.size();
            if (room > 0) {
                kept.write(bytes, 0, Math.min(room, bytes.length));
            }
        })), done -> new ByteArrayInputStream(kept.toByteArray()));
    }

    /** The wait before attempt {@code failures + 1}: the policy's backoff with jitter, at least a 503's Retry-After. */
    public static Duration delay(RetryPolicy policy, int failures, Optional<Duration> retryAfter) {
        long base = policy.backoff(failures).toMillis();
        long jittered = base / 2 + (base > 1 ? ThreadLocalRandom.current().nextLong(base / 2 + 1) : 0);
        long millis = Math.max(jittered, retryAfter.map(Duration::toMillis).orElse(0L));
        return Duration.ofMillis(millis);
    }

    /**
     * {@code {"error", "message", ...}} as an {@link ApiError}; anything else as code {@code http_<status>} with an
     * {@linkplain #excerpt excerpt} of the body as its message.
     */
    public static ApiError apiError(int status, String body) {
        try {
            JsonNode node = Json.parse(body);
            if (node.isObject() && node.hasNonNull("error")) {
                var details = new LinkedHashMap<String, Object>();
                node.properties().forEach(f -> {
                    if (!f.getKey().equals("error") && !f.getKey().equals("message") && !f.getValue().isNull()) {
                        details.put(f.getKey(), scalar(f.getValue()));
                    }
                });
                return new ApiError(status, Json.text(node, "error"), Json.text(node, "message"), details);
            }
        } catch (MalformedAnswerException e) {
            // not JSON: a proxy's page, an empty body
        }
        return new ApiError(status, "http_" + status, excerpt(body), Map.of());
    }

    /** The most of a body that is not Tether's {@link #excerpt} keeps. */
    static final int EXCERPT_CHARS = 200;
    private static final Pattern TITLE = Pattern.compile("(?is)<title[^>]*>(.*?)</title>");
    private static final Pattern TAG_OR_SPACE = Pattern.compile("(?s)<!--.*?-->|<(script|style)\\b.*?</\\1\\s*>|<[^>]*>|[\\s\\p{Cc}]+");
    /** How much of such a body is looked at: a proxy's page says what it is near its top, and the patterns stay cheap. */
    private static final int EXCERPT_SCAN_CHARS = 4096;

    /**
     * What a body that is not Tether's says, briefly: a proxy's error page ({@code 502 Bad Gateway}, a gateway's
     * "upstream connect error"). An HTML page's title if it has one, else its text without tags; control characters
     * and runs of spaces made one space; at most {@value #EXCERPT_CHARS} characters.
     */
    static String excerpt(String body) {
        String head = body.length() <= EXCERPT_SCAN_CHARS ? body : body.substring(0, EXCERPT_SCAN_CHARS);
        Matcher title = TITLE.matcher(head);
        String text = title.find() ? title.group(1) : head;
        text = TAG_OR_SPACE.matcher(text).replaceAll(" ").strip();
        return text.length() <= EXCERPT_CHARS ? text : text.substring(0, EXCERPT_CHARS - 1).stripTrailing() + "…";
    }

    private static Object scalar(JsonNode value) {
        if (value.isIntegralNumber()) {
            return value.asLong();
        }
        if (value.isNumber()) {
            return value.asDouble();
        }
        if (value.isBoolean()) {
            return value.asBoolean();
        }
        return value.isTextual() ? value.asText() : value.toString();
    }

    private HttpRequest.Builder request(URI uri) {
        HttpRequest.Builder builder = HttpRequest.newBuilder(uri).header("User-Agent", USER_AGENT);
        options.token().ifPresent(t -> builder.header("Authorization", "Bearer " + t));
        return builder;
    }

    private static boolean transient5xx(int status) {
        return status == 502 || status == 503 || status == 504;
    }

    /** The longest {@code Retry-After} honoured: a longer one (a proxy's hour, a day) is the backoff's to decide. */
    private static final Duration MAX_RETRY_AFTER = Duration.ofSeconds(60);

    /** A 503's (or 429's) {@code Retry-After} in seconds, up to {@link #MAX_RETRY_AFTER}; empty otherwise. */
    static Optional<Duration> retryAfter(HttpResponse<?> response) {
        return response.headers().firstValue("Retry-After").flatMap(v -> {
            try {
                long seconds = Math.max(0, Long.parseLong(v.trim()));
                // longer, the call would hang for as long (or fail: past 2^63 ms a Duration has no millis)
                return seconds <= MAX_RETRY_AFTER.toSeconds() ? Optional.of(Duration.ofSeconds(seconds)) : Optional.empty();
            } catch (NumberFormatException e) {
                return Optional.empty(); // an HTTP date, or a number past a long: the backoff decides
            }
        });
    }

    private static void pause(RetryPolicy policy, int failures, Optional<Duration> retryAfter) {
        try {
            Thread.sleep(delay(policy, failures, retryAfter).toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new TetherException("interrupted while waiting to retry", e, true);
        }
    }
}
