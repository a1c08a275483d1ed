package dev.tether.bench;

import dev.tether.client.AppendBatch;
import dev.tether.client.AppendResult;
import dev.tether.client.Appended;
import dev.tether.client.Checkpoint;
import dev.tether.client.ClaimRequest;
import dev.tether.client.NewEvent;
import dev.tether.client.NewSession;
import dev.tether.client.RetryPolicy;
import dev.tether.client.TetherClient;
import dev.tether.client.TetherOptions;
import dev.tether.client.ToolMode;
import dev.tether.kit.kafka.SessionPartitioner;
import dev.tether.testing.ServiceProcess;
import dev.tether.testing.TetherStack;
import dev.tether.testing.Trees;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.admin.Admin;

/**
 * The session-service and projector soak (issue 15 §3): {@code events} events appended through the packaged
 * session-service's REST API (the SDK, batches of {@code events / sessions / 10} events, one claimed writer per
 * session) across {@code sessions} sessions and folded by the packaged projector; the heap of each after a forced full
 * GC every {@code step} events, and a SIGKILL takeover of each service by a fresh instance (its own, empty state
 * directory) at the first step and at the end.
 *
 * <p>A takeover: the successor is launched (start-up: launch until {@code /q/health/ready}), then the soak waits
 * until the successor's stores are restored ({@code tether_streams_store_lag_records} near 0: its standbys, with
 * {@code num.standby.replicas=1}, or nothing it was given otherwise), then SIGKILLs the instance and times until the
 * successor serves every partition: for the session-service, an append to a session of each partition answered
 * through the successor; for the projector, a checkpoint of such a session at the seq just appended, read from the
 * successor. It includes the group's 15 s session timeout (the killed instance's static membership is only dropped
 * then), the same at any size. Each service keeps the default {@code -Xmx384m}. Prints markdown tables for
 * bench/README.md. Run with {@code bench/stream-soak}; every process it starts is stopped by PID.
 */
public final class StreamSoak {

    private static final int THREADS = Integer.getInteger("soak.threads", 32);
    private static final String TEXT = AppendLoad.text(200);

    private final int events;
    private final int sessions;
    private final int step;
    private final Path root;
    private final Path workDir;
    private final List<String> serviceProperties;
    private final Map<String, Long> epochs = new LinkedHashMap<>();
    private final AtomicLong steps = new AtomicLong();
    private final List<TetherClient> clients = new ArrayList<>();
    private Map<String, String> env;

    private StreamSoak(int events, int sessions, int step, Path root, Path workDir, List<String> serviceProperties) {
        this.events = events;
        this.sessions = sessions;
        this.step = step;
        this.root = root;
        this.workDir = workDir;
        this.serviceProperties = serviceProperties;
    }

    public static void main(String[] args) throws Exception {
        SoakSize size = SoakSize.parse(args, 1_000_000);
        if (size.step() % size.sessions() != 0 || size.count() % size.step() != 0) {
            throw new IllegalArgumentException("a step must be a multiple of the sessions and the events a multiple of the step");
        }
        Path root = Path.of(System.getProperty("tether-test.root", ".")).toAbsolutePath().normalize();
        Path workDir = Files.createTempDirectory("stream-soak");
        var properties = new ArrayList<String>();
        String standbys = System.getProperty("soak.standbys", "");
        if (!standbys.isBlank()) {
            properties.add("-Dkafka-streams.num.standby.replicas=" + standbys);
        }
        try {
            new StreamSoak(size.count(), size.sessions(), size.step(), root, workDir, properties).run();
        } finally {
            Trees.delete(workDir);
        }
        System.exit(0); // the stack's shutdown hook stops the broker and registry
    }

