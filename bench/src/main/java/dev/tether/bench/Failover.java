package dev.tether.bench;

import dev.tether.client.AppendBatch;
import dev.tether.client.Appended;
import dev.tether.client.Checkpoint;
import dev.tether.client.ContextFormat;
import dev.tether.client.ContextQuery;
import dev.tether.client.NewEvent;
import dev.tether.client.RetryPolicy;
import dev.tether.client.SessionWriter;
import dev.tether.client.TetherClient;
import dev.tether.client.TetherOptions;
import dev.tether.kit.kafka.SessionPartitioner;
import dev.tether.testing.ServiceProcess;
import dev.tether.testing.TetherStack;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;

/**
 * Figure 10: failover with two instances of the session-service and of the projector, each kept hot by the other's
 * standby replicas, set as {@code deploy/k8s} and compose's {@code ha} profile set them ({@link #HA}). The sessions are
 * filled to the first size (straight into {@code session-events}, {@link EventTopUp}), both instances' stores are
 * restored, and the instance holding active tasks (a session-service and a projector, as one machine) is SIGKILLed
 * while a light load appends; the clock runs from the SIGKILL until (a) every partition's sessions answer their
 * checkpoint at their last seq, their recovery report and their context within a model window through the other
 * instance, (b) an append to a session of every partition is accepted through it, and (c) every session's checkpoint
 * has been read back at its last seq by eight readers going through all of them from the SIGKILL on (at least the time
 * of one pass). The killed instance is started again on its state and restored, and the instance then holding the most
 * of the projector's active tasks is killed the same way, as many times as asked at each size; then the sessions are
 * filled to the next size. The figure is the time of each kill; the target is at most 10 s each and at most 1.2× between
 * the median kill at the largest and at the smallest size: a takeover that does not grow with history. One kill's time
 * moves by a second or more with where the kill falls among the members' heartbeats, so one kill per size cannot
 * resolve 1.2×; the median of several can.
 */
final class Failover {

    /**
     * The Kafka Streams settings of a service run twice or more (deploy/k8s/base/config.yaml, compose's {@code ha}
     * profile): a standby copy of every store on the other instance; a dead member noticed in 6 s (the broker's
     * smallest session timeout by default) with heartbeats every 1.5 s; its open transaction aborted 5 s after it began
     * (with the broker's abort check every second, deploy/local/stack), so the partitions it wrote are readable again.
     */
    static final Map<String, String> HA = ServiceProcess.env(
            "KAFKA_STREAMS_NUM_STANDBY_REPLICAS", "1",
            "KAFKA_STREAMS_SESSION_TIMEOUT_MS", "6000",
            "KAFKA_STREAMS_HEARTBEAT_INTERVAL_MS", "1500",
            "KAFKA_STREAMS_PRODUCER_TRANSACTION_TIMEOUT_MS", "5000");

    /** Sessions of each partition whose reads, and whose appends, are timed after the kill. */
    private static final int PROBES_PER_PARTITION = 2;
    private static final int READERS = 8;
    private static final ContextQuery WINDOW = ContextQuery.of(ContextFormat.OPENAI).withMaxTokens(8_000);

    /**
     * One kill.
     *
     * @param events               events in {@code session-events} when the instance was killed
     * @param sessions             sessions they are in
     * @param killed               which instance was killed ({@code a} or {@code b})
     * @param activeTasksKilled    active tasks the killed projector held (of the partitions of session-events)
     * @param readsMs              SIGKILL until a checkpoint (at its last seq), recovery report and context answered for
     *                             the probe sessions of every partition
     * @param appendsMs            SIGKILL until an append to a probe session of every partition was accepted
     * @param allCheckpointsMs     SIGKILL until every session's checkpoint had been read at its last seq (eight readers
     *                             going through all of them, from the SIGKILL on)
     * @param passBeforeKillMs     the same readers' pass over every checkpoint right before the SIGKILL, with both instances up
     * @param backgroundAppends    appends the background load made during the measurement, and how many were refused
     * @param loadAtKill           the 1-minute load average at the kill
     */
    record Round(long events, int sessions, String killed, int activeTasksKilled, double readsMs, double appendsMs, double allCheckpointsMs,
            double passBeforeKillMs, long backgroundAppends, long backgroundFailures, double loadAtKill) {

        double worstMs() {
            return Math.max(readsMs, appendsMs);
        }
    }

