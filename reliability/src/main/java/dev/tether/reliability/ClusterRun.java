package dev.tether.reliability;

import dev.tether.client.ClaimRequest;
import dev.tether.client.Claimed;
import dev.tether.client.CreateResult;
import dev.tether.client.Created;
import dev.tether.client.NewSession;
import dev.tether.client.SessionEvent;
import dev.tether.client.TetherClient;
import dev.tether.client.ToolMode;
import dev.tether.kit.kafka.Topics;
import dev.tether.testing.ServiceProcess;
import dev.tether.testing.TetherStack;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.function.IntSupplier;
import java.util.stream.Collectors;
import org.apache.kafka.common.utils.Utils;

/**
 * The cluster run (issue 15 §5): the four packaged services, exactly-once, against three real KRaft brokers
 * ({@link TetherStack#cluster()}) with every topic at replication factor 3 and {@code min.insync.replicas=2} — Tether's
 * topics as its topic init creates them ({@code TETHER_TOPICS_REPLICATION_FACTOR=3}), the Streams changelogs and
 * repartition topics, the consumer offsets and the transaction state. Under steady appends ({@link AppendProbe}: one
 * probe session per {@code session-events} partition) and scripted sessions with gated tool calls ({@link WorkerPool},
 * {@link ScriptedSession}, approved by the {@link ScriptedHuman}), it SIGKILLs, one {@link Fault} per phase, then
 * restarts:
 *
 * <ol>
 *   <li>a broker leading {@code session-events} partitions (preferably neither the active controller nor the
 *       sequencer's transaction coordinator, so the fault is a leader failover and nothing else);</li>
 *   <li>the broker coordinating the sequencer's transactions (found with {@code describeTransactions}, cross-checked
 *       with the leader of its {@code __transaction_state} partition);</li>
 *   <li>the active controller ({@code describeMetadataQuorum}).</li>
 * </ol>
 *
 * Each broker stays down {@link Config#down()}, longer than the brokers' session timeout (9 s), so the controller
 * fences it: its partitions get new leaders and their in-sync replicas shrink to two, the minimum a write needs. Each
 * phase waits for the cluster to be whole again (every replica in sync) before the next. Then the same script plays,
 * fault-free, on twin sessions, and the checks run: per fault, the appends acknowledged, lost and duplicated (against
 * the log and the raw {@code session-events} records), the scripted sessions' checks ({@link SessionChecks}: completed,
 * effects exactly once, final checkpoints identical to their twins'), the window during which appends failed, measured
 * at the client (from the first failed or slow append after the kill to the first acknowledged one after it), and how
 * the service answered meanwhile (503 with {@code Retry-After}, never another 5xx, never no answer within the request
 * timeout). Figures go to {@code reliability/target/results/cluster.json}.
 *
 * <p>Usage: {@code ClusterRun [--sessions N] [--rounds N] [--down-seconds N]}. Exit 0 only if every check passes. Every
 * process it starts is stopped by PID, also on Ctrl-C.
 */
public final class ClusterRun {

    /**
     * What to run.
     *
     * @param sessionsPerFault  scripted sessions played during each fault (each has a fault-free twin)
     * @param rounds            rounds of their script
     * @param sessionsPerWorker sessions per worker process
     * @param pace              how far apart their rounds start
     * @param killAfter         how long after the sessions start the broker is killed (during their first round)
     * @param down              how long the broker stays down
     */
    public record Config(int sessionsPerFault, int rounds, int sessionsPerWorker, Duration pace, Duration killAfter, Duration down) {

        /** The published run: 6 sessions of 3 rounds per fault, the broker killed 8 s in and down for 20 s. */
        public static Config standard() {
            return new Config(6, 3, 3, Duration.ofSeconds(6), Duration.ofSeconds(8), Duration.ofSeconds(20));
        }
    }

    /** The faults, in the order they are injected. */
    enum Fault {
        LEADER("leader", "SIGKILL of a broker leading session-events partitions"),
        COORDINATOR("coordinator", "SIGKILL of the broker coordinating the sequencer's transactions"),
        CONTROLLER("controller", "SIGKILL of the active controller");

        final String label;
        final String description;

