package dev.tether.client.internal;

import dev.tether.client.ApiError;
import dev.tether.client.RetryPolicy;
import dev.tether.client.SessionEvent;
import dev.tether.client.SessionEventListener;
import dev.tether.client.Subscription;
import dev.tether.client.SubscriptionEnd;
import dev.tether.client.TetherException;
import java.io.BufferedReader;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;

/**
 * A {@link Subscription} over the session-service's SSE endpoint, on a thread of its own.
 *
 * <p>The loop: open {@code GET /v1/sessions/{id}/events} with {@code fromSeq} and
 * {@code Last-Event-ID} both saying "after the last seq delivered" (and {@code sessionStartedAt}, when the
 * subscription names the session's start); deliver each event whose seq is
 * the one owed next; skip one already delivered; treat one beyond it as a broken stream. When the
 * stream ends or fails, wait (the retry policy's backoff, at least a 503's {@code Retry-After}, reset once a connection delivered
 * something) and open it again. A 404 ends the subscription (NOT_FOUND); 401, 403 and other client
 * errors end it (FAILED); 5xx and network failures are retried for as long as it is open.
 *
 * <p>Not part of the API. Thread-safe: {@link #close()} may come from any thread, the listener's
 * included.
 */
public final class LiveSubscription implements Subscription {

    private static final Duration JOIN = Duration.ofSeconds(5);

    private final Transport transport;
    private final URI sessions;
    private final String sessionId;
    private final Instant sessionStartedAt;
    private final SessionEventListener listener;
    private final RetryPolicy policy;
    private final Consumer<LiveSubscription> onEnd;
    private final Thread thread;
    private final CountDownLatch closeSignal = new CountDownLatch(1);
    private final CompletableFuture<SubscriptionEnd> ended = new CompletableFuture<>();
    /** Held to enter a callback and to interrupt the thread: close() never interrupts the listener. */
    private final Object interrupting = new Object();

    private volatile long lastSeq;
    /** The SSE id of the event delivered last when it is that event's ({@code <seq>@<sessionStartedAt>}), or null. */
    private volatile String lastId;
    private volatile boolean closing;
    private volatile boolean inCallback;
    private volatile InputStream current;

    /**
     * @param sessionStartedAt the start of the session meant, or null for whichever has the id
     * @param onEnd            told once, on the subscription's thread, after it ended (the client forgets it)
     */
    public LiveSubscription(Transport transport, String sessionId, long fromSeq, Instant sessionStartedAt,
                            SessionEventListener listener, Consumer<LiveSubscription> onEnd) {
        if (fromSeq < 1) {
            throw new IllegalArgumentException("fromSeq starts at 1, not " + fromSeq);
        }
        this.transport = transport;
        this.sessions = transport.options().sessionsUri();
        this.sessionId = sessionId;
        this.sessionStartedAt = sessionStartedAt;
        this.listener = listener;
        // a policy that never waits (RetryPolicy.none(), or one whose first wait is zero: zero doubled stays zero) is about
        // calls: a subscription reconnecting without a wait would spin
        RetryPolicy retry = transport.options().retry();
        this.policy = retry.initialBackoff().toMillis() == 0 || retry.maxBackoff().toMillis() <= 1 ? RetryPolicy.defaults() : retry;
        this.onEnd = onEnd;
        this.lastSeq = fromSeq - 1;
        this.thread = new Thread(this::run, "tether-subscription-" + sessionId);
        this.thread.setDaemon(true);
    }

    /** Starts the subscription's thread; once. */
    public LiveSubscription start() {
        thread.start();
        return this;
    }

    @Override
    public String sessionId() {
        return sessionId;
    }

    @Override
    public long lastSeq() {
        return lastSeq;
    }

    @Override
    public boolean isOpen() {
        return !ended.isDone();
    }

    @Override
    public Optional<SubscriptionEnd> awaitEnd(Duration timeout) throws InterruptedException {
        try {
            return Optional.of(ended.get(HttpTetherClient.waitNanos(timeout, "timeout"), TimeUnit.NANOSECONDS));
        } catch (TimeoutException e) {
            return Optional.empty();
        } catch (ExecutionException e) {
            throw new IllegalStateException("a subscription's end is never exceptional", e);
        }
    }