    /** @param rounds one per kill, in the order they were made: the smallest size's first */
    record Run(List<Round> rounds, Map<String, String> settings) {

        /** The kills at each size, smallest first: the later of reads and appends, in ms. */
        Map<Long, Samples> bySize() {
            return rounds.stream().collect(Collectors.groupingBy(Round::events, java.util.TreeMap::new,
                    Collectors.mapping(Round::worstMs, Collectors.collectingAndThen(Collectors.toList(), Samples::of))));
        }

        /** The largest size's median kill over the smallest's (each the later of reads and appends). */
        double growth() {
            var medians = bySize().values().stream().mapToDouble(Samples::median).toArray();
            return medians[medians.length - 1] / medians[0];
        }
    }

    private final TetherStack stack;
    private final Path root;
    private final Path workDir;
    private final int textBytes;
    private final List<ServiceProcess> started = new ArrayList<>();
    private final List<TetherClient> clients = new ArrayList<>();

    Failover(TetherStack stack, Path root, Path workDir, int textBytes) {
        this.stack = stack;
        this.root = root;
        this.workDir = workDir;
        this.textBytes = textBytes;
    }

    /**
     * @param sizes        events in {@code session-events} at each kill, ascending
     * @param sessions     sessions the events are written to ({@code sizes} must be multiples of it)
     * @param killsPerSize kills at each size, the instance killed started again and restored before the next
     */
    Run measure(List<Long> sizes, int sessions, int killsPerSize) throws Exception {
        String prefix = "bench-fo-" + UUID.randomUUID().toString().substring(0, 8) + ".";
        String eventsTopic = prefix + "session-events";
        Thread hook = new Thread(() -> started.forEach(ServiceProcess::kill), "bench-failover-stop");
        Runtime.getRuntime().addShutdownHook(hook);
        try (Admin admin = Admin.create(stack.clientConfig())) {
            var env = new LinkedHashMap<>(HA);
            env.put("TETHER_TOPICS_PREFIX", prefix);
            env.put("TETHER_SESSIONS_BLOBS_DIR", workDir.resolve("blobs").toString());
            var a = new Instance("a", service("session-service", "a", env), service("projector-service", "a", env));
            var b = new Instance("b", service("session-service", "b", env), service("projector-service", "b", env));
            a.start();
            b.start();
            var watch = new ProjectionCatchUp(admin);
            int partitions = admin.describeTopics(List.of(eventsTopic)).allTopicNames().get(30, TimeUnit.SECONDS).get(eventsTopic)
                    .partitions().size();

            // sessions the sequencer knows, for the appends (the filled ones are written past it), created through a
            Map<String, Long> writers = probeWriters(client(a), partitions);
            var rounds = new ArrayList<Round>();
            Map<String, Long> lastSeqs = Map.of();
            long written = 0;
            Instance lastVictim = b;
            for (long size : sizes) {
                long perSession = (size - written) / sessions;
                var top = EventTopUp.write(stack.clientConfig(), stack.registryUrl(), eventsTopic, "fo", sessions, written / sessions + 1,
                        perSession * sessions, textBytes);
                written += top.events();
                lastSeqs = top.sessions();
                Bench.log("failover: %,d events in %,d sessions (%,.0f events/s written)", written, sessions, top.eventsPerSec());
                for (int k = 0; k < killsPerSize; k++) {
                    watch.awaitCaughtUp(prefix + "tether-projector-service", eventsTopic, Duration.ofMinutes(20), 200);
                    watch.awaitCaughtUp(prefix + "tether-session-service", eventsTopic, Duration.ofMinutes(20), 200);
                    for (Instance i : List.of(a, b)) {
                        ServiceProbe.awaitStoresRestored(i.sessions, Duration.ofMinutes(20));
                        ServiceProbe.awaitStoresRestored(i.projector, Duration.ofMinutes(20));
                    }
                    Instance victim = mostActive(admin, prefix, a, b, lastVictim);
                    Instance survivor = victim == a ? b : a;
                    Round round = kill(admin, prefix, victim, survivor, written, lastSeqs, writers, partitions);
                    Bench.log("failover at %,d events (kill %d of %d), %s killed (%d active tasks): reads %.1f s, appends %.1f s, every checkpoint %.1f s after the SIGKILL",
                            written, k + 1, killsPerSize, victim.name, round.activeTasksKilled(), round.readsMs() / 1e3, round.appendsMs() / 1e3,
                            round.allCheckpointsMs() / 1e3);
                    rounds.add(round);
                    if (rounds.size() < sizes.size() * killsPerSize) {
                        // on its own state directory and instance id; restored before the next kill
                        victim.start();
                    }
                    lastVictim = victim;
                }
            }
            return new Run(rounds, new java.util.TreeMap<>(HA));
        } finally {
            clients.forEach(TetherClient::close);
            started.forEach(ServiceProcess::stop);
            Runtime.getRuntime().removeShutdownHook(hook);
        }
    }