    private void run() throws Exception {
        String loadBefore = ServiceProbe.load();
        TetherStack stack = TetherStack.shared();
        String prefix = "ssoak-" + UUID.randomUUID().toString().substring(0, 8) + ".";
        env = ServiceProcess.env("TETHER_TOPICS_PREFIX", prefix, "TETHER_SESSIONS_BLOBS_DIR", workDir.resolve("blobs").toString());
        var instances = new java.util.concurrent.CopyOnWriteArrayList<ServiceProcess>();
        // Ctrl-C: the services go too (the stack has its own hook)
        Runtime.getRuntime().addShutdownHook(new Thread(() -> instances.forEach(ServiceProcess::kill)));
        try (Admin admin = Admin.create(stack.clientConfig())) {
            var watch = new ProjectionCatchUp(admin);
            String sessionGroup = prefix + "tether-session-service";
            String commands = prefix + "session-commands";
            String projectorGroup = prefix + "tether-projector-service";
            String eventsTopic = prefix + "session-events";
            log("stream soak: %,d events over %,d sessions, heap sampled every %,d, %d writers; service options %s; load average %s",
                    events, sessions, step, THREADS, serviceProperties, loadBefore);
            ServiceProcess sessionService = service(instances, "session-service", 1);
            ServiceProcess projector = service(instances, "projector-service", 1);
            sessionService.start();
            projector.start();
            TetherClient client = client(sessionService, projector);

            long created = System.nanoTime();
            createSessions(client);
            log("%,d sessions created and claimed in %.0f s", sessions, (System.nanoTime() - created) / 1e9);
            int partitions = admin.describeTopics(List.of(eventsTopic)).allTopicNames().get().get(eventsTopic).partitions().size();
            List<String> probes = probes(partitions);

            var table = new StringBuilder("| events | session-service live heap (old gen after full GC, MiB) | projector live heap (MiB) | "
                    + "events/s of the step (appended and folded) | load average |\n|---|---|---|---|---|\n");
            var takeovers = new StringBuilder();
            Map<String, Double> first = new LinkedHashMap<>();
            Map<String, Double> last = new LinkedHashMap<>();
            int generation = 1;
            for (int done = 0; done < events; ) {
                int next = done + step;
                long started = System.nanoTime();
                appendStep(client, step / sessions);
                watch.awaitCaughtUp(sessionGroup, commands, Duration.ofMinutes(30), 200);
                watch.awaitCaughtUp(projectorGroup, eventsTopic, Duration.ofMinutes(30), 200);
                double rate = step / ((System.nanoTime() - started) / 1e9);
                done = next;
                double sessionHeap = ServiceProbe.liveHeapAfterFullGc(sessionService);
                double projectorHeap = ServiceProbe.liveHeapAfterFullGc(projector);
                log("%,d events: session-service %.1f MiB, projector %.1f MiB after full GC; %.0f events/s", done, sessionHeap,
                        projectorHeap, rate);
                table.append("| %,d | %.1f | %.1f | %.0f | %s |%n".formatted(done, sessionHeap, projectorHeap, rate, ServiceProbe.load()));
                if (done == step || done == events) {
                    generation++;
                    var into = done == step ? first : last;
                    ServiceProcess nextSessions = service(instances, "session-service", generation);
                    TetherClient throughNext = client(nextSessions, projector);
                    Takeover s = takeover(sessionService, nextSessions, () -> appendProbes(throughNext, probes));
                    sessionService = nextSessions;
                    client = throughNext;
                    takeovers.append(s.row("session-service", done));
                    into.put("session-service", s.seconds);

                    ServiceProcess nextProjector = service(instances, "projector-service", generation);
                    TetherClient writer = client;
                    TetherClient reader = client(sessionService, nextProjector);
                    Takeover p = takeover(projector, nextProjector, () -> awaitCheckpoints(reader, appendProbes(writer, probes)));
                    projector = nextProjector;
                    client = reader;
                    takeovers.append(p.row("projector-service", done));
                    into.put("projector-service", p.seconds);
                }
            }
            log("%n%s%n| service | takeover after SIGKILL at (events) | successor start-up: launch → ready (s) | successor restored: launch → "
                    + "stores restored (s) | takeover: SIGKILL → every partition served (s) | load average |%n|---|---|---|---|---|---|%n%s",
                    table, takeovers);
            for (String service : first.keySet()) {
                log("%s: takeover at %,d events / at %,d: %.2f×", service, events, step, last.get(service) / first.get(service));
            }
            log("load average before %s, after %s", loadBefore, ServiceProbe.load());
        } finally {
            clients.forEach(TetherClient::close);
            instances.forEach(ServiceProcess::close);
        }
    }

