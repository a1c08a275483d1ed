package dev.tether.reliability.fuzz;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;

/**
 * One keep-alive HTTP/1.1 client for both ITs: most fuzz cases are refused in a few milliseconds, so a new
 * connection per case would cost more than the case. Bodies are raw bytes, so invalid UTF-8 reaches the service as
 * it was generated. Thread-safe.
 */
final class Http {

    static final ObjectMapper JSON = new ObjectMapper();
    private static final HttpClient CLIENT = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).followRedirects(HttpClient.Redirect.NEVER).build();

    private Http() {}

    /** A request as the ITs build it: {@code headers} may hold Authorization, Content-Type, Accept, Last-Event-ID. */
    record Call(String method, String url, Map<String, String> headers, byte[] body) {
        Call {
            headers = Map.copyOf(headers);
        }

        static Call of(String method, String url, String token) {
            return new Call(method, url, token == null ? Map.of() : Map.of("Authorization", "Bearer " + token), null);
        }

        Call withJson(byte[] json) {
            var h = new java.util.HashMap<>(headers);
            h.put("Content-Type", "application/json");
            return new Call(method, url, h, json);
        }

        Call withJson(String json) {
            return withJson(json.getBytes(StandardCharsets.UTF_8));
        }

        Call withHeader(String name, String value) {
            var h = new java.util.HashMap<>(headers);
            h.put(name, value);
            return new Call(method, url, h, body);
        }

        @Override
        public String toString() {
            String auth = headers.getOrDefault("Authorization", "none");
            return method + " " + url.replaceFirst("^http://127\\.0\\.0\\.1:\\d+", "") + " (auth " + abbreviate(auth, 40) + ", "
                    + (body == null ? "no body" : body.length + " body bytes: " + abbreviate(new String(body, StandardCharsets.UTF_8), 160))
                    + ")";
        }
    }

    /** A response: status, content type and body; {@link #json()} parses the body if it is JSON, else null. */
    record Answer(int status, String contentType, byte[] body) {
        JsonNode json() {
            if (body.length == 0 || contentType == null || !contentType.startsWith("application/json")) {
                return null;
            }
            try {
                return JSON.readTree(body);
            } catch (IOException e) {
                return null;
            }
        }

        String text() {
            return new String(body, StandardCharsets.UTF_8);
        }

        @Override
        public String toString() {
            return status + " " + abbreviate(text(), 300);
        }
    }

    /** Bodies larger than this are sent only after the server said it takes them ({@code Expect: 100-continue}). */
    private static final int LARGE_BODY = 1 << 20;

    static Answer send(Call call) {
        var builder = HttpRequest.newBuilder(URI.create(call.url())).timeout(Duration.ofSeconds(60));
        call.headers().forEach(builder::header);
        if (call.body() != null && call.body().length > LARGE_BODY) {
            // as a careful client does: a server refusing a body over its limit answers 413 and closes the connection;
            // a client still sending then gets a reset instead of the answer. With 100-continue it sends nothing first.
            builder.expectContinue(true);
        }
        builder.method(call.method(), call.body() == null ? HttpRequest.BodyPublishers.noBody()
                : HttpRequest.BodyPublishers.ofByteArray(call.body()));
        try {
            boolean stream = "text/event-stream".equals(call.headers().get("Accept"));
            if (stream) {
                // a live subscription never ends: take the status and the first bytes, then hang up
                HttpResponse<InputStream> response = CLIENT.send(builder.build(), HttpResponse.BodyHandlers.ofInputStream());
                try (InputStream in = response.body()) {
                    byte[] head = response.statusCode() == 200 ? new byte[0] : in.readAllBytes();
                    return new Answer(response.statusCode(), response.headers().firstValue("Content-Type").orElse(null), head);
                }
            }
            HttpResponse<byte[]> response = CLIENT.send(builder.build(), HttpResponse.BodyHandlers.ofByteArray());
            return new Answer(response.statusCode(), response.headers().firstValue("Content-Type").orElse(null), response.body());
        } catch (IOException e) {
            throw new UncheckedIOException("no answer to " + call, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    static String abbreviate(String s, int max) {
        String flat = s.replaceAll("\\s+", " ");
        return flat.length() <= max ? flat : flat.substring(0, max) + "…(" + s.length() + " chars)";
    }
}