    /** A session-service and a projector started together and killed together: one machine. */
    private record Instance(String name, ServiceProcess sessions, ServiceProcess projector) {
        void start() {
            sessions.start();
            projector.start();
        }

        void kill() {
            sessions.kill();
            projector.kill();
        }
    }

    /**
     * The instance whose projector holds the most active tasks; of two holding as many, the one not killed last (the
     * session-service beside it is killed with it, whatever it holds).
     */
    private static Instance mostActive(Admin admin, String prefix, Instance a, Instance b, Instance lastVictim) throws Exception {
        String group = prefix + "tether-projector-service";
        String topic = prefix + "session-events";
        int ofA = assigned(admin, group, instanceId("projector-service", a.name), topic);
        int ofB = assigned(admin, group, instanceId("projector-service", b.name), topic);
        return ofA == ofB ? (lastVictim == a ? b : a) : ofA > ofB ? a : b;
    }

    /**
     * SIGKILLs {@code victim} while a background writer appends to the probe sessions through {@code survivor}, and
     * times the survivor's answers.
     */
    private Round kill(Admin admin, String prefix, Instance victim, Instance survivor, long events, Map<String, Long> lastSeqs,
            Map<String, Long> writers, int partitions) throws Exception {
        TetherClient through = client(survivor);
        List<String> readProbes = perPartition(lastSeqs.keySet(), partitions);
        int activeTasks = assigned(admin, prefix + "tether-projector-service", instanceId("projector-service", victim.name), prefix + "session-events");
        var stop = new AtomicBoolean();
        var appended = new AtomicLong();
        var refused = new AtomicLong();
        ExecutorService pool = Executors.newFixedThreadPool(readProbesCount(partitions) + writers.size() + 2);
        try {
            // a light load: an append every 20 ms, so that the victim dies with transactions open, as it would at work
            Future<?> background = pool.submit(() -> {
                var ids = List.copyOf(writers.keySet());
                for (int n = 0; !stop.get(); n++) {
                    try {
                        append(through, ids.get(n % ids.size()), writers);
                        appended.incrementAndGet();
                    } catch (RuntimeException e) {
                        refused.incrementAndGet();
                    }
                    sleep(20);
                }
                return null;
            });
            sleep(1_000);
            long passStart = System.nanoTime();
            long passNs = everyCheckpoint(through, lastSeqs, passStart);
            double load = Machine.load1();
            long killedAt = System.nanoTime();
            victim.kill();

            var appends = new ArrayList<Future<Long>>();
            for (String id : writers.keySet()) {
                appends.add(pool.submit(() -> untilAnswered(killedAt, () -> append(through, id, writers))));
            }
            var reads = new ArrayList<Future<Long>>();
            for (String id : readProbes) {
                reads.add(pool.submit(() -> untilAnswered(killedAt, () -> readAll(through, id, lastSeqs.get(id)))));
            }
            Future<Long> all = pool.submit(() -> everyCheckpoint(through, lastSeqs, killedAt));
            long readsNs = latest(reads);
            long appendsNs = latest(appends);
            long allNs = all.get(11, TimeUnit.MINUTES);
            stop.set(true);
            background.get(1, TimeUnit.MINUTES);
            return new Round(events, lastSeqs.size(), victim.name, activeTasks, readsNs / 1e6, appendsNs / 1e6, allNs / 1e6, passNs / 1e6,
                    appended.get(), refused.get(), load);
        } finally {
            stop.set(true);
            pool.shutdownNow();
            pool.awaitTermination(1, TimeUnit.MINUTES);
        }
    }

