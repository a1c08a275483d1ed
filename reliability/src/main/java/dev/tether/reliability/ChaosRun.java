package dev.tether.reliability;

import dev.tether.client.CreateResult;
import dev.tether.client.Created;
import dev.tether.client.NewSession;
import dev.tether.client.RetryPolicy;
import dev.tether.client.SessionEvent;
import dev.tether.client.TetherClient;
import dev.tether.client.TetherOptions;
import dev.tether.client.ToolMode;
import dev.tether.testing.PlantedSecrets;
import dev.tether.testing.ProcessControl;
import dev.tether.testing.ServiceProcess;
import dev.tether.testing.TetherStack;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

/**
 * The chaos run (issue 8): starts its own broker and registry ({@code deploy/local/stack}, free loopback ports) and
 * the four packaged services, plays N scripted sessions ({@link ScriptedSession}) in worker processes
 * ({@link WorkerPool}, {@link ChaosWorker}) with a {@link ScriptedHuman} deciding approvals, while a seeded
 * {@link FaultInjector} SIGKILLs and SIGSTOPs services, workers and the broker. Then it plays the same script
 * fault-free on fresh sessions (the reference run), checks everything and writes the figures to
 * {@code reliability/target/results/chaos-<reduced|full|reduced-registry-faults>.json}.
 *
 * <p>Usage: {@code ChaosRun [--full] [--seed N] [--sessions N] [--rounds N] [--faults N] [--per-worker N]}: without
 * {@code --full} the reduced run of CI (20 sessions, 12 faults); with it the full run (200 sessions, 100 faults).
 * Exit 0 only if every check passes. Every process it starts is stopped by PID, also on Ctrl-C.
 */
public final class ChaosRun {

    /** What to run. */
    public record Config(String name, long seed, int sessions, int rounds, int sessionsPerWorker, int faults,
                         Duration pauseMin, Duration pauseMax, Duration downMax, boolean reference, boolean registryFaults) {

        /**
         * The reduced run (CI): at least 20 sessions and 10 faults. Without the registry's faults (its SIGSTOP alone
         * lasts 60 s, too long for CI; {@code RegistryOutageIT} covers a silent and a killed registry there).
         */
        public static Config reduced(long seed) {
            return new Config("reduced", seed, 20, 4, 4, 12, Duration.ofMillis(500), Duration.ofMillis(2500), Duration.ofSeconds(3), true,
                    false);
        }

        /** The full run: at least 200 sessions and 100 faults, the registry's among them. */
        public static Config full(long seed) {
            return new Config("full", seed, 200, 5, 10, 100, Duration.ofMillis(500), Duration.ofMillis(2500), Duration.ofSeconds(3), true,
                    true);
        }

        /**
         * How far apart the rounds start, so the sessions last about as long as the faults take: a guess of 5 s per
         * fault beyond its pause (faults overlap; the broker's and the SIGSTOPs take longer).
         */
        long paceMillis() {
            long perFault = (pauseMin.toMillis() + pauseMax.toMillis()) / 2 + 5_000;
            return faults * perFault / rounds;
        }
    }

    /** The outcome: figures and failures, as written to {@code chaos-<reduced|full|reduced-registry-faults>.json}. */
    public record Result(Map<String, Object> figures, List<String> failures) {
        public boolean passed() {
            return failures.isEmpty();
        }
    }

    private final Config config;
    private final Path root;
    private final List<String> failures = new ArrayList<>();
    /** The running fault injector, for the Ctrl-C hook (which runs on another thread). */
    private final List<FaultInjector> injectors = new java.util.concurrent.CopyOnWriteArrayList<>();
    private final Map<String, Object> figures = new LinkedHashMap<>();
    private final long started = System.nanoTime();

    public ChaosRun(Config config, Path root) {
        this.config = config;
        this.root = root;
    }

