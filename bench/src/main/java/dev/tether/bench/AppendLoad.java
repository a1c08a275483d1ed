package dev.tether.bench;

import dev.tether.client.AppendResult;
import dev.tether.client.Appended;
import dev.tether.client.ClaimRequest;
import dev.tether.client.NewEvent;
import dev.tether.client.NewSession;
import dev.tether.client.SessionWriter;
import dev.tether.client.TetherClient;
import dev.tether.client.ToolMode;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Appends through the SDK, end to end (REST, the exactly-once sequencer, the reply): closed-loop
 * throughput with batches, and open-loop latency of single events at a fixed rate.
 */
final class AppendLoad {

    /** A throughput run: events the service acknowledged with a seq, per second of the measured window. */
    record Throughput(long events, long requests, double seconds, double eventsPerSec, long failures) {
    }

    /**
     * A latency run. Latency is taken from the time each append was scheduled to go (not when a thread
     * got to send it), so a stalled service shows in the figure instead of slowing the load down.
     */
    record Latency(int targetRate, double achievedRate, long requests, double p50Ms, double p99Ms, double maxMs, long failures) {
    }

    private final TetherClient client;
    private final String payload;
    private final AtomicLong steps = new AtomicLong();

    AppendLoad(TetherClient client, int eventBytes) {
        this.client = client;
        this.payload = text(eventBytes);
    }

    /** {@code bytes} characters of ASCII text, varied enough that nothing compresses it to nothing. */
    static String text(int bytes) {
        return texts(1, bytes).get(0);
    }

    /**
     * {@code count} different texts of {@code bytes} random letters and spaces, the same on every call: a batch of
     * them compresses only as far as the letters' entropy allows (zstd, which every producer uses, would shrink a
     * batch of one text repeated to almost nothing).
     */
    static List<String> texts(int count, int bytes) {
        var texts = new ArrayList<String>(count);
        var random = new java.util.Random(42);
        for (int i = 0; i < count; i++) {
            var text = new StringBuilder(bytes);
            while (text.length() < bytes) {
                text.append((char) ('a' + random.nextInt(26)));
                if (random.nextInt(7) == 0) {
                    text.append(' ');
                }
            }
            texts.add(text.substring(0, bytes));
        }
        return texts;
    }