        Fault(String label, String description) {
            this.label = label;
            this.description = description;
        }
    }

    /** The outcome: figures and failures, as written to {@code cluster.json}. */
    public record Result(Map<String, Object> figures, List<String> failures) {
        public boolean passed() {
            return failures.isEmpty();
        }
    }

    /** An append slower than this counts as failed for the window (a normal one takes tens of milliseconds). */
    static final long SLOW_APPEND_MILLIS = 2_000;
    static final String REPLICATION_FACTOR = "3";
    static final String MIN_INSYNC_REPLICAS = "2";
    private static final String SEQUENCER_APPLICATION = "tether-session-service";

    /** A phase: its fault, its sessions, and what happened. */
    private static final class Phase {
        final Fault fault;
        final List<String> sessions;
        final List<String> twins;
        final Map<String, Object> figures = new LinkedHashMap<>();
        final List<String> failures = new ArrayList<>();
        long startNanos;
        long killNanos;
        long endNanos;

        Phase(Fault fault, List<String> sessions, List<String> twins) {
            this.fault = fault;
            this.sessions = sessions;
            this.twins = twins;
        }
    }

    private final Config config;
    private final Path root;
    private final Map<String, Object> figures = new LinkedHashMap<>();
    private final List<String> failures = new ArrayList<>();
    private final long started = System.nanoTime();

    public ClusterRun(Config config, Path root) {
        this.config = config;
        this.root = root;
    }

