package dev.tether.reliability;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tether.client.NewEvent;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Steady appends seen from the client's side: one thread per probe session appends a {@code user_message} every
 * {@link #INTERVAL_MILLIS}, each a plain {@code POST /v1/sessions/{id}/events} with no retry of the HTTP client's own,
 * and records every attempt: when it started and ended, its status, whether a 503 said {@code Retry-After}. An attempt
 * that fails is sent again with the same eventId (safe: the sequencer answers a known eventId with its original seq),
 * after the {@code Retry-After} it was given (at most 1 s) or 250 ms, until it is acknowledged. The cluster run reads
 * from the attempts the window during which appends failed around each fault, and checks every acknowledged append
 * against the log.
 *
 * <p>Thread-safe: the attempts may be read while it runs.
 */
final class AppendProbe implements AutoCloseable {

    static final long INTERVAL_MILLIS = 200;
    /** The client's request timeout: longer than the session-service's reply timeout (10 s), after which it answers 503. */
    static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(15);

    /**
     * One attempt at one append.
     *
     * @param status     the HTTP status, or 0 when no answer came within {@link #REQUEST_TIMEOUT} or the connection failed
     * @param retryAfter whether the answer carried {@code Retry-After}
     * @param seq        the seq the append was acknowledged at, or 0
     * @param error      what went wrong, empty when acknowledged
     */
    record Attempt(String sessionId, String eventId, long startNanos, long endNanos, int status, boolean retryAfter, long seq,
                   String error) {
        boolean acknowledged() {
            return status / 100 == 2 && seq > 0;
        }

        long millis() {
            return (endNanos - startNanos) / 1_000_000;
        }
    }

    /** A probe session: its id and the epoch of the driver's claim. */
    record Target(String sessionId, long epoch) {
    }

    private static final ObjectMapper JSON = new ObjectMapper();

    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(2)).build();
    private final String sessionsUrl;
    private final String token;
    private final List<Target> targets;
    private final List<Attempt> attempts = new CopyOnWriteArrayList<>();
    private final List<Thread> threads = new ArrayList<>();
    private volatile boolean running = true;

    AppendProbe(String sessionsUrl, String token, List<Target> targets) {
        this.sessionsUrl = sessionsUrl;
        this.token = token;
        this.targets = List.copyOf(targets);
    }

    void start() {
        for (Target t : targets) {
            Thread thread = new Thread(() -> probe(t), "probe-" + t.sessionId());
            thread.setDaemon(true);
            threads.add(thread);
            thread.start();
        }
    }

    List<Target> targets() {
        return targets;
    }

    /** Every attempt so far, in no particular order across sessions (in order within one). */
    List<Attempt> attempts() {
        return List.copyOf(attempts);
    }

    /** Stops appending; an append under way is finished first (acknowledged or given up), so none is left half-known. */
    @Override
    public void close() {
        running = false;
        for (Thread t : threads) {
            try {
                t.join(REQUEST_TIMEOUT.toMillis() * 3);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    private void probe(Target target) {
        for (long n = 1; running; n++) {
            String eventId = target.sessionId() + "-probe-" + n;
            // the same eventId until acknowledged: a retry of an append that went through appends nothing
            while (true) {
                Attempt a = append(target, eventId, n);
                attempts.add(a);
                if (a.acknowledged()) {
                    break;
                }
                if (Thread.currentThread().isInterrupted() || (a.status() / 100 == 4)) {
                    break; // interrupted, or refused for good (not a transient failure): the run's checks will say so
                }
                sleep(a.retryAfter() ? 1_000 : 250);
            }
            sleep(INTERVAL_MILLIS);
        }
    }

    private Attempt append(Target target, String eventId, long n) {
        ObjectNode body = JSON.createObjectNode();
        body.put("epoch", target.epoch());
        body.putArray("events").add(NewEvent.userMessage("probe append " + n).toJson(eventId));
        var request = HttpRequest.newBuilder(URI.create(sessionsUrl + "/v1/sessions/"
                        + URLEncoder.encode(target.sessionId(), StandardCharsets.UTF_8) + "/events"))
                .timeout(REQUEST_TIMEOUT)
                .header("Authorization", "Bearer " + token)
                .header("Content-Type", "application/json")
                .header("Accept", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body.toString(), StandardCharsets.UTF_8))
                .build();
        long start = System.nanoTime();
        try {
            HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
            long end = System.nanoTime();
            boolean retryAfter = response.headers().firstValue("Retry-After").isPresent();
            if (response.statusCode() / 100 == 2) {
                JsonNode appended = JSON.readTree(response.body()).path("appended");
                long seq = appended.isArray() && appended.size() == 1 ? appended.get(0).path("seq").asLong(0) : 0;
                return new Attempt(target.sessionId(), eventId, start, end, response.statusCode(), retryAfter, seq,
                        seq > 0 ? "" : "no seq in " + response.body());
            }
            return new Attempt(target.sessionId(), eventId, start, end, response.statusCode(), retryAfter, 0,
                    clip(response.body()));
        } catch (HttpTimeoutException e) {
            return new Attempt(target.sessionId(), eventId, start, System.nanoTime(), 0, false, 0,
                    "no answer within " + REQUEST_TIMEOUT.toSeconds() + " s");
        } catch (IOException e) {
            return new Attempt(target.sessionId(), eventId, start, System.nanoTime(), 0, false, 0, String.valueOf(e));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            running = false;
            return new Attempt(target.sessionId(), eventId, start, System.nanoTime(), 0, false, 0, "interrupted");
        }
    }

    /**
     * The window during which appends to one session failed after {@code sinceNanos}: from the start of the first attempt
     * that ended after it and failed or took longer than {@code slowMillis}, to the end of the first acknowledged attempt
     * after that; 0 if none failed or was slow. By session id.
     */
    Map<String, Long> windows(long sinceNanos, long untilNanos, long slowMillis) {
        var windows = new java.util.TreeMap<String, Long>();
        for (Target t : targets) {
            long windowStart = -1;
            long window = 0;
            for (Attempt a : attempts) {
                if (!a.sessionId().equals(t.sessionId()) || a.endNanos() < sinceNanos || a.startNanos() > untilNanos) {
                    continue;
                }
                boolean bad = !a.acknowledged() || a.millis() > slowMillis;
                if (windowStart < 0 && bad) {
                    windowStart = a.startNanos();
                }
                if (windowStart >= 0 && a.acknowledged()) {
                    window = (a.endNanos() - windowStart) / 1_000_000;
                    break;
                }
            }
            windows.put(t.sessionId(), windowStart >= 0 && window == 0 ? (untilNanos - windowStart) / 1_000_000 : window);
        }
        return windows;
    }

    private static String clip(String s) {
        String one = s.replace('\n', ' ');
        return one.length() > 200 ? one.substring(0, 200) + "…" : one;
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
