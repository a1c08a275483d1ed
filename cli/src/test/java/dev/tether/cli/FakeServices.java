package dev.tether.cli;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The three services' REST APIs, scripted: a JDK {@link HttpServer} on 127.0.0.1 that answers each
 * {@code METHOD /path?query} with the answers queued for it (the last one repeats), and records
 * every request. Answers are the services' real JSON (test resources {@code answers/}). For unit tests
 * of the CLI's parsing and rendering only; the IT runs the real services.
 */
public final class FakeServices implements AutoCloseable {

    /** A request as the fake saw it. */
    public record Request(String method, String target, String authorization, String body) {}

    private record Answer(int status, String body) {}

    private final HttpServer server;
    private final Map<String, Queue<Answer>> answers = new HashMap<>();
    private final List<Request> requests = new CopyOnWriteArrayList<>();

    public FakeServices() {
        try {
            server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        server.createContext("/", this::handle);
        server.start();
    }

    /** Answers {@code METHOD target} (path and query, e.g. {@code GET /v1/sessions?status=open}) with {@code status} and {@code body}. */
    public synchronized FakeServices on(String request, int status, String body) {
        answers.computeIfAbsent(request, r -> new ArrayDeque<>()).add(new Answer(status, body));
        return this;
    }

    /** Answers with a test resource {@code answers/<name>}. */
    public FakeServices onResource(String request, int status, String name) {
        return on(request, status, resource(name));
    }

    public List<Request> requests() {
        return List.copyOf(requests);
    }

    /** The requests whose target starts with {@code prefix}. */
    public List<Request> requests(String method, String prefix) {
        return requests.stream().filter(r -> r.method().equals(method) && r.target().startsWith(prefix)).toList();
    }

    public String url() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    /** An environment pointing all three services at this fake. */
    public Map<String, String> env(String... more) {
        var env = new HashMap<String, String>();
        env.put("TETHER_SESSION_URL", url());
        env.put("TETHER_PROJECTOR_URL", url());
        env.put("TETHER_APPROVALS_URL", url());
        env.put("TETHER_TIMEOUT", "5s");
        for (int i = 0; i + 1 < more.length; i += 2) {
            env.put(more[i], more[i + 1]);
        }
        return env;
    }

    public static String resource(String name) {
        try (InputStream in = FakeServices.class.getResourceAsStream("/answers/" + name)) {
            if (in == null) {
                throw new IllegalArgumentException("no test resource answers/" + name);
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private void handle(HttpExchange exchange) throws IOException {
        String target = exchange.getRequestURI().getRawPath()
                + (exchange.getRequestURI().getRawQuery() == null ? "" : "?" + exchange.getRequestURI().getRawQuery());
        String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
        requests.add(new Request(exchange.getRequestMethod(), target, exchange.getRequestHeaders().getFirst("Authorization"), body));
        Answer answer;
        synchronized (this) {
            Queue<Answer> queue = answers.get(exchange.getRequestMethod() + " " + target);
            answer = queue == null ? new Answer(404, "{\"error\":\"not_found\",\"message\":\"no such route in the fake: " + target + "\"}")
                    : queue.size() > 1 ? queue.poll() : queue.peek();
        }
        byte[] bytes = answer.body().getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().add("Content-Type", "application/json");
        exchange.sendResponseHeaders(answer.status(), bytes.length == 0 ? -1 : bytes.length);
        if (bytes.length > 0) {
            exchange.getResponseBody().write(bytes);
        }
        exchange.close();
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
