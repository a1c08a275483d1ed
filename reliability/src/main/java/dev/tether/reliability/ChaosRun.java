package dev.tether.reliability;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tether.client.Checkpoint;
import dev.tether.client.CreateResult;
import dev.tether.client.Created;
import dev.tether.client.NewSession;
import dev.tether.client.ReadAt;
import dev.tether.client.RetryPolicy;
import dev.tether.client.SessionEvent;
import dev.tether.client.TetherClient;
import dev.tether.client.TetherOptions;
import dev.tether.client.ToolMode;
import dev.tether.kit.kafka.Topics;
import dev.tether.testing.PlantedSecrets;
import dev.tether.testing.ServiceProcess;
import dev.tether.testing.TetherStack;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

/**
 * The chaos run (issue 8): starts its own broker and registry ({@code deploy/local/stack}, free loopback ports) and
 * the four packaged services, plays N scripted sessions ({@link ScriptedSession}) in worker processes
 * ({@link WorkerPool}, {@link ChaosWorker}) with a {@link ScriptedHuman} deciding approvals, while a seeded
 * {@link FaultInjector} SIGKILLs and SIGSTOPs services, workers and the broker. Then it plays the same script
 * fault-free on fresh sessions (the reference run), checks everything and writes the figures to
 * {@code reliability/target/results/chaos-<reduced|full>.json}.
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

    /** The outcome: figures and failures, as written to {@code chaos-<reduced|full>.json}. */
    public record Result(Map<String, Object> figures, List<String> failures) {
        public boolean passed() {
            return failures.isEmpty();
        }
    }

    private static final ObjectMapper JSON = new ObjectMapper();

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
        c = new Config(c.name(), c.seed(), overrides.getOrDefault("--sessions", c.sessions()), overrides.getOrDefault("--rounds", c.rounds()),
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

    /** Runs it all, prints the checks, writes {@code reliability/target/results/chaos-<reduced|full>.json}. */
    public Result run() throws Exception {
        System.out.printf("chaos run (%s): seed %d, %d sessions × %d rounds, %d per worker process, %d faults%n", config.name(),
                config.seed(), config.sessions(), config.rounds(), config.sessionsPerWorker(), config.faults());
        TetherStack stack = TetherStack.shared();
        Path workDir = Files.createDirectories(root.resolve("reliability/target/chaos-" + config.seed() + "-" + System.currentTimeMillis()));
        Path workspaces = Files.createDirectories(workDir.resolve("workspaces"));
        String prefix = "chaos-" + UUID.randomUUID().toString().substring(0, 8) + ".";
        var env = ServiceProcess.env("TETHER_TOPICS_PREFIX", prefix, "TETHER_WORKSPACE_ROOT", workspaces.toString(),
                "TETHER_SESSIONS_BLOBS_DIR", workDir.resolve("blobs").toString());
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
        return config.name().equals("full") ? "reliability/run --full --seed " + config.seed()
                : "ChaosRunIT (.ci/run), or reliability/run --seed " + config.seed();
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
            List<String> chaosIds = createSessions(agent, runId + "-s");
            List<String> referenceIds = config.reference() ? createSessions(agent, runId + "-ref-s") : List.of();
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
            var workers = new WorkerPool(classpath, workerArgs(services, start, pace, giveUp), runId, specs(chaosIds),
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
            awaitDone(workers, giveUp, "chaos");
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
                var reference = new WorkerPool(classpath, workerArgs(services, refStart, 0, refGiveUp), runId + "-ref",
                        specs(referenceIds), config.sessionsPerWorker(), workDir.resolve("workers-ref"));
                pools.add(reference);
                reference.start();
                awaitDone(reference, refGiveUp, "reference");
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
            checkSessions(chaosIds, logs, workspaces, true);
            checkSessions(referenceIds, logs, workspaces, false);
            checkRawLog(prefix, logs);
            if (config.reference()) {
                compareCheckpoints(agent, chaosIds, referenceIds, logs);
            }
            scanSecrets(prefix, workDir);
        }
    }

    private List<String> createSessions(TetherClient agent, String idPrefix) {
        var ids = new ArrayList<String>();
        for (int i = 1; i <= config.sessions(); i++) {
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
    private static List<String> specs(List<String> ids) {
        var specs = new ArrayList<String>();
        for (int i = 0; i < ids.size(); i++) {
            specs.add(ids.get(i) + ":" + (i + 1));
        }
        return specs;
    }

    private List<String> workerArgs(Map<String, ServiceProcess> services, long start, long pace, long giveUp) {
        return List.of("--sessions", services.get("session-service").baseUrl(), "--projector", services.get("projector-service").baseUrl(),
                "--approvals", services.get("approval-service").baseUrl(), "--rounds", Integer.toString(config.rounds()),
                "--start", Long.toString(start), "--pace", Long.toString(pace), "--give-up", Long.toString(giveUp));
    }

    private void awaitDone(WorkerPool workers, long giveUp, String phase) throws InterruptedException {
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

    private static TetherOptions options(Map<String, ServiceProcess> services, String token) {
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

    /** The per-session checks, from the SDK's log and the workspace. */
    private void checkSessions(List<String> ids, Map<String, List<SessionEvent>> logs, Path workspaces, boolean chaos) throws IOException {
        if (ids.isEmpty()) {
            return;
        }
        System.out.printf("%n== checks (%s)%n", chaos ? "chaos sessions" : "reference sessions");
        long events = 0;
        int unknownResults = 0;
        int retries = 0;
        int resumedTotal = 0;
        int duplicatedEffects = 0;
        int lost = 0;
        int interruptedRuns = 0;
        for (String id : ids) {
            List<SessionEvent> log = logs.get(id);
            events += log.size();
            var problems = new ArrayList<String>();
            if (log.isEmpty() || !log.get(log.size() - 1).type().equals("session_closed")) {
                problems.add("not completed (the last event is not session_closed)");
                lost++;
            }
            for (int i = 0; i < log.size(); i++) {
                if (log.get(i).seq() != i + 1) {
                    problems.add("seq gap or reorder: position " + (i + 1) + " holds seq " + log.get(i).seq());
                    break;
                }
            }
            Set<String> eventIds = new TreeSet<>();
            log.forEach(e -> {
                if (!eventIds.add(e.eventId())) {
                    problems.add("eventId " + e.eventId() + " twice");
                }
            });
            // every call: results in order, all but the last UNKNOWN; settled by OK or by a MARK_DONE
            Map<String, List<String>> results = new HashMap<>();
            Map<String, List<String>> resolutions = new HashMap<>();
            for (SessionEvent e : log) {
                if (e.type().equals("tool_result")) {
                    results.computeIfAbsent(e.text("callId").orElse("?"), k -> new ArrayList<>()).add(e.text("status").orElse("?"));
                } else if (e.type().equals("tool_outcome_resolved")) {
                    resolutions.computeIfAbsent(e.text("callId").orElse("?"), k -> new ArrayList<>()).add(e.text("resolution").orElse("?"));
                }
            }
            var callIds = new ArrayList<String>();
            callIds.add("write-0");
            for (int r = 1; r <= config.rounds(); r++) {
                callIds.add("count-" + r);
                callIds.add("edit-" + r);
            }
            for (String callId : callIds) {
                List<String> statuses = results.getOrDefault(callId, List.of());
                List<String> resolved = resolutions.getOrDefault(callId, List.of());
                long unknown = statuses.stream().filter("UNKNOWN"::equals).count();
                unknownResults += (int) unknown;
                retries += (int) resolved.stream().filter("RETRY"::equals).count();
                boolean settledOk = !statuses.isEmpty() && statuses.get(statuses.size() - 1).equals("OK")
                        && unknown == statuses.size() - 1 && resolved.size() == unknown
                        && resolved.stream().allMatch("RETRY"::equals);
                boolean settledMarkDone = !statuses.isEmpty() && unknown == statuses.size() && resolved.size() == unknown
                        && resolved.get(resolved.size() - 1).equals("MARK_DONE")
                        && resolved.subList(0, resolved.size() - 1).stream().allMatch("RETRY"::equals);
                if (!settledOk && !settledMarkDone) {
                    problems.add(callId + ": results " + statuses + ", resolutions " + resolved
                            + " (expected OK, or UNKNOWN settled by a human: RETRY…, then OK or MARK_DONE)");
                }
            }
            // the calls of the interrupted turn: one CANCELLED result each, never authorized, never run
            if (config.rounds() >= 1) {
                for (String callId : List.of(ScriptedSession.STOPPED_COMMAND_CALL, ScriptedSession.STOPPED_READ_CALL)) {
                    List<String> statuses = results.getOrDefault(callId, List.of());
                    if (!statuses.equals(List.of("CANCELLED"))) {
                        problems.add(callId + " (its turn was interrupted): results " + statuses + ", expected exactly [CANCELLED]");
                    }
                    if (log.stream().anyMatch(e -> e.type().equals("tool_call_authorized") && e.text("callId").orElse("").equals(callId))) {
                        problems.add(callId + " (its turn was interrupted) was authorized");
                        interruptedRuns++;
                    }
                }
                if (Files.exists(workspaces.resolve(id).resolve(ScriptedSession.STOPPED_FILE))) {
                    problems.add(ScriptedSession.STOPPED_FILE + " exists: a command of an interrupted turn ran");
                    interruptedRuns++;
                }
            }
            // the effects: one line per round, the note at the last round
            Path count = workspaces.resolve(id).resolve(ScriptedSession.COUNT_FILE);
            int lines = Files.exists(count) ? Files.readAllLines(count).size() : 0;
            if (lines != config.rounds()) {
                problems.add("count.txt has " + lines + " line(s) for " + config.rounds() + " rounds (each counting command must take effect exactly once)");
                duplicatedEffects += Math.max(0, lines - config.rounds());
            }
            Path notes = workspaces.resolve(id).resolve(ScriptedSession.NOTES_FILE);
            String note = Files.exists(notes) ? Files.readString(notes) : "(missing)";
            if (!note.equals("round " + config.rounds() + "\n")) {
                problems.add("notes.txt holds " + note.strip() + ", expected round " + config.rounds());
            }
            for (String type : List.of("turn_interrupted", "context_compacted")) {
                if (log.stream().noneMatch(e -> e.type().equals(type))) {
                    problems.add("no " + type + " in the log");
                }
            }
            // every takeover (a claim by another worker) is exactly one session_resumed CRASH, right after its claim
            var claimers = new ArrayList<String>();
            int resumed = 0;
            for (int i = 0; i < log.size(); i++) {
                SessionEvent e = log.get(i);
                if (e.type().equals("session_claimed")) {
                    claimers.add(e.text("workerId").orElse("?"));
                    boolean followed = i + 1 < log.size() && log.get(i + 1).type().equals("session_resumed");
                    if (claimers.size() > 1 && !(followed && log.get(i + 1).text("reason").orElse("").equals("CRASH"))) {
                        problems.add("the takeover by " + claimers.get(claimers.size() - 1) + " at seq " + e.seq()
                                + " is not followed by a session_resumed CRASH");
                    }
                    if (claimers.size() == 1 && followed) {
                        problems.add("the first claim is followed by a session_resumed");
                    }
                } else if (e.type().equals("session_resumed")) {
                    resumed++;
                }
            }
            if (new TreeSet<>(claimers).size() != claimers.size()) {
                problems.add("a worker claimed the session twice: " + claimers);
            }
            if (resumed != Math.max(0, claimers.size() - 1)) {
                problems.add(resumed + " session_resumed for " + Math.max(0, claimers.size() - 1) + " takeover(s)");
            }
            if (!chaos && resumed > 0) {
                problems.add("a fault-free session has " + resumed + " session_resumed");
            }
            resumedTotal += resumed;
            if (chaos || !problems.isEmpty()) {
                System.out.printf("  %s %s: %d events, count.txt %d lines, %d claim(s), %d session_resumed, results %s%n",
                        problems.isEmpty() ? "✔" : "✘", id, log.size(), lines, claimers.size(), resumed, unknownSummary(results));
            }
            problems.forEach(p -> {
                System.out.println("      " + p);
                failures.add(id + ": " + p);
            });
        }
        System.out.printf("%n  %d sessions, %d events, %d session_resumed, %d UNKNOWN tool results (%d retried)%n", ids.size(), events,
                resumedTotal, unknownResults, retries);
        if (chaos) {
            figures.put("events", events);
            figures.put("session_resumed events (one per takeover)", resumedTotal);
            figures.put("UNKNOWN tool results", unknownResults);
            figures.put("UNKNOWN outcomes retried", retries);
            figures.put("sessions completed", ids.size() - lost);
            figures.put("lost", lost);
            figures.put("duplicated effects", duplicatedEffects);
            figures.put("calls of interrupted turns authorized or run", interruptedRuns);
        } else {
            figures.put("reference sessions (fault-free)", ids.size());
        }
    }

    private static String unknownSummary(Map<String, List<String>> results) {
        var unknown = new TreeMap<String, List<String>>();
        results.forEach((k, v) -> {
            if (v.contains("UNKNOWN")) {
                unknown.put(k, v);
            }
        });
        return unknown.isEmpty() ? "all OK" : "with UNKNOWN " + unknown;
    }

    private void checkRawLog(String prefix, Map<String, List<SessionEvent>> logs) {
        String topic = prefix + Topics.SESSION_EVENTS;
        RawTopics.LogCheck check = RawTopics.checkSessionEvents(topic, logs);
        System.out.printf("%n== raw %s: %d committed records of the run's sessions, %d problem(s)%n", topic, check.records(),
                check.problems().size());
        check.problems().forEach(p -> {
            System.out.println("  ✘ " + p);
            failures.add("raw log: " + p);
        });
        figures.put("session-events records read raw", check.records());
        figures.put("eventIds not exactly once in session-events", check.problems().size());
    }

    /**
     * Fields of a checkpoint that must differ between a chaos session and its fault-free twin, and why: the session's
     * id; seqs and offsets (claims and {@code session_resumed} events only exist because of faults, so every later
     * event has a higher seq); idempotency keys (they hold the requesting event's seq); the lease (another worker
     * holds it, at a higher epoch); times.
     */
    static final Pattern NORMALISED = Pattern.compile("sessionId|lastSeq|.*Seq|seq|.*Offset|partition|idempotencyKey|lease|.*At");

    private void compareCheckpoints(TetherClient agent, List<String> chaosIds, List<String> referenceIds,
                                    Map<String, List<SessionEvent>> logs) {
        int identical = 0;
        int rawIdentical = 0;
        var normalisedSeen = new TreeSet<String>();
        System.out.printf("%n== final checkpoints: chaos session vs. its fault-free twin%n");
        for (int i = 0; i < chaosIds.size(); i++) {
            String a = chaosIds.get(i);
            String b = referenceIds.get(i);
            Optional<Checkpoint> ca = agent.checkpoint(a, ReadAt.atLeast(lastSeq(logs.get(a))));
            Optional<Checkpoint> cb = agent.checkpoint(b, ReadAt.atLeast(lastSeq(logs.get(b))));
            if (ca.isEmpty() || cb.isEmpty()) {
                failures.add(a + ": no final checkpoint to compare");
                continue;
            }
            try {
                JsonNode ja = JSON.readTree(ca.get().json());
                JsonNode jb = JSON.readTree(cb.get().json());
                if (ja.equals(jb)) {
                    rawIdentical++;
                }
                JsonNode na = normalise(ja, normalisedSeen);
                JsonNode nb = normalise(jb, normalisedSeen);
                if (JSON.writeValueAsString(na).equals(JSON.writeValueAsString(nb))) {
                    identical++;
                } else {
                    failures.add(a + ": final checkpoint differs from its fault-free twin " + b + " (normalised): "
                            + differences(na, nb, "", new ArrayList<>()));
                }
            } catch (IOException e) {
                failures.add(a + ": checkpoint is not JSON: " + e.getMessage());
            }
        }
        System.out.printf("  %d of %d identical byte for byte after normalising %s%n", identical, chaosIds.size(), normalisedSeen);
        figures.put("final checkpoints identical to the fault-free run (normalised)", identical + " of " + chaosIds.size());
        figures.put("final checkpoints identical without normalising", rawIdentical + " of " + chaosIds.size());
        figures.put("checkpoint fields normalised", String.join(", ", normalisedSeen));
    }

    private static long lastSeq(List<SessionEvent> log) {
        return log.isEmpty() ? 0 : log.get(log.size() - 1).seq();
    }

    /**
     * A copy with every field {@link #NORMALISED} matches replaced by {@code "*"}, and without the traces of a human's
     * {@code tool_outcome_resolved} (an UNKNOWN outcome only exists because a fault hit a running command): its entry in
     * {@code decisions} and its line in the compaction's facts. What was normalised goes to {@code seen}.
     */
    static JsonNode normalise(JsonNode node, Set<String> seen) {
        if (node.isObject()) {
            ObjectNode copy = JSON.createObjectNode();
            node.fields().forEachRemaining(e -> {
                String key = e.getKey();
                JsonNode value = e.getValue();
                if (NORMALISED.matcher(key).matches()) {
                    seen.add(key);
                    copy.put(key, "*");
                } else if (key.equals("decisions") && value.isArray()) {
                    var kept = JSON.createArrayNode();
                    value.forEach(d -> {
                        if (d.path("kind").asText().equals("tool_outcome_resolved")) {
                            seen.add("decisions of kind tool_outcome_resolved");
                        } else {
                            kept.add(normalise(d, seen));
                        }
                    });
                    copy.set(key, kept);
                } else if (key.equals("facts") && value.isTextual() && value.asText().contains("- tool_outcome_resolved")) {
                    seen.add("tool_outcome_resolved lines of compaction.facts");
                    copy.put(key, value.asText().lines().filter(l -> !l.startsWith("- tool_outcome_resolved"))
                            .collect(java.util.stream.Collectors.joining("\n")));
                } else {
                    copy.set(key, normalise(value, seen));
                }
            });
            return copy;
        }
        if (node.isArray()) {
            var copy = JSON.createArrayNode();
            node.forEach(n -> copy.add(normalise(n, seen)));
            return copy;
        }
        return node;
    }

    /** The paths where {@code a} and {@code b} differ (at most a few), for the failure message. */
    static List<String> differences(JsonNode a, JsonNode b, String path, List<String> out) {
        if (out.size() >= 5) {
            return out;
        }
        if (a.isObject() && b.isObject()) {
            var keys = new TreeSet<String>();
            a.fieldNames().forEachRemaining(keys::add);
            b.fieldNames().forEachRemaining(keys::add);
            for (String k : keys) {
                differences(a.path(k), b.path(k), path + "." + k, out);
            }
        } else if (a.isArray() && b.isArray() && a.size() == b.size()) {
            for (int i = 0; i < a.size(); i++) {
                differences(a.get(i), b.get(i), path + "[" + i + "]", out);
            }
        } else if (!a.equals(b)) {
            out.add(path + ": " + clip(a.toString()) + " vs. " + clip(b.toString()));
        }
        return out;
    }

    private static String clip(String s) {
        return s.length() > 300 ? s.substring(0, 300) + "…" : s;
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