    public static void main(String[] args) {
        long seed = 42;
        boolean full = false;
        Boolean registryFaults = null;
        var overrides = new HashMap<String, Integer>();
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--full" -> full = true;
                case "--registry-faults" -> registryFaults = true;
                case "--seed" -> seed = Long.parseLong(args[++i]);
                case "--sessions", "--rounds", "--faults", "--per-worker" -> overrides.put(args[i], Integer.parseInt(args[++i]));
                default -> {
                    System.err.println("usage: reliability/run [--full] [--registry-faults] [--seed N] [--sessions N] [--rounds N] [--faults N] [--per-worker N]");
                    System.exit(2);
                }
            }
        }
        Config c = full ? Config.full(seed) : Config.reduced(seed);
        // a reduced run with the registry's faults is another part than the reduced run of CI: it must not replace it
        String name = !full && Boolean.TRUE.equals(registryFaults) ? c.name() + "-registry-faults" : c.name();
        c = new Config(name, c.seed(), overrides.getOrDefault("--sessions", c.sessions()), overrides.getOrDefault("--rounds", c.rounds()),
                overrides.getOrDefault("--per-worker", c.sessionsPerWorker()), overrides.getOrDefault("--faults", c.faults()),
                c.pauseMin(), c.pauseMax(), c.downMax(), c.reference(), registryFaults == null ? c.registryFaults() : registryFaults);
        Path root = Path.of(System.getProperty("tether-test.root", ".")).toAbsolutePath().normalize();
        int status;
        try {
            status = new ChaosRun(c, root).run().passed() ? 0 : 1;
        } catch (Exception e) {
            e.printStackTrace();
            status = 1;
        }
        // the stack's shutdown hook stops the broker and the registry by their PIDs
        System.exit(status);
    }

    /** Runs it all, prints the checks, writes {@code reliability/target/results/chaos-<reduced|full|reduced-registry-faults>.json}. */
    public Result run() throws Exception {
        System.out.printf("chaos run (%s): seed %d, %d sessions × %d rounds, %d per worker process, %d faults%n", config.name(),
                config.seed(), config.sessions(), config.rounds(), config.sessionsPerWorker(), config.faults());
        TetherStack stack = TetherStack.shared();
        Path workDir = Files.createDirectories(root.resolve("reliability/target/chaos-" + config.seed() + "-" + System.currentTimeMillis()));
        Path workspaces = Files.createDirectories(workDir.resolve("workspaces"));
        String prefix = "chaos-" + UUID.randomUUID().toString().substring(0, 8) + ".";
        // every round runs a 2 s command in each session: with the executor's default 4 at once they queue, and the run
        // would measure the queue rather than the faults; 10 at once leaves more calls in flight for a SIGKILL too
        var env = ServiceProcess.env("TETHER_TOPICS_PREFIX", prefix, "TETHER_WORKSPACE_ROOT", workspaces.toString(),
                "TETHER_SESSIONS_BLOBS_DIR", workDir.resolve("blobs").toString(), "TETHER_EXECUTOR_CONCURRENCY", "10");
        var services = new LinkedHashMap<String, ServiceProcess>();
        for (String name : FaultInjector.SERVICES) {
            services.put(name, new ServiceProcess(root.resolve(name), workDir.resolve(name), env, List.of("-Dquarkus.http.host=127.0.0.1")));
        }
        var pools = new ArrayList<WorkerPool>();
        // Ctrl-C: the injector stops restarting things first, then the services and workers go (the stack has its own hook)
        Thread hook = new Thread(() -> {
            injectors.forEach(FaultInjector::abort);
            pools.forEach(WorkerPool::close);
            services.values().forEach(s -> {
                ProcessControl.signal(s.pid(), "CONT");
                s.stop();
            });
        }, "chaos-stop");
        Runtime.getRuntime().addShutdownHook(hook);
        try {
            startAll(services);
            play(stack, services, pools, workDir, workspaces, prefix);
        } finally {
            pools.forEach(WorkerPool::close);
            services.values().forEach(ServiceProcess::stop);
            Runtime.getRuntime().removeShutdownHook(hook);
        }
        figures.put("wall clock (s)", (System.nanoTime() - started) / 1_000_000_000);
        System.out.println();
        System.out.println(failures.isEmpty() ? "== chaos run PASSED" : "== chaos run FAILED: " + failures.size() + " check(s)");
        failures.forEach(f -> System.out.println("  ✘ " + f));
        var result = new Result(figures, List.copyOf(failures));
        Path out = Results.write(root, "chaos-" + config.name(), command(), figures, failures);
        System.out.println("results: " + root.relativize(out));
        return result;
    }

    /** One second per round of each session (two gated calls, one of them a 2-second command), on top of the base budget. */
    private long callBudgetMillis() {
        return (long) config.sessions() * config.rounds() * 1_000;
    }

    private String elapsed() {
        return "t+" + (System.nanoTime() - started) / 1_000_000_000 + " s";
    }

    private String command() {
        return switch (config.name()) {
            case "full" -> "reliability/run --full --seed " + config.seed();
            case "reduced" -> "ChaosRunIT (.ci/run), or reliability/run --seed " + config.seed();
            default -> "reliability/run --registry-faults --seed " + config.seed();
        };
    }

    /** One after the other: four JVMs starting at once on a loaded 2-core machine took longer than a start may take. */
    private void startAll(Map<String, ServiceProcess> services) {
        for (var e : services.entrySet()) {
            long t0 = System.nanoTime();
            e.getValue().start();
            System.out.printf("%s ready at %s in %d ms (log %s)%n", e.getKey(), e.getValue().baseUrl(),
                    (System.nanoTime() - t0) / 1_000_000, root.relativize(e.getValue().log()));
        }
    }

    private void play(TetherStack stack, Map<String, ServiceProcess> services, List<WorkerPool> pools, Path workDir, Path workspaces,
                      String prefix) throws Exception {
        String runId = "chaos-" + config.seed() + "-" + Long.toString(System.currentTimeMillis() % 1_000_000, 36);
        String classpath = root.resolve("reliability/target/classes") + java.io.File.pathSeparator
                + Files.readString(root.resolve("reliability/target/reliability.classpath")).trim();
        try (TetherClient agent = TetherClient.create(options(services, "dev-acme-agent"));
             TetherClient human = TetherClient.create(options(services, "dev-acme-approver"))) {
            List<String> chaosIds = createSessions(agent, runId + "-s", config.sessions());
            List<String> referenceIds = config.reference() ? createSessions(agent, runId + "-ref-s", config.sessions()) : List.of();
            var allIds = new TreeSet<String>(chaosIds);
            allIds.addAll(referenceIds);
            var humanScript = new ScriptedHuman(human, allIds, workspaces);
            var humanThread = new Thread(humanScript, "chaos-human");
            humanThread.setDaemon(true);
            humanThread.start();

            // --- the chaos phase
            long pace = config.paceMillis();
            long start = System.currentTimeMillis() + 3_000;
            // the budget grows with the calls to make: the full run on a loaded 2-core machine needed more than 8 minutes
            long giveUp = start + pace * config.rounds() + TimeUnit.MINUTES.toMillis(8) + callBudgetMillis();
            long chaosStart = System.nanoTime();
            System.out.printf("%n[%s] chaos phase: rounds paced %d s apart, %d worker processes%n", elapsed(), pace / 1000,
                    (config.sessions() + config.sessionsPerWorker() - 1) / config.sessionsPerWorker());
            var workers = new WorkerPool(classpath, workerArgs(services, config.rounds(), start, pace, giveUp), runId, specs(chaosIds),
                    config.sessionsPerWorker(), workDir.resolve("workers"));
            pools.add(workers);
            workers.start();
            var injector = new FaultInjector(services, workers, stack, config.seed(), config.faults(), config.pauseMin(),
                    config.pauseMax(), config.downMax(), config.registryFaults());
            injectors.add(injector);
            var injectorThread = new Thread(injector, "chaos-faults");
            injectorThread.start();
            injectorThread.join(Math.max(1, giveUp - System.currentTimeMillis()));
            injector.stop();
            injectorThread.join(TimeUnit.MINUTES.toMillis(3));
            for (var e : services.entrySet()) {
                ProcessControl.signal(e.getValue().pid(), "CONT"); // harmless if it runs
                if (!e.getValue().isAlive()) {
                    failures.add(e.getKey() + " was down when the faults stopped");
                    e.getValue().start();
                }
            }
            awaitDone(workers, giveUp, "chaos", failures);
            if (!workers.awaitSuperseded(60_000)) {
                failures.add("a worker replaced while SIGSTOPped did not exit by itself after SIGCONT (not fenced?)");
            }
            // the phase is over: no worker may claim anything after this (a late takeover would change the logs under the checks)
            workers.close();
            List<FaultInjector.Fault> faults = injector.faults();
            figures.put("chaos phase (s)", (System.nanoTime() - chaosStart) / 1_000_000_000);

            // --- the reference phase: the same script, fault-free
            if (config.reference()) {
                long referenceStart = System.nanoTime();
                System.out.printf("%n[%s] reference phase: the same script on %d fresh sessions, no faults%n", elapsed(), referenceIds.size());
                long refStart = System.currentTimeMillis();
                long refGiveUp = refStart + TimeUnit.MINUTES.toMillis(10) + callBudgetMillis();
                var reference = new WorkerPool(classpath, workerArgs(services, config.rounds(), refStart, 0, refGiveUp), runId + "-ref",
                        specs(referenceIds), config.sessionsPerWorker(), workDir.resolve("workers-ref"));
                pools.add(reference);
                reference.start();
                awaitDone(reference, refGiveUp, "reference", failures);
                reference.close();
                figures.put("reference phase (s)", (System.nanoTime() - referenceStart) / 1_000_000_000);
                if (reference.takeovers() > 0) {
                    failures.add("the fault-free reference run had " + reference.takeovers() + " worker restart(s)");
                }
            }
            humanScript.stop();

            // --- checks
            System.out.printf("%n[%s] checks%n", elapsed());
            figures.put("sessions", chaosIds.size());
            figures.put("rounds per session", config.rounds());
            figures.put("worker processes", workers.workerProcesses());
            printFaults(faults, injector.failedStarts());
            figures.put("takeovers by a new worker process", workers.takeovers());
            figures.put("approvals granted by the scripted human", humanScript.approvals());
            figures.put("UNKNOWN outcomes resolved by the scripted human", humanScript.unknowns());
            System.out.printf("%nhuman: %d approvals granted, %d UNKNOWN outcomes resolved, %d polls failed (service down)%n",
                    humanScript.approvals(), humanScript.unknowns(), humanScript.errors());
            Map<String, List<SessionEvent>> logs = new TreeMap<>();
            for (String id : allIds) {
                logs.put(id, agent.allEvents(id).orElseThrow());
            }
            var checks = new SessionChecks(config.rounds(), figures, failures);
            checks.sessions(chaosIds, logs, workspaces, true);
            checks.sessions(referenceIds, logs, workspaces, false);
            checks.rawLog(stack, prefix, logs);
            if (config.reference()) {
                checks.checkpoints(agent, chaosIds, referenceIds, logs);
            }
            scanSecrets(prefix, workDir);
        }
    }

    /** {@code count} new WRITE sessions {@code idPrefix1}, {@code idPrefix2}…, on harness version v1. */
    static List<String> createSessions(TetherClient agent, String idPrefix, int count) {
        var ids = new ArrayList<String>();
        for (int i = 1; i <= count; i++) {
            String id = idPrefix + i;
            CreateResult created = agent.createSession(NewSession.of("chaos session " + i, "chaos-model", ToolMode.WRITE)
                    .withSessionId(id).withHarnessVersion("v1"));
            if (!(created instanceof Created)) {
                throw new IllegalStateException("could not create " + id + ": " + created);
            }
            ids.add(id);
        }
        return ids;
    }

    /** {@code id:number}: the number picks the planted secret, the same for a chaos session and its reference. */
    static List<String> specs(List<String> ids) {
        var specs = new ArrayList<String>();
        for (int i = 0; i < ids.size(); i++) {
            specs.add(ids.get(i) + ":" + (i + 1));
        }
        return specs;
    }

    /** The options of every {@link ChaosWorker}: the services, the script's rounds, its pacing and when to give up. */
    static List<String> workerArgs(Map<String, ServiceProcess> services, int rounds, long start, long pace, long giveUp) {
        return List.of("--sessions", services.get("session-service").baseUrl(), "--projector", services.get("projector-service").baseUrl(),
                "--approvals", services.get("approval-service").baseUrl(), "--rounds", Integer.toString(rounds),
                "--start", Long.toString(start), "--pace", Long.toString(pace), "--give-up", Long.toString(giveUp));
    }

    /** Waits until {@code workers} are done (or until 30 s after {@code giveUp}); what went wrong goes to {@code failures}. */
    static void awaitDone(WorkerPool workers, long giveUp, String phase, List<String> failures) throws InterruptedException {
        while (!workers.allDone() && System.currentTimeMillis() < giveUp + 30_000) {
            Thread.sleep(500);
        }
        if (!workers.allDone()) {
            failures.add(phase + " phase: the worker processes did not finish their sessions in time");
        }
        if (workers.abnormalExits() > 0) {
            failures.add(phase + " phase: " + workers.abnormalExits() + " worker process(es) gave up or crashed by themselves");
        }
    }

    /** A client of the run's services as {@code token}, with retries that ride out a service's restart. */
    static TetherOptions options(Map<String, ServiceProcess> services, String token) {
        return TetherOptions.of(URI.create(services.get("session-service").baseUrl()),
                        URI.create(services.get("projector-service").baseUrl()), URI.create(services.get("approval-service").baseUrl()))
                .withToken(token).withTimeout(Duration.ofSeconds(20))
                .withRetry(RetryPolicy.of(20, Duration.ofMillis(250), Duration.ofSeconds(3)));
    }

    private void printFaults(List<FaultInjector.Fault> faults, List<String> failedStarts) {
        var byKind = new TreeMap<String, Integer>();
        faults.forEach(f -> byKind.merge(f.kind(), 1, Integer::sum));
        System.out.printf("%nfaults injected: %d %s%n", faults.size(), byKind);
        figures.put("faults injected", faults.size());
        byKind.forEach((kind, n) -> figures.put("faults: " + kind, n));
        // not a failure of the run (a supervisor restarts a service that exits), but each one is worth a look
        figures.put("service starts that failed and were tried again (as a supervisor would)", failedStarts.size());
        if (!failedStarts.isEmpty()) {
            figures.put("failed starts", String.join(" · ", failedStarts).replaceAll("\\s*\n\\s*", " / "));
            System.out.printf("service starts that failed and were tried again: %d%n  %s%n", failedStarts.size(),
                    String.join("\n  ", failedStarts));
        }
        if (faults.size() < config.faults()) {
            failures.add("only " + faults.size() + " of " + config.faults() + " faults were injected");
        }
        faults.stream().filter(f -> !f.error().isEmpty())
                .forEach(f -> failures.add("fault " + f.number() + " (" + f.kind() + " " + f.victim() + "): " + f.error()));
    }

    private void scanSecrets(String prefix, Path workDir) throws Exception {
        // the secrets planted: every session's first message holds one, its round-1 message all of them
        var secrets = new LinkedHashMap<String, String>();
        PlantedSecrets.all().forEach(p -> secrets.put(p.secret(), p.kind()));
        List<String> topics = RawTopics.topicsOf(prefix);
        var dirs = new ArrayList<Path>();
        try (var entries = Files.list(workDir)) {
            entries.filter(p -> !p.getFileName().toString().equals("workspaces")).forEach(dirs::add);
        }
        RawTopics.Scan scan = RawTopics.scanForSecrets(topics, dirs, secrets);
        System.out.printf("%n== secret scan: %d planted secrets (%d kinds) searched in %d topics (%d records, %d MB) and %d files "
                        + "(service logs and state, worker logs, blob store; %d MB): %d found%n", secrets.size(),
                new TreeSet<>(secrets.values()).size(), scan.topics(), scan.records(), scan.recordBytes() >> 20, scan.files(),
                scan.fileBytes() >> 20, scan.findings().size());
        scan.findings().forEach(f -> {
            System.out.println("  ✘ " + f.secretKind() + " secret found in " + f.where());
            failures.add("secret (" + f.secretKind() + ") found in " + f.where());
        });
        figures.put("planted secrets", secrets.size());
        figures.put("topics scanned for secrets", scan.topics());
        figures.put("records scanned", scan.records());
        figures.put("files scanned (logs, state, blobs)", scan.files());
        figures.put("secrets found", scan.findings().size());
    }
}