    private static int readProbesCount(int partitions) {
        return partitions * PROBES_PER_PARTITION;
    }

    /** {@code PROBES_PER_PARTITION} of {@code ids} on each partition. */
    private static List<String> perPartition(Iterable<String> ids, int partitions) {
        List<String> probes = probes(ids, partitions);
        if (probes.stream().map(id -> SessionPartitioner.partition(id, partitions)).distinct().count() < partitions) {
            throw new IllegalStateException("sessions on fewer than " + partitions + " partitions: use more");
        }
        return probes;
    }

    /** Up to {@code PROBES_PER_PARTITION} of {@code ids} on each partition they are on. */
    static List<String> probes(Iterable<String> ids, int partitions) {
        var byPartition = new LinkedHashMap<Integer, List<String>>();
        for (String id : ids) {
            var of = byPartition.computeIfAbsent(SessionPartitioner.partition(id, partitions), p -> new ArrayList<>());
            if (of.size() < PROBES_PER_PARTITION) {
                of.add(id);
            }
        }
        return byPartition.values().stream().flatMap(List::stream).toList();
    }

    /** Creates and claims sessions through {@code client} until every partition has its probes; returns their epochs. */
    private Map<String, Long> probeWriters(TetherClient client, int partitions) throws Exception {
        var load = new AppendLoad(client, textBytes);
        List<SessionWriter> created = load.sessions("fo-probe", partitions * PROBES_PER_PARTITION * 4, 8);
        var epochs = new LinkedHashMap<String, Long>();
        created.forEach(w -> epochs.put(w.sessionId(), w.epoch()));
        var chosen = new LinkedHashMap<String, Long>();
        perPartition(epochs.keySet(), partitions).forEach(id -> chosen.put(id, epochs.get(id)));
        return chosen;
    }

    private final AtomicLong steps = new AtomicLong();

    /** Appends one user message to {@code sessionId} under its claim; throws unless it was appended. */
    private long append(TetherClient client, String sessionId, Map<String, Long> epochs) {
        var batch = AppendBatch.forStep("fo-" + steps.incrementAndGet(), List.of(NewEvent.userMessage("are you there?")))
                .withEpoch(epochs.get(sessionId));
        if (client.append(sessionId, batch) instanceof Appended a) {
            return a.lastSeq();
        }
        throw new IllegalStateException("not appended");
    }

    /** The checkpoint at {@code lastSeq}, the recovery report and the context within a window; throws unless all three answer. */
    private static Object readAll(TetherClient client, String sessionId, long lastSeq) {
        Checkpoint checkpoint = client.checkpoint(sessionId).orElseThrow();
        if (checkpoint.lastSeq() < lastSeq) {
            throw new IllegalStateException("checkpoint at " + checkpoint.lastSeq());
        }
        client.recovery(sessionId).orElseThrow();
        client.context(sessionId, WINDOW).orElseThrow();
        return checkpoint;
    }