    public static void main(String[] args) {
        Config c = Config.standard();
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--sessions" -> c = new Config(Integer.parseInt(args[++i]), c.rounds(), c.sessionsPerWorker(), c.pace(), c.killAfter(), c.down());
                case "--rounds" -> c = new Config(c.sessionsPerFault(), Integer.parseInt(args[++i]), c.sessionsPerWorker(), c.pace(), c.killAfter(), c.down());
                case "--down-seconds" -> c = new Config(c.sessionsPerFault(), c.rounds(), c.sessionsPerWorker(), c.pace(), c.killAfter(),
                        Duration.ofSeconds(Long.parseLong(args[++i])));
                default -> {
                    System.err.println("usage: reliability/run --cluster [--sessions N] [--rounds N] [--down-seconds N]");
                    System.exit(2);
                }
            }
        }
        Path root = Path.of(System.getProperty("tether-test.root", ".")).toAbsolutePath().normalize();
        int status;
        try {
            status = new ClusterRun(c, root).run().passed() ? 0 : 1;
        } catch (Exception e) {
            e.printStackTrace();
            status = 1;
        }
        // the stack's shutdown hook stops the brokers and the registry by their PIDs
        System.exit(status);
    }

    /** Runs it all, prints the checks, writes {@code reliability/target/results/cluster.json}. */
    public Result run() throws Exception {
        System.out.printf("cluster run: 3 brokers, %d sessions × %d rounds per fault, faults %s, each broker down %d s (load average %s)%n",
                config.sessionsPerFault(), config.rounds(), List.of(Fault.values()), config.down().toSeconds(), loadAverage());
        figures.put("load average at the start", loadAverage());
        TetherStack stack = TetherStack.cluster();
        figures.put("brokers", stack.brokerIds().size());
        Path workDir = Files.createDirectories(root.resolve("reliability/target/cluster-" + System.currentTimeMillis()));
        Path workspaces = Files.createDirectories(workDir.resolve("workspaces"));
        String prefix = "cluster-" + UUID.randomUUID().toString().substring(0, 8) + ".";
        var env = ServiceProcess.env("TETHER_TOPICS_PREFIX", prefix, "TETHER_TOPICS_REPLICATION_FACTOR", REPLICATION_FACTOR,
                "TETHER_WORKSPACE_ROOT", workspaces.toString(), "TETHER_SESSIONS_BLOBS_DIR", workDir.resolve("blobs").toString());
        var services = new LinkedHashMap<String, ServiceProcess>();
        for (String name : FaultInjector.SERVICES) {
            services.put(name, new ServiceProcess(root.resolve(name), workDir.resolve(name), env, List.of("-Dquarkus.http.host=127.0.0.1"), stack));
        }
        var pools = new java.util.concurrent.CopyOnWriteArrayList<WorkerPool>();
        Thread hook = new Thread(() -> {
            pools.forEach(WorkerPool::close);
            services.values().forEach(ServiceProcess::stop);
        }, "cluster-stop");
        Runtime.getRuntime().addShutdownHook(hook);
        try (ClusterAdmin admin = new ClusterAdmin(stack)) {
            for (var e : services.entrySet()) {
                long t0 = System.nanoTime();
                e.getValue().start();
                System.out.printf("%s ready at %s in %d ms%n", e.getKey(), e.getValue().baseUrl(), (System.nanoTime() - t0) / 1_000_000);
            }
            play(stack, admin, services, pools, workDir, workspaces, prefix);
        } finally {
            pools.forEach(WorkerPool::close);
            services.values().forEach(ServiceProcess::stop);
            Runtime.getRuntime().removeShutdownHook(hook);
        }
        figures.put("load average at the end", loadAverage());
        figures.put("wall clock (s)", (System.nanoTime() - started) / 1_000_000_000);
        System.out.println();
        System.out.println(failures.isEmpty() ? "== cluster run PASSED" : "== cluster run FAILED: " + failures.size() + " check(s)");
        failures.forEach(f -> System.out.println("  ✘ " + f));
        Path out = Results.write(root, "cluster", "reliability/run --cluster (or ClusterFailoverIT)", figures, failures);
        System.out.println("results: " + root.relativize(out));
        return new Result(figures, List.copyOf(failures));
    }

    private void play(TetherStack stack, ClusterAdmin admin, Map<String, ServiceProcess> services, List<WorkerPool> pools, Path workDir,
                      Path workspaces, String prefix) throws Exception {
        String runId = "cluster-" + Long.toString(System.currentTimeMillis() % 1_000_000, 36);
        String classpath = root.resolve("reliability/target/classes") + java.io.File.pathSeparator
                + Files.readString(root.resolve("reliability/target/reliability.classpath")).trim();
        String sessionEvents = prefix + Topics.SESSION_EVENTS;
        try (TetherClient agent = TetherClient.create(ChaosRun.options(services, "dev-acme-agent"));
             TetherClient human = TetherClient.create(ChaosRun.options(services, "dev-acme-approver"))) {
            var phases = new ArrayList<Phase>();
            for (Fault f : Fault.values()) {
                phases.add(new Phase(f, ChaosRun.createSessions(agent, runId + "-" + f.label + "-s", config.sessionsPerFault()),
                        ChaosRun.createSessions(agent, runId + "-" + f.label + "-ref-s", config.sessionsPerFault())));
            }
            AppendProbe probe = new AppendProbe(services.get("session-service").baseUrl(), "dev-acme-agent",
                    probeSessions(agent, admin, sessionEvents, runId));
            checkReplication(admin, prefix);

            var allScripted = new TreeSet<String>();
            phases.forEach(p -> {
                allScripted.addAll(p.sessions);
                allScripted.addAll(p.twins);
            });
            var humanScript = new ScriptedHuman(human, allScripted, workspaces);
            var humanThread = new Thread(humanScript, "cluster-human");
            humanThread.setDaemon(true);
            humanThread.start();
            probe.start();
            try {
                for (Phase phase : phases) {
                    runPhase(phase, stack, admin, services, pools, classpath, runId, sessionEvents, workDir);
                }
                // the reference phase: every fault's twins, the same script, no fault
                System.out.printf("%n[%s] reference phase: the same script on %d twin sessions, no fault%n", elapsed(),
                        phases.size() * config.sessionsPerFault());
                long refStart = System.currentTimeMillis();
                long refGiveUp = refStart + TimeUnit.MINUTES.toMillis(8);
                var twins = phases.stream().flatMap(p -> ChaosRun.specs(p.twins).stream()).toList();
                var reference = new WorkerPool(classpath, ChaosRun.workerArgs(services, config.rounds(), refStart, 0, refGiveUp), runId + "-ref",
                        twins, config.sessionsPerWorker() * 2, workDir.resolve("workers-ref"));
                pools.add(reference);
                reference.start();
                ChaosRun.awaitDone(reference, refGiveUp, "reference", failures);
                reference.close();
            } finally {
                probe.close();
                humanScript.stop();
            }

            // --- checks
            System.out.printf("%n[%s] checks%n", elapsed());
            Map<String, List<SessionEvent>> logs = new TreeMap<>();
            for (String id : allScripted) {
                logs.put(id, agent.allEvents(id).orElseThrow());
            }
            for (AppendProbe.Target t : probe.targets()) {
                logs.put(t.sessionId(), agent.allEvents(t.sessionId()).orElseThrow());
            }
            var shared = new SessionChecks(config.rounds(), figures, failures);
            shared.sessions(phases.stream().flatMap(p -> p.twins.stream()).toList(), logs, workspaces, false);
            RawTopics.LogCheck raw = shared.rawLog(stack, prefix, logs);
            checkProbe(probe, logs, raw, phases);
            for (Phase phase : phases) {
                System.out.printf("%n== %s: %s%n", phase.fault.label, phase.fault.description);
                var checks = new SessionChecks(config.rounds(), phase.figures, phase.failures);
                checks.sessions(phase.sessions, logs, workspaces, true);
                checks.checkpoints(agent, phase.sessions, phase.twins, logs);
                phase.figures.forEach((k, v) -> figures.put(phase.fault.label + ": " + k, v));
                phase.failures.forEach(f -> failures.add(phase.fault.label + ": " + f));
            }
        }
    }

    /**
     * One probe session per {@code session-events} partition (its id picked so that it lands there, as
     * {@code SessionPartitioner} places it), created and claimed by the driver: a fault on any partition's leader shows in
     * one probe's appends.
     */
    private List<AppendProbe.Target> probeSessions(TetherClient agent, ClusterAdmin admin, String sessionEvents, String runId) {
        int partitions = admin.partitions(sessionEvents);
        var byPartition = new TreeMap<Integer, String>();
        for (int i = 0; byPartition.size() < partitions; i++) {
            String id = runId + "-probe-" + i;
            byPartition.putIfAbsent(Utils.toPositive(Utils.murmur2(id.getBytes(StandardCharsets.UTF_8))) % partitions, id);
        }
        var targets = new ArrayList<AppendProbe.Target>();
        for (String id : byPartition.values()) {
            CreateResult created = agent.createSession(NewSession.of("append probe", "probe-model", ToolMode.READ_ONLY)
                    .withSessionId(id).withHarnessVersion("v1"));
            if (!(created instanceof Created)) {
                throw new IllegalStateException("could not create " + id + ": " + created);
            }
            Claimed claim = agent.claim(id, ClaimRequest.of(runId + "-prober", "v1").withRequestId(runId + "-prober")).claimedOrThrow();
            targets.add(new AppendProbe.Target(id, claim.epoch()));
        }
        figures.put("probe sessions (one per session-events partition)", targets.size());
        return targets;
    }

    /** Every topic of the run, the Streams ones and the internal ones: replication factor 3, min.insync.replicas 2. */
    private void checkReplication(ClusterAdmin admin, String prefix) {
        List<String> topics = admin.topics().stream()
                .filter(t -> t.startsWith(prefix) || t.equals(ClusterAdmin.CONSUMER_OFFSETS) || t.equals(ClusterAdmin.TRANSACTION_STATE))
                .toList();
        int ok = 0;
        System.out.printf("%n== replication of the run's %d topics%n", topics.size());
        for (ClusterAdmin.Replication r : admin.replication(topics)) {
            boolean fine = r.replicas() == Integer.parseInt(REPLICATION_FACTOR) && MIN_INSYNC_REPLICAS.equals(r.minInsyncReplicas());
            System.out.printf("  %s %s: %d partitions, %d replicas, min.insync.replicas %s%n", fine ? "✔" : "✘", r.topic(), r.partitions(),
                    r.replicas(), r.minInsyncReplicas());
            if (fine) {
                ok++;
            } else {
                failures.add("topic " + r.topic() + " has " + r.replicas() + " replicas and min.insync.replicas=" + r.minInsyncReplicas()
                        + ", not " + REPLICATION_FACTOR + " and " + MIN_INSYNC_REPLICAS);
            }
        }
        for (String internal : List.of(ClusterAdmin.CONSUMER_OFFSETS, ClusterAdmin.TRANSACTION_STATE)) {
            if (!topics.contains(internal)) {
                failures.add(internal + " does not exist after the services started");
            }
        }
        figures.put("topics of the run (Tether's, Streams', offsets, transaction state)", topics.size());
        figures.put("topics at replication factor 3 with min.insync.replicas 2", ok + " of " + topics.size());
    }

    private void runPhase(Phase phase, TetherStack stack, ClusterAdmin admin, Map<String, ServiceProcess> services, List<WorkerPool> pools,
                          String classpath, String runId, String sessionEvents, Path workDir) throws Exception {
        Map<String, Object> f = phase.figures;
        System.out.printf("%n[%s] phase %s: %s, %d sessions (load average %s)%n", elapsed(), phase.fault.label, phase.fault.description,
                phase.sessions.size(), loadAverage());
        awaitWhole(admin, services, phase, "before the fault");
        phase.startNanos = System.nanoTime();
        long start = System.currentTimeMillis() + 2_000;
        long giveUp = start + config.pace().toMillis() * config.rounds() + TimeUnit.MINUTES.toMillis(6);
        var workers = new WorkerPool(classpath, ChaosRun.workerArgs(services, config.rounds(), start, config.pace().toMillis(), giveUp),
                runId + "-" + phase.fault.label, ChaosRun.specs(phase.sessions), config.sessionsPerWorker(), workDir.resolve("workers-" + phase.fault.label));
        pools.add(workers);
        workers.start();
        Thread.sleep(config.killAfter().toMillis());

        // --- the victim, and what it holds
        String sessionEventsLeaders = "";
        Map<Integer, Integer> leaders = admin.leaders(sessionEvents);
        int controller = admin.activeController();
        List<String> sequencerIds = admin.transactionalIds(prefixOf(sessionEvents) + SEQUENCER_APPLICATION + "-");
        if (sequencerIds.isEmpty()) {
            phase.failures.add("no transactional id of the sequencer (" + SEQUENCER_APPLICATION + ") in use");
        }
        var coordinators = new TreeMap<String, Integer>();
        for (String id : sequencerIds) {
            int byDescribe = admin.coordinatorOf(id);
            int byPartition = admin.transactionStateLeaderOf(id);
            coordinators.put(id, byDescribe);
            if (byDescribe != byPartition) {
                phase.failures.add("describeTransactions names broker " + byDescribe + " as the coordinator of " + id
                        + ", but the leader of its __transaction_state partition is broker " + byPartition);
            }
        }
        int victim = switch (phase.fault) {
            case LEADER -> leaderVictim(leaders, controller, coordinators.values());
            case COORDINATOR -> mostCommon(coordinators.values()).orElseThrow(() -> new IllegalStateException("no coordinator of the sequencer"));
            case CONTROLLER -> controller;
        };
        List<Integer> led = leaders.entrySet().stream().filter(e -> e.getValue() == victim).map(Map.Entry::getKey).toList();
        sessionEventsLeaders = led.size() + " of " + leaders.size() + " session-events partitions " + led;
        long pid = stack.brokerPid(victim).orElseThrow(() -> new IllegalStateException("broker " + victim + " does not run"));
        String roles = "leader of " + sessionEventsLeaders
                + (victim == controller ? "; the active controller" : "")
                + (coordinators.containsValue(victim) ? "; coordinator of the sequencer's transactions " + coordinators.keySet() : "");
        f.put("victim", "broker " + victim + " (pid " + pid + "): " + roles);

        // --- the kill, the failover while it is down, the restart
        System.out.printf("[%s] SIGKILL broker %d (pid %d): %s%n", elapsed(), victim, pid, roles);
        phase.killNanos = System.nanoTime();
        stack.killBroker(victim);
        long downUntil = phase.killNanos + config.down().toNanos();
        long leadersMoved = -1;
        long roleMoved = phase.fault == Fault.LEADER ? 0 : -1;
        int shrunk = 0;
        String newRoleHolder = "";
        while (System.nanoTime() < downUntil) {
            try {
                if (leadersMoved < 0) {
                    Map<Integer, Integer> now = admin.leaders(sessionEvents);
                    if (led.stream().allMatch(p -> now.get(p) != victim && now.get(p) >= 0)) {
                        leadersMoved = millisSince(phase.killNanos);
                        newRoleHolder = "session-events leaders now " + led.stream().map(p -> p + "→" + now.get(p)).collect(Collectors.joining(", "));
                    }
                }
                if (roleMoved < 0) {
                    // a transactional id the victim coordinated: the one whose coordinator must move
                    String coordinated = coordinators.entrySet().stream().filter(e -> e.getValue() == victim)
                            .map(Map.Entry::getKey).findFirst().orElse("");
                    IntSupplier holder = phase.fault == Fault.CONTROLLER ? admin::activeController
                            : () -> admin.coordinatorOf(coordinated);
                    int now = holder.getAsInt();
                    if (now != victim) {
                        roleMoved = millisSince(phase.killNanos);
                        f.put((phase.fault == Fault.CONTROLLER ? "new active controller" : "new coordinator of the sequencer's transactions"),
                                "broker " + now + ", " + roleMoved + " ms after the kill");
                    }
                }
                shrunk = Math.max(shrunk, admin.underReplicated().size());
            } catch (IllegalStateException notAnswered) {
                // a question to the cluster went unanswered while it fails over: asked again
            }
            Thread.sleep(500);
        }
        f.put("session-events leadership moved after (ms)", leadersMoved < 0 ? "not while the broker was down" : leadersMoved);
        if (!newRoleHolder.isEmpty()) {
            f.put("session-events leaders after the failover", newRoleHolder);
        }
        if (leadersMoved < 0 && !led.isEmpty()) {
            phase.failures.add("the session-events partitions " + led + " of broker " + victim + " had no new leader after " + config.down().toSeconds() + " s");
        }
        if (roleMoved < 0) {
            phase.failures.add("the " + (phase.fault == Fault.CONTROLLER ? "active controller" : "coordinator") + " had not moved off broker "
                    + victim + " after " + config.down().toSeconds() + " s");
        }
        f.put("partitions with a shrunk ISR while the broker was down (most seen)", shrunk);
        if (shrunk == 0) {
            phase.failures.add("no partition's in-sync replicas shrank while broker " + victim + " was down");
        }
        long t0 = System.nanoTime();
        stack.restartBroker(victim);
        f.put("broker down (s)", millisSince(phase.killNanos) / 1000);
        f.put("broker restart until it logged 'started' (ms)", millisSince(t0));
        System.out.printf("[%s] broker %d restarted in %d ms%n", elapsed(), victim, millisSince(t0));
        long whole = awaitWhole(admin, services, phase, "after the restart");
        f.put("every replica in sync again after the restart (ms)", whole < 0 ? "not within 3 minutes" : millisSince(t0));

        ChaosRun.awaitDone(workers, giveUp, phase.fault.label, phase.failures);
        workers.close();
        phase.endNanos = System.nanoTime();
        f.put("phase (s)", (phase.endNanos - phase.startNanos) / 1_000_000_000);
        f.put("load average at the end of the phase", loadAverage());
        if (workers.takeovers() > 0) {
            phase.failures.add(workers.takeovers() + " worker process(es) had to be replaced (none was killed)");
        }
    }

    /** A broker leading session-events partitions, preferably neither the controller nor a coordinator; the one leading most. */
    private static int leaderVictim(Map<Integer, Integer> leaders, int controller, java.util.Collection<Integer> coordinators) {
        var counts = new TreeMap<Integer, Integer>();
        leaders.values().stream().filter(b -> b >= 0).forEach(b -> counts.merge(b, 1, Integer::sum));
        return counts.entrySet().stream()
                .sorted((a, b) -> {
                    boolean aOther = a.getKey() == controller || coordinators.contains(a.getKey());
                    boolean bOther = b.getKey() == controller || coordinators.contains(b.getKey());
                    return aOther != bOther ? Boolean.compare(aOther, bOther) : Integer.compare(b.getValue(), a.getValue());
                })
                .map(Map.Entry::getKey).findFirst().orElseThrow(() -> new IllegalStateException("session-events has no leader"));
    }

    private static Optional<Integer> mostCommon(java.util.Collection<Integer> values) {
        var counts = new TreeMap<Integer, Integer>();
        values.forEach(v -> counts.merge(v, 1, Integer::sum));
        return counts.entrySet().stream().max(Map.Entry.comparingByValue()).map(Map.Entry::getKey);
    }

    /**
     * Waits (up to 3 minutes) until the cluster is whole ({@link ClusterAdmin#notWhole}) and every service is ready; the
     * milliseconds it took, or -1 (a failure of the phase) if it did not get there.
     */
    private long awaitWhole(ClusterAdmin admin, Map<String, ServiceProcess> services, Phase phase, String when) throws InterruptedException {
        long t0 = System.nanoTime();
        long deadline = t0 + TimeUnit.MINUTES.toNanos(3);
        Optional<String> missing = admin.notWhole();
        while (missing.isPresent() && System.nanoTime() < deadline) {
            Thread.sleep(500);
            missing = admin.notWhole();
        }
        if (missing.isPresent()) {
            phase.failures.add("the cluster was not whole 3 minutes " + when + ": " + missing.get());
            return -1;
        }
        for (var e : services.entrySet()) {
            while (!Health.ready(e.getValue().baseUrl())) {
                if (System.nanoTime() > deadline) {
                    phase.failures.add(e.getKey() + " was not ready 3 minutes " + when);
                    return -1;
                }
                Thread.sleep(250);
            }
        }
        return millisSince(t0);
    }

    /**
     * The probe's appends, per phase and in all: acknowledged, lost (not in the session's log at the seq it was
     * acknowledged at), duplicated (in more than one raw record); how the failed attempts were answered; and the window
     * during which appends failed after each kill.
     */
    private void checkProbe(AppendProbe probe, Map<String, List<SessionEvent>> logs, RawTopics.LogCheck raw, List<Phase> phases) {
        List<AppendProbe.Attempt> attempts = probe.attempts();
        Map<String, Map<String, Long>> seqs = new HashMap<>(); // session -> eventId -> seq in its log
        for (AppendProbe.Target t : probe.targets()) {
            var bySeq = new HashMap<String, Long>();
            logs.get(t.sessionId()).forEach(e -> bySeq.put(e.eventId(), e.seq()));
            seqs.put(t.sessionId(), bySeq);
        }
        System.out.printf("%n== append probe: %d sessions, %d attempts%n", probe.targets().size(), attempts.size());
        int[] totals = appendFigures("", attempts, seqs, raw, figures, failures, 0, Long.MAX_VALUE);
        System.out.printf("  in all: %d appends acknowledged, %d lost, %d duplicated%n", totals[0], totals[1], totals[2]);
        for (Phase phase : phases) {
            // each failure is reported once, by the pass over all attempts above; here only the phase's figures
            int[] counts = appendFigures("probe ", attempts, seqs, raw, phase.figures, new ArrayList<>(), phase.startNanos, phase.endNanos);
            Map<String, Long> windows = probe.windows(phase.killNanos, phase.endNanos, SLOW_APPEND_MILLIS);
            long worst = windows.values().stream().mapToLong(Long::longValue).max().orElse(0);
            long affected = windows.values().stream().filter(w -> w > 0).count();
            phase.figures.put("window during which appends failed, worst probe session (ms)", worst);
            phase.figures.put("probe sessions whose appends failed or slowed", affected + " of " + windows.size());
            phase.figures.put("window per probe session (ms)", windows.values().stream().map(String::valueOf).collect(Collectors.joining(" · ")));
            System.out.printf("  %s: %d appends acknowledged, %d lost, %d duplicated; appends failed for up to %d ms (%d of %d probe sessions)%n",
                    phase.fault.label, counts[0], counts[1], counts[2], worst, affected, windows.size());
        }
    }

    /** The figures of the attempts started in [from, until); returns {acknowledged, lost, duplicated}. */
    private static int[] appendFigures(String label, List<AppendProbe.Attempt> all, Map<String, Map<String, Long>> seqs, RawTopics.LogCheck raw,
                                       Map<String, Object> figures, List<String> failures, long from, long until) {
        List<AppendProbe.Attempt> attempts = all.stream().filter(a -> a.startNanos() >= from && a.startNanos() < until).toList();
        int acknowledged = 0;
        int lost = 0;
        int duplicated = 0;
        int retryAfter503 = 0;
        int bare503 = 0;
        int other5xx = 0;
        int noAnswer = 0;
        int refused = 0;
        long longest = 0;
        for (AppendProbe.Attempt a : attempts) {
            longest = Math.max(longest, a.millis());
            if (a.acknowledged()) {
                acknowledged++;
                Long seq = seqs.get(a.sessionId()).get(a.eventId());
                if (seq == null || seq != a.seq()) {
                    lost++;
                    failures.add(a.eventId() + " was acknowledged at seq " + a.seq() + " but the log has it " + (seq == null ? "nowhere" : "at seq " + seq));
                }
                int records = raw.records(a.sessionId(), a.eventId());
                if (records > 1) {
                    duplicated++;
                    failures.add(a.eventId() + " is in " + records + " records of session-events");
                } else if (records == 0) {
                    lost++;
                    failures.add(a.eventId() + " was acknowledged but is in no committed record of session-events");
                }
            } else if (a.status() == 503) {
                if (a.retryAfter()) {
                    retryAfter503++;
                } else {
                    bare503++;
                }
            } else if (a.status() / 100 == 5) {
                other5xx++;
            } else if (a.status() == 0) {
                noAnswer++;
            } else {
                refused++;
            }
        }
        figures.put(label + "appends acknowledged", acknowledged);
        figures.put(label + "appends lost", lost);
        figures.put(label + "appends duplicated", duplicated);
        figures.put(label + "attempts answered 503 with Retry-After (retried with the same eventId)", retryAfter503);
        figures.put(label + "attempts answered 503 without Retry-After", bare503);
        figures.put(label + "attempts answered another 5xx", other5xx);
        figures.put(label + "attempts without an answer within " + AppendProbe.REQUEST_TIMEOUT.toSeconds() + " s", noAnswer);
        figures.put(label + "attempts refused (4xx)", refused);
        figures.put(label + "longest append (ms)", longest);
        if (bare503 > 0) {
            failures.add(bare503 + " append(s) answered 503 without Retry-After");
        }
        if (other5xx > 0) {
            failures.add(other5xx + " append(s) answered with a 5xx other than 503: "
                    + attempts.stream().filter(a -> a.status() / 100 == 5 && a.status() != 503).map(a -> a.status() + " " + a.error()).distinct().limit(3).toList());
        }
        if (noAnswer > 0) {
            failures.add(noAnswer + " append(s) had no answer within " + AppendProbe.REQUEST_TIMEOUT.toSeconds() + " s: "
                    + attempts.stream().filter(a -> a.status() == 0).map(AppendProbe.Attempt::error).distinct().limit(3).toList());
        }
        if (refused > 0) {
            failures.add(refused + " append(s) refused: " + attempts.stream().filter(a -> a.status() / 100 == 4)
                    .map(a -> a.status() + " " + a.error()).distinct().limit(3).toList());
        }
        return new int[] {acknowledged, lost, duplicated};
    }

    /** The topic prefix of {@code sessionEvents} (everything before {@code session-events}). */
    private static String prefixOf(String sessionEvents) {
        return sessionEvents.substring(0, sessionEvents.length() - Topics.SESSION_EVENTS.length());
    }

    private static long millisSince(long nanos) {
        return (System.nanoTime() - nanos) / 1_000_000;
    }

    private String elapsed() {
        return "t+" + (System.nanoTime() - started) / 1_000_000_000 + " s";
    }

    /** The machine's 1-, 5- and 15-minute load averages, as the figures must say what they were measured at. */
    static String loadAverage() {
        try {
            String[] parts = Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+");
            return parts[0] + " " + parts[1] + " " + parts[2];
        } catch (IOException | RuntimeException e) {
            return "unknown";
        }
    }
}