    /**
     * Appends batches of at most {@code batch} events to every writer, one thread per writer, until writer
     * {@code i}'s log holds {@code lengths.get(i)} events. Each batch repeats {@code cycle} from its start
     * (a turn of two events stays whole in an even batch). Returns each log's last seq.
     *
     * @param lastSeqs each writer's last seq before the call
     */
    List<Long> fill(List<SessionWriter> writers, List<Long> lastSeqs, List<Integer> lengths, int batch, List<NewEvent> cycle)
            throws InterruptedException {
        ExecutorService pool = Executors.newFixedThreadPool(Math.max(1, writers.size()));
        try {
            var futures = new ArrayList<Future<Long>>();
            for (int i = 0; i < writers.size(); i++) {
                SessionWriter writer = writers.get(i);
                long from = lastSeqs.get(i);
                long to = lengths.get(i);
                futures.add(pool.submit(() -> {
                    long last = from;
                    while (last < to) {
                        var events = new NewEvent[(int) Math.min(batch, to - last)];
                        for (int k = 0; k < events.length; k++) {
                            events[k] = cycle.get(k % cycle.size());
                        }
                        last = appendOrThrow(writer, events).lastSeq();
                    }
                    return last;
                }));
            }
            var reached = new ArrayList<Long>();
            for (Future<Long> f : futures) {
                reached.add(f.get(30, TimeUnit.MINUTES));
            }
            return reached;
        } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
            throw new IllegalStateException("could not fill the sessions", e);
        } finally {
            pool.shutdownNow();
            pool.awaitTermination(1, TimeUnit.MINUTES);
        }
    }

    /** Appends {@code events} (each gets its own event id) and returns the reply, or throws if it was not appended. */
    Appended appendOrThrow(SessionWriter writer, NewEvent... events) {
        AppendResult result = writer.append("step-" + steps.incrementAndGet(), events);
        if (result instanceof Appended a) {
            return a;
        }
        throw new IllegalStateException("append refused: " + result);
    }

    /** Creates and claims {@code count} sessions, named after {@code prefix}. */
    List<SessionWriter> sessions(String prefix, int count, int threads) throws InterruptedException {
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            var futures = new ArrayList<Future<SessionWriter>>();
            for (int i = 0; i < count; i++) {
                String id = prefix + "-" + i;
                futures.add(pool.submit(() -> {
                    var created = client.createSession(NewSession.of("bench", "bench-model", ToolMode.READ_ONLY).withSessionId(id))
                            .createdOrThrow();
                    return client.writer(client.claim(created.sessionId(), ClaimRequest.of("bench-worker", "v1")).claimedOrThrow());
                }));
            }
            var writers = new ArrayList<SessionWriter>();
            for (Future<SessionWriter> f : futures) {
                writers.add(f.get(2, TimeUnit.MINUTES));
            }
            return writers;
        } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
            throw new IllegalStateException("could not create the sessions", e);
        } finally {
            pool.shutdownNow();
            pool.awaitTermination(1, TimeUnit.MINUTES);
        }
    }

    /**
     * {@code writers.size()} concurrent sessions, one thread each, appending batches of {@code batch} events
     * back to back for {@code warmupMs + measureMs}; only the last {@code measureMs} count.
     */
    Throughput throughput(List<SessionWriter> writers, int batch, long warmupMs, long measureMs) throws InterruptedException {
        var events = new AtomicLong();
        var requests = new AtomicLong();
        var failures = new AtomicLong();
        var counting = new AtomicBoolean(false);
        var stop = new AtomicBoolean(false);
        ExecutorService pool = Executors.newFixedThreadPool(writers.size());
        try {
            for (SessionWriter writer : writers) {
                pool.submit(() -> {
                    while (!stop.get()) {
                        AppendResult result = append(writer, batch);
                        if (result instanceof Appended a) {
                            if (counting.get()) {
                                events.addAndGet(a.events().size());
                                requests.incrementAndGet();
                            }
                        } else if (counting.get()) {
                            failures.incrementAndGet();
                        }
                    }
                    return null;
                });
            }
            Thread.sleep(warmupMs);
            counting.set(true);
            long start = System.nanoTime();
            Thread.sleep(measureMs);
            counting.set(false);
            double seconds = (System.nanoTime() - start) / 1e9;
            stop.set(true);
            return new Throughput(events.get(), requests.get(), seconds, events.get() / seconds, failures.get());
        } finally {
            stop.set(true);
            pool.shutdown();
            if (!pool.awaitTermination(2, TimeUnit.MINUTES)) {
                pool.shutdownNow();
            }
        }
    }

    /**
     * Single-event appends at {@code rate} per second spread over {@code writers} round robin, for
     * {@code warmupMs + measureMs}; latencies of appends scheduled in the last {@code measureMs} count.
     */
    Latency latency(List<SessionWriter> writers, int rate, int threads, long warmupMs, long measureMs) throws InterruptedException {
        long intervalNanos = 1_000_000_000L / rate;
        long total = (warmupMs + measureMs) * rate / 1000;
        long warmupCount = warmupMs * rate / 1000;
        long[] latencies = new long[(int) (total - warmupCount)];
        var recorded = new AtomicInteger();
        var failures = new AtomicLong();
        ExecutorService senders = Executors.newFixedThreadPool(threads);
        ScheduledExecutorService ticker = Executors.newSingleThreadScheduledExecutor();
        long origin = System.nanoTime() + 50_000_000L;
        var sent = new AtomicLong();
        try {
            ticker.scheduleAtFixedRate(() -> {
                // catch up on every tick the clock says is due, so a late tick does not lower the rate
                long due = Math.min(total, (System.nanoTime() - origin) / intervalNanos + 1);
                for (long n = sent.get(); n < due; n = sent.incrementAndGet()) {
                    long index = n;
                    long scheduled = origin + index * intervalNanos;
                    SessionWriter writer = writers.get((int) (index % writers.size()));
                    senders.execute(() -> {
                        AppendResult result = append(writer, 1);
                        long took = System.nanoTime() - scheduled;
                        if (index >= warmupCount) {
                            if (result instanceof Appended) {
                                latencies[recorded.getAndIncrement()] = took;
                            } else {
                                failures.incrementAndGet();
                            }
                        }
                    });
                }
            }, 0, Math.max(1, intervalNanos / 2), TimeUnit.NANOSECONDS);
            long measureStart = origin + warmupCount * intervalNanos;
            Thread.sleep(Math.max(0, (origin - System.nanoTime()) / 1_000_000) + warmupMs + measureMs);
            ticker.shutdown();
            senders.shutdown();
            if (!senders.awaitTermination(2, TimeUnit.MINUTES)) {
                senders.shutdownNow();
            }
            double seconds = (System.nanoTime() - measureStart) / 1e9;
            long[] taken = Arrays.copyOf(latencies, recorded.get());
            Arrays.sort(taken);
            if (taken.length == 0) {
                throw new IllegalStateException("no append succeeded in the latency run (" + failures.get() + " failed)");
            }
            return new Latency(rate, taken.length / seconds, taken.length, percentileMs(taken, 0.50), percentileMs(taken, 0.99),
                    taken[taken.length - 1] / 1e6, failures.get());
        } finally {
            ticker.shutdownNow();
            senders.shutdownNow();
        }
    }

    private AppendResult append(SessionWriter writer, int batch) {
        var events = new NewEvent[batch];
        for (int i = 0; i < batch; i++) {
            events[i] = NewEvent.userMessage(payload);
        }
        return writer.append("step-" + steps.incrementAndGet(), events);
    }

    private static double percentileMs(long[] sorted, double q) {
        int rank = (int) Math.ceil(q * sorted.length) - 1;
        return sorted[Math.max(0, Math.min(rank, sorted.length - 1))] / 1e6;
    }
}
