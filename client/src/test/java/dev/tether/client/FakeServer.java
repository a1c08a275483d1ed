package dev.tether.client;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ExecutorService;

/**
 * A scripted HTTP server on 127.0.0.1 for unit tests (the JDK's own server; no Tether service):
 * each request gets the next scripted answer, and every request is recorded. Only for testing the
 * client's side of the protocol — the integration tests run against the real services.
 */
final class FakeServer implements AutoCloseable {

    /** A request as the server saw it; path and query still percent-encoded. */
    record Seen(String method, String path, String query, Map<String, List<String>> headers, String body) {
        String header(String name) {
            return headers.entrySet().stream().filter(e -> e.getKey().equalsIgnoreCase(name)).findFirst()
                    .map(e -> e.getValue().get(0)).orElse(null);
        }
    }

    /** An answer to one request; may stream, sleep or close the connection. */
    @FunctionalInterface
    interface Script {
        void answer(HttpExchange exchange) throws IOException, InterruptedException;
    }

    /** The exchange attribute that holds the request's body. */
    static final String BODY = "fake-server.body";

    private final HttpServer server;
    private final ExecutorService executor = Executors.newCachedThreadPool();
    private final Deque<Script> scripts = new ArrayDeque<>();
    private final List<Seen> seen = new CopyOnWriteArrayList<>();
    private Script fallback = json(500, "{\"error\":\"internal\",\"message\":\"nothing scripted\"}");

    FakeServer() {
        try {
            server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        server.createContext("/", this::handle);
        server.setExecutor(executor);
        server.start();
    }

    URI uri() {
        return URI.create("http://127.0.0.1:" + server.getAddress().getPort());
    }

    /** Options with every service at this server, the token set, and quick retries. */
    TetherOptions options() {
        return TetherOptions.of(uri(), uri(), uri()).withToken("dev-acme-agent")
                .withTimeout(Duration.ofSeconds(5)).withRetry(RetryPolicy.of(3, Duration.ofMillis(10), Duration.ofMillis(50)));
    }

    /** The next request gets this answer. */
    synchronized FakeServer then(Script script) {
        scripts.add(script);
        return this;
    }

    /** Requests beyond the scripted ones get this answer. */
    synchronized FakeServer otherwise(Script script) {
        fallback = script;
        return this;
    }

    List<Seen> requests() {
        return List.copyOf(seen);
    }

    static Script json(int status, String body) {
        return exchange -> respond(exchange, status, body, Map.of());
    }

    static Script json(int status, String body, Map<String, String> headers) {
        return exchange -> respond(exchange, status, body, headers);
    }

    /** An SSE answer: the frames, written and flushed one by one, then the stream ends (EOF). */
    static Script sse(String... frames) {
        return exchange -> {
            exchange.getResponseHeaders().add("Content-Type", "text/event-stream");
            exchange.sendResponseHeaders(200, 0);
            try (OutputStream out = exchange.getResponseBody()) {
                for (String frame : frames) {
                    out.write(frame.getBytes(StandardCharsets.UTF_8));
                    out.flush();
                }
            }
        };
    }

    /** The SSE frame of an event, with its bare seq for an id (as the session-service wrote it before ids named the session). */
    static String frame(String sessionId, long seq) {
        return frame(sessionId, seq, Long.toString(seq));
    }

    /** The SSE frame of an event with the id {@code id} (the session-service's: {@code <seq>@<sessionStartedAt>}). */
    static String frame(String sessionId, long seq, String id) {
        return "id:" + id + "\nevent:user_message\ndata:" + eventJson(sessionId, seq) + "\n\n";
    }

    static String eventJson(String sessionId, long seq) {
        return "{\"seq\":" + seq + ",\"eventId\":\"e-" + seq + "\",\"type\":\"user_message\",\"sessionId\":\"" + sessionId
                + "\",\"occurredAt\":\"2026-11-29T10:16:00.986Z\",\"actor\":{\"kind\":\"USER\",\"id\":\"acme-agent\"},"
                + "\"harnessVersion\":\"v1\",\"content\":\"message " + seq + "\"}";
    }

    private static void respond(HttpExchange exchange, int status, String body, Map<String, String> headers) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().add("Content-Type", "application/json");
        headers.forEach(exchange.getResponseHeaders()::add);
        exchange.sendResponseHeaders(status, bytes.length == 0 ? -1 : bytes.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(bytes);
        }
    }

    private void handle(HttpExchange exchange) throws IOException {
        String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
        exchange.setAttribute(BODY, body); // the body is read here; a script finds it under BODY
        seen.add(new Seen(exchange.getRequestMethod(), exchange.getRequestURI().getRawPath(), exchange.getRequestURI().getRawQuery(),
                Map.copyOf(exchange.getRequestHeaders()), body));
        Script script;
        synchronized (this) {
            script = scripts.isEmpty() ? fallback : scripts.poll();
        }
        try {
            script.answer(exchange);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (IOException e) {
            // the client went away mid-answer: what some tests do on purpose
        } finally {
            exchange.close();
        }
    }

    @Override
    public void close() {
        server.stop(0);
        executor.shutdownNow();
    }
}