    @Override
    public void close() {
        closing = true;
        closeSignal.countDown();
        closeQuietly(current);
        if (Thread.currentThread() == thread) {
            return; // from the listener: the loop sees `closing` as soon as the callback returns
        }
        synchronized (interrupting) {
            if (!inCallback) {
                thread.interrupt(); // wakes a read or a connect that closing the stream did not
            }
        }
        try {
            thread.join(JOIN.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    // ---------------------------------------------------------------------------------------------

    private void run() {
        SubscriptionEnd end;
        Error error = null;
        try {
            end = loop();
        } catch (RuntimeException e) {
            end = new SubscriptionEnd(SubscriptionEnd.Reason.FAILED, Optional.of(e), lastSeq);
        } catch (Error e) { // a listener's AssertionError, say: the subscription still ends, says why, and the thread rethrows it
            error = e;
            end = new SubscriptionEnd(SubscriptionEnd.Reason.FAILED, Optional.of(new TetherException("the subscription failed: " + e, e, false)),
                    lastSeq);
        }
        if (closing && end.reason() == SubscriptionEnd.Reason.FAILED && end.failure().orElse(null) instanceof Interrupted) {
            end = new SubscriptionEnd(SubscriptionEnd.Reason.CLOSED, Optional.empty(), lastSeq);
        }
        SubscriptionEnd last = end;
        try {
            callback(() -> listener.onEnd(last));
        } finally {
            ended.complete(end);
            onEnd.accept(this);
        }
        if (error != null) {
            throw error;
        }
    }

    private SubscriptionEnd loop() {
        int failures = 0;
        while (!closing) {
            long next = lastSeq + 1;
            HttpResponse<InputStream> response;
            try {
                URI uri = Uris.of(sessions).path("/v1/sessions").segment(sessionId).path("/events").param("fromSeq", next)
                        .param("sessionStartedAt", sessionStartedAt).build();
                response = transport.openStream(uri, lastId != null ? lastId : next > 1 ? Long.toString(next - 1) : null);
            } catch (IOException e) {
                if (!disconnected(++failures, e, Optional.empty())) {
                    break;
                }
                continue;
            } catch (InterruptedException e) {
                return interrupted();
            }
            int status = response.statusCode();
            if (status != 200) {
                ApiError error = Transport.apiError(status, drain(response.body()));
                if (status == 404) {
                    return new SubscriptionEnd(SubscriptionEnd.Reason.NOT_FOUND, Optional.empty(), lastSeq);
                }
                if (status >= 500 || status == 429) {
                    if (!disconnected(++failures, new IOException("the service answered " + error), Transport.retryAfter(response))) {
                        break;
                    }
                    continue;
                }
                return new SubscriptionEnd(SubscriptionEnd.Reason.FAILED,
                        Optional.of(Outcomes.failure("subscribing to session " + sessionId, error)), lastSeq);
            }
            current = response.body();
            long before = lastSeq;
            Exception broken;
            try { // from here the stream is released however this connection ends: closed, broken, or a listener that threw
                if (closing) {
                    break;
                }
                callback(() -> listener.onConnected(next));
                read(response.body());
                broken = new EOFException("the service ended the stream");
            } catch (IOException e) {
                broken = e;
            } finally {
                closeQuietly(response.body());
                current = null;
            }
            if (Thread.interrupted() && closing) {
                break;
            }
            failures = lastSeq > before ? 1 : failures + 1; // a connection that delivered resets the backoff
            if (!disconnected(failures, broken, Optional.empty())) {
                break;
            }
        }
        return new SubscriptionEnd(SubscriptionEnd.Reason.CLOSED, Optional.empty(), lastSeq);
    }

    /** Delivers the stream's events until it ends; an event out of order ends it with an {@link IOException}. */
    private void read(InputStream body) throws IOException {
        var parser = new SseParser();
        var reader = new BufferedReader(new InputStreamReader(body, StandardCharsets.UTF_8));
        String line;
        while (!closing && (line = reader.readLine()) != null) {
            Optional<SseParser.Message> message = parser.line(line);
            if (message.isEmpty()) {
                continue;
            }
            SessionEvent event = Wire.event(Json.parse(message.get().data()));
            long owed = lastSeq + 1;
            if (event.seq() < owed) {
                continue; // delivered already
            }
            if (event.seq() > owed) {
                throw new IOException("the stream skipped from seq " + lastSeq + " to " + event.seq() + "; resuming after " + lastSeq);
            }
            if (closing) {
                return;
            }
            callback(() -> listener.onEvent(event));
            lastSeq = event.seq();
            // the id names the event's session too: a reconnect after it was erased and another made under its id is a 404
            lastId = message.get().id().filter(id -> id.startsWith(event.seq() + "@")).orElse(null);
        }
    }

    /**
     * Tells the listener, then waits before the next attempt (the backoff, at least a 503's {@code Retry-After}); false
     * when closed meanwhile.
     */
    private boolean disconnected(int failures, Exception cause, Optional<Duration> retryAfter) {
        if (closing) {
            return false;
        }
        callback(() -> listener.onDisconnected(lastSeq, cause));
        try {
            return !closeSignal.await(Transport.delay(policy, failures, retryAfter).toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            if (!closing) {
                throw new Interrupted();
            }
            return false;
        }
    }

    private void callback(Runnable call) {
        synchronized (interrupting) {
            inCallback = true;
            if (closing) {
                Thread.interrupted(); // close()'s, sent to wake a wait that ended by itself: not the listener's
            }
        }
        try {
            call.run();
        } finally {
            inCallback = false;
        }
    }

    private SubscriptionEnd interrupted() {
        if (closing) {
            return new SubscriptionEnd(SubscriptionEnd.Reason.CLOSED, Optional.empty(), lastSeq);
        }
        return new SubscriptionEnd(SubscriptionEnd.Reason.FAILED, Optional.of(new Interrupted()), lastSeq);
    }

    private static String drain(InputStream body) {
        try (body) {
            return new String(body.readNBytes(64 * 1024), StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "";
        }
    }

    private static void closeQuietly(InputStream in) {
        if (in != null) {
            try {
                in.close();
            } catch (IOException e) {
                // closing a broken stream: nothing more to do
            }
        }
    }

    /** The subscription's thread was interrupted by someone other than {@link #close()}. */
    private static final class Interrupted extends TetherException {
        private static final long serialVersionUID = 1L;

        Interrupted() {
            super("the subscription's thread was interrupted", null, false);
        }
    }
}