    /** What one takeover took, each from the successor's launch or the SIGKILL. */
    private record Takeover(double startupSeconds, double restoredSeconds, double seconds) {
        String row(String service, int done) {
            return "| %s | %,d | %.1f | %.1f | %.1f | %s |%n".formatted(service, done, startupSeconds, restoredSeconds, seconds, ServiceProbe.load());
        }
    }

    /**
     * Launches {@code successor} (a fresh state directory), waits until its stores have no lag, SIGKILLs {@code current}
     * and runs {@code served} (which returns once the successor serves every partition).
     */
    private Takeover takeover(ServiceProcess current, ServiceProcess successor, Callable served) throws Exception {
        long launched = System.nanoTime();
        successor.start();
        double startup = (System.nanoTime() - launched) / 1e9;
        awaitRestored(successor);
        double restored = (System.nanoTime() - launched) / 1e9;
        long killed = System.nanoTime();
        current.kill();
        served.call();
        double seconds = (System.nanoTime() - killed) / 1e9;
        log("takeover of %s: start-up %.1f s, restored %.1f s after launch, served %.1f s after the SIGKILL", successor.log().getParent()
                .getFileName(), startup, restored, seconds);
        return new Takeover(startup, restored, seconds);
    }

    @FunctionalInterface
    private interface Callable {
        void call() throws Exception;
    }

    /** Waits until the successor, given its tasks, has restored them ({@link ServiceProbe#awaitStoresRestored}). */
    private static void awaitRestored(ServiceProcess service) throws Exception {
        Thread.sleep(3_000); // the group has rebalanced over both and given the successor its tasks
        ServiceProbe.awaitStoresRestored(service, Duration.ofMinutes(30));
    }

    private ServiceProcess service(List<ServiceProcess> instances, String module, int generation) {
        var own = new LinkedHashMap<>(env);
        own.put("TETHER_INSTANCE_ID", "soak-" + module + "-" + generation);
        var service = new ServiceProcess(root.resolve(module), workDir.resolve(module + "-" + generation), own, serviceProperties);
        instances.add(service);
        return service;
    }

    private TetherClient client(ServiceProcess sessionService, ServiceProcess projector) {
        TetherClient client = TetherClient.create(TetherOptions.of(URI.create(sessionService.baseUrl()), URI.create(projector.baseUrl()),
                URI.create("http://127.0.0.1:9")).withToken("dev-acme-agent").withRetry(RetryPolicy.none()).withTimeout(Duration.ofSeconds(10)));
        clients.add(client);
        return client;
    }