    /** Calls {@code call} until it returns (every 50 ms; a service taking over answers 503); returns when, after {@code from}. */
    private static long untilAnswered(long from, java.util.concurrent.Callable<?> call) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(10);
        while (true) {
            try {
                call.call();
                return System.nanoTime() - from;
            } catch (RuntimeException e) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("not answered within 10 minutes of the SIGKILL", e);
                }
                sleep(50);
            }
        }
    }

    private static long latest(List<Future<Long>> futures) throws Exception {
        long latest = 0;
        for (Future<Long> f : futures) {
            latest = Math.max(latest, f.get(11, TimeUnit.MINUTES));
        }
        return latest;
    }

    /**
     * Reads every session's checkpoint, from the SIGKILL on, until it is at its last seq, {@link #READERS} at once;
     * returns when the last one was. Bounded below by one pass over all of them.
     */
    private static long everyCheckpoint(TetherClient client, Map<String, Long> lastSeqs, long from) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(READERS);
        try {
            return everyCheckpoint(pool, client, lastSeqs, from);
        } finally {
            pool.shutdownNow();
        }
    }

    private static long everyCheckpoint(ExecutorService pool, TetherClient client, Map<String, Long> lastSeqs, long from) throws Exception {
        var pending = new java.util.concurrent.ConcurrentLinkedQueue<>(lastSeqs.keySet());
        var done = ConcurrentHashMap.<String>newKeySet();
        var readers = new ArrayList<Future<Long>>();
        for (int r = 0; r < READERS; r++) {
            readers.add(pool.submit(() -> {
                long last = 0;
                for (String id = pending.poll(); id != null; id = pending.poll()) {
                    String session = id;
                    last = Math.max(last, untilAnswered(from, () -> client.checkpoint(session).filter(c -> c.lastSeq() >= lastSeqs.get(session))
                            .orElseThrow()));
                    done.add(id);
                }
                return last;
            }));
        }
        long latest = latest(readers);
        if (done.size() != lastSeqs.size()) {
            throw new IllegalStateException(done.size() + " of " + lastSeqs.size() + " checkpoints read back");
        }
        return latest;
    }

    /**
     * The partitions of {@code topic} that the group's member {@code instanceId} (its static membership id) is assigned:
     * the active tasks of its sub-topology reading them.
     */
    private static int assigned(Admin admin, String group, String instanceId, String topic) throws Exception {
        return admin.describeConsumerGroups(List.of(group)).all().get(30, TimeUnit.SECONDS).get(group).members().stream()
                // a stream thread's member id is the instance's with the thread's number: <id>-1, <id>-2, ...
                .filter(m -> m.groupInstanceId().map(id -> id.equals(instanceId) || id.startsWith(instanceId + "-")).orElse(false))
                .mapToInt(m -> (int) m.assignment().topicPartitions().stream().filter(tp -> tp.topic().equals(topic)).count()).sum();
    }

    private ServiceProcess service(String module, String instance, Map<String, String> env) {
        var own = new LinkedHashMap<>(env);
        own.put("TETHER_INSTANCE_ID", instanceId(module, instance));
        var service = new ServiceProcess(root.resolve(module), workDir.resolve("failover-" + module + "-" + instance), own,
                Bench.serviceProperties(module));
        started.add(service);
        return service;
    }

    private static String instanceId(String module, String instance) {
        return "bench-" + module + "-" + instance;
    }

    private TetherClient client(Instance through) {
        TetherClient client = TetherClient.create(TetherOptions.of(URI.create(through.sessions.baseUrl()), URI.create(through.projector.baseUrl()),
                URI.create("http://127.0.0.1:9")).withToken("dev-acme-agent").withRetry(RetryPolicy.none()).withTimeout(Duration.ofSeconds(10)));
        clients.add(client);
        return client;
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