    /** Creates and claims the sessions; each one's epoch is kept for its appends. */
    private void createSessions(TetherClient client) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(THREADS);
        try {
            var futures = new ArrayList<Future<Long>>();
            for (int i = 0; i < sessions; i++) {
                String id = session(i);
                futures.add(pool.submit(() -> retrying(() -> {
                    client.createSession(NewSession.of("soak", "soak-model", ToolMode.READ_ONLY).withSessionId(id)).createdOrThrow();
                    return client.claim(id, ClaimRequest.of("soak-worker", "v1")).claimedOrThrow().epoch();
                })));
            }
            for (int i = 0; i < sessions; i++) {
                epochs.put(session(i), futures.get(i).get(10, TimeUnit.MINUTES));
            }
        } finally {
            pool.shutdownNow();
        }
    }

    /** Appends {@code perSession} events to every session, in one batch each, {@link #THREADS} sessions at once. */
    private void appendStep(TetherClient client, int perSession) throws Exception {
        var queue = new ConcurrentLinkedQueue<>(epochs.keySet());
        ExecutorService pool = Executors.newFixedThreadPool(THREADS);
        try {
            var futures = new ArrayList<Future<?>>();
            for (int t = 0; t < THREADS; t++) {
                futures.add(pool.submit(() -> {
                    for (String id = queue.poll(); id != null; id = queue.poll()) {
                        append(client, id, perSession);
                    }
                    return null;
                }));
            }
            for (Future<?> f : futures) {
                f.get(60, TimeUnit.MINUTES);
            }
        } finally {
            pool.shutdownNow();
        }
    }

    /** Appends {@code count} user messages to {@code sessionId} as one step; retried (same step key: appended once). */
    private long append(TetherClient client, String sessionId, int count) throws Exception {
        var batch = new ArrayList<NewEvent>();
        for (int i = 0; i < count; i++) {
            batch.add(NewEvent.userMessage(TEXT));
        }
        AppendBatch appendBatch = AppendBatch.forStep("soak-" + steps.incrementAndGet(), batch).withEpoch(epochs.get(sessionId));
        return retrying(() -> {
            AppendResult result = client.append(sessionId, appendBatch);
            if (result instanceof Appended a) {
                return a.lastSeq();
            }
            throw new IllegalStateException("append to " + sessionId + " refused: " + result);
        });
    }

    /** A session of each partition, the first of the soak's there. */
    private List<String> probes(int partitions) {
        var byPartition = new String[partitions];
        for (String id : epochs.keySet()) {
            int p = SessionPartitioner.partition(id, partitions);
            if (byPartition[p] == null) {
                byPartition[p] = id;
            }
        }
        for (int p = 0; p < partitions; p++) {
            if (byPartition[p] == null) {
                throw new IllegalStateException("no session of the soak on partition " + p + ": use more sessions");
            }
        }
        return List.of(byPartition);
    }

    /** Appends one event to each probe session through {@code client}, all at once, retrying until answered; returns their seqs. */
    private Map<String, Long> appendProbes(TetherClient client, List<String> probes) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(probes.size());
        try {
            var futures = new LinkedHashMap<String, Future<Long>>();
            for (String id : probes) {
                futures.put(id, pool.submit(() -> append(client, id, 1)));
            }
            var seqs = new LinkedHashMap<String, Long>();
            for (var f : futures.entrySet()) {
                seqs.put(f.getKey(), f.getValue().get(30, TimeUnit.MINUTES));
            }
            return seqs;
        } finally {
            pool.shutdownNow();
        }
    }

    /** Returns once {@code client}'s projector answers each session's checkpoint at (at least) its seq. */
    private static void awaitCheckpoints(TetherClient client, Map<String, Long> seqs) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(30);
        var pending = new LinkedHashMap<>(seqs);
        while (!pending.isEmpty()) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException(pending.size() + " checkpoints not served within 30 minutes");
            }
            pending.entrySet().removeIf(e -> checkpoint(client, e.getKey()).map(c -> c.lastSeq() >= e.getValue()).orElse(false));
            if (!pending.isEmpty()) {
                Thread.sleep(50);
            }
        }
    }

    private static Optional<Checkpoint> checkpoint(TetherClient client, String sessionId) {
        try {
            return client.checkpoint(sessionId);
        } catch (RuntimeException e) {
            return Optional.empty(); // restoring or rebalancing: 503, or the owner is gone
        }
    }

    /** Calls {@code call} until it returns, for at most 30 minutes: a service that restores or rebalances answers 503. */
    private static <T> T retrying(java.util.concurrent.Callable<T> call) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(30);
        while (true) {
            try {
                return call.call();
            } catch (RuntimeException e) {
                if (System.nanoTime() > deadline) {
                    throw e;
                }
                Thread.sleep(50);
            }
        }
    }

    private String session(int i) {
        return "soak-s" + i;
    }

    private static void log(String format, Object... args) {
        System.out.println(format.formatted(args));
    }

}
