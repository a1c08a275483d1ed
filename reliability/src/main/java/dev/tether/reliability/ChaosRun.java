package dev.tether.reliability;

import dev.tether.client.CreateResult;
import dev.tether.client.Created;
import dev.tether.client.NewSession;
import dev.tether.client.RetryPolicy;
import dev.tether.client.SessionEvent;
import dev.tether.client.TetherClient;
import dev.tether.client.TetherOptions;
import dev.tether.client.ToolMode;
import dev.tether.testing.ServiceProcess;
import dev.tether.testing.TetherStack;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

/**
 * The chaos run (issue 8, first pass): starts its own broker and registry ({@code deploy/local/stack}, free loopback
 * ports) and the four packaged services, runs N concurrent {@link ScriptedSession}s through the SDK with a
 * {@link ScriptedHuman} deciding approvals, while a seeded {@link FaultInjector} SIGKILLs and restarts the services;
 * then stops the faults, lets the sessions finish, checks the log and the workspaces, and prints the results.
 *
 * <p>Usage: {@code ChaosRun [--seed N] [--sessions N] [--minutes M]}. Exit 0 only if every check passes. Every process
 * it starts is stopped by PID, also on Ctrl-C.
 */
public final class ChaosRun {

    private final long seed;
    private final int sessionCount;
    private final double minutes;
    private final List<String> failures = new ArrayList<>();

    private ChaosRun(long seed, int sessionCount, double minutes) {
        this.seed = seed;
        this.sessionCount = sessionCount;
        this.minutes = minutes;
    }

    public static void main(String[] args) {
        long seed = System.currentTimeMillis() % 100_000;
        int sessions = 8;
        double minutes = 3;
        for (int i = 0; i + 1 < args.length; i += 2) {
            switch (args[i]) {
                case "--seed" -> seed = Long.parseLong(args[i + 1]);
                case "--sessions" -> sessions = Integer.parseInt(args[i + 1]);
                case "--minutes" -> minutes = Double.parseDouble(args[i + 1]);
                default -> {
                    System.err.println("usage: reliability/run [--seed N] [--sessions N] [--minutes M]");
                    System.exit(2);
                }
            }
        }
        int status;
        try {
            status = new ChaosRun(seed, sessions, minutes).run() ? 0 : 1;
        } catch (Exception e) {
            e.printStackTrace();
            status = 1;
        }
        // the stack's shutdown hook stops the broker and the registry by their PIDs
        System.exit(status);
    }

    private boolean run() throws Exception {
        System.out.printf("chaos run: seed %d, %d sessions, %.1f minutes of faults%n", seed, sessionCount, minutes);
        TetherStack stack = TetherStack.shared();
        Path root = Path.of(System.getProperty("tether-test.root", ".")).toAbsolutePath().normalize();
        Path workDir = Files.createDirectories(root.resolve("reliability/target/chaos-" + seed + "-" + System.currentTimeMillis()));
        Path workspaces = Files.createDirectories(workDir.resolve("workspaces"));
        String prefix = "chaos-" + UUID.randomUUID().toString().substring(0, 8) + ".";
        var env = ServiceProcess.env("TETHER_TOPICS_PREFIX", prefix, "TETHER_WORKSPACE_ROOT", workspaces.toString(),
                "TETHER_SESSIONS_BLOBS_DIR", workDir.resolve("blobs").toString());
        var services = new LinkedHashMap<String, ServiceProcess>();
        for (String name : List.of("session-service", "projector-service", "approval-service", "tool-executor")) {
            services.put(name, new ServiceProcess(root.resolve(name), workDir.resolve(name), env, List.of("-Dquarkus.http.host=127.0.0.1")));
        }
        // Ctrl-C: the services go too (the stack has its own hook)
        Thread hook = new Thread(() -> services.values().forEach(ServiceProcess::stop), "chaos-services-stop");
        Runtime.getRuntime().addShutdownHook(hook);
        try {
            for (var e : services.entrySet()) {
                long t0 = System.nanoTime();
                e.getValue().start();
                System.out.printf("%s ready at %s in %d ms (log %s)%n", e.getKey(), e.getValue().baseUrl(),
                        (System.nanoTime() - t0) / 1_000_000, root.relativize(e.getValue().log()));
            }
            return play(services, workspaces);
        } finally {
            services.values().forEach(ServiceProcess::stop);
            Runtime.getRuntime().removeShutdownHook(hook);
        }
    }

    private boolean play(Map<String, ServiceProcess> services, Path workspaces) throws Exception {
        try (TetherClient agent = TetherClient.create(options(services, "dev-acme-agent"));
             TetherClient human = TetherClient.create(options(services, "dev-acme-approver"))) {
            var sessions = new ArrayList<ScriptedSession>();
            long start = System.nanoTime();
            long faultsEnd = start + (long) (minutes * 60e9);
            long giveUpAt = faultsEnd + TimeUnit.MINUTES.toNanos(4);
            String runId = "chaos-" + seed + "-" + Long.toString(System.currentTimeMillis() % 1_000_000, 36);
            for (int i = 1; i <= sessionCount; i++) {
                String id = runId + "-s" + i;
                CreateResult created = agent.createSession(NewSession.of("chaos session " + i, "chaos-model", ToolMode.WRITE)
                        .withSessionId(id).withHarnessVersion("v1"));
                if (!(created instanceof Created)) {
                    throw new IllegalStateException("could not create " + id + ": " + created);
                }
                sessions.add(new ScriptedSession(agent, id, faultsEnd, giveUpAt));
            }
            var ids = new HashSet<String>();
            sessions.forEach(s -> ids.add(s.sessionId()));
            var humanScript = new ScriptedHuman(human, ids, workspaces);
            var humanThread = new Thread(humanScript, "chaos-human");
            humanThread.setDaemon(true);
            humanThread.start();
            var injector = new FaultInjector(services, seed, Duration.ofSeconds(2), Duration.ofSeconds(8));
            var injectorThread = new Thread(injector, "chaos-faults");
            injectorThread.start();
            var threads = new ArrayList<Thread>();
            for (ScriptedSession s : sessions) {
                Thread t = new Thread(s, s.sessionId());
                t.setDaemon(true);
                t.start();
                threads.add(t);
            }
            // faults stop when the rounds stop; the injector finishes its current fault (a restart) first
            Thread.sleep(Math.max(0, (faultsEnd - System.nanoTime()) / 1_000_000));
            injector.stop();
            injectorThread.join(TimeUnit.MINUTES.toMillis(3));
            for (var e : services.entrySet()) {
                if (!e.getValue().isAlive()) {
                    System.out.println("restarting " + e.getKey() + " (down when the faults stopped)");
                    e.getValue().start();
                }
            }
            for (Thread t : threads) {
                t.join(Math.max(1, (giveUpAt - System.nanoTime()) / 1_000_000));
            }
            humanScript.stop();
            List<FaultInjector.Fault> faults = injector.faults();
            printFaults(faults);
            System.out.printf("%nhuman: %d approvals granted, %d UNKNOWN outcomes resolved, %d polls failed (service down)%n",
                    humanScript.approvals(), humanScript.unknowns(), humanScript.errors());
            check(sessions, agent, workspaces);
            System.out.println();
            System.out.println(failures.isEmpty() ? "== chaos run PASSED" : "== chaos run FAILED: " + failures.size() + " check(s)");
            failures.forEach(f -> System.out.println("  ✘ " + f));
            return failures.isEmpty();
        }
    }

    private static TetherOptions options(Map<String, ServiceProcess> services, String token) {
        return TetherOptions.of(URI.create(services.get("session-service").baseUrl()),
                        URI.create(services.get("projector-service").baseUrl()), URI.create(services.get("approval-service").baseUrl()))
                .withToken(token).withTimeout(Duration.ofSeconds(20))
                .withRetry(RetryPolicy.of(20, Duration.ofMillis(250), Duration.ofSeconds(3)));
    }

    private void printFaults(List<FaultInjector.Fault> faults) {
        var byService = new TreeMap<String, Integer>();
        faults.forEach(f -> byService.merge(f.service(), 1, Integer::sum));
        System.out.printf("%nfaults injected: %d SIGKILL + restart %s%n", faults.size(), byService);
        faults.stream().filter(f -> !f.error().isEmpty())
                .forEach(f -> failures.add("fault " + f.number() + ": " + f.service() + " did not restart: " + f.error()));
    }

    private void check(List<ScriptedSession> sessions, TetherClient agent, Path workspaces) throws IOException {
        System.out.println();
        System.out.println("== checks");
        long events = 0;
        int takeovers = 0;
        int unknownResults = 0;
        for (ScriptedSession s : sessions) {
            String id = s.sessionId();
            takeovers += s.workers() - 1;
            List<SessionEvent> log = agent.allEvents(id).orElseThrow();
            events += log.size();
            var problems = new ArrayList<String>();
            if (!s.closed() || log.isEmpty() || !log.get(log.size() - 1).type().equals("session_closed")) {
                problems.add("not completed (script closed: " + s.closed() + ", last error: " + s.lastError() + ")");
            }
            for (int i = 0; i < log.size(); i++) {
                if (log.get(i).seq() != i + 1) {
                    problems.add("seq gap or reorder: position " + (i + 1) + " holds seq " + log.get(i).seq());
                    break;
                }
            }
            Set<String> eventIds = new HashSet<>();
            log.forEach(e -> {
                if (!eventIds.add(e.eventId())) {
                    problems.add("eventId " + e.eventId() + " twice");
                }
            });
            // tool calls asked for and their results
            Map<String, List<String>> results = new HashMap<>();
            for (SessionEvent e : log) {
                if (e.type().equals("tool_result")) {
                    results.computeIfAbsent(e.text("callId").orElse("?"), k -> new ArrayList<>()).add(e.text("status").orElse("?"));
                }
            }
            int rounds = 0;
            for (String callId : results.keySet()) {
                if (callId.startsWith("count-")) {
                    rounds = Math.max(rounds, Integer.parseInt(callId.substring(6)));
                }
            }
            int countOk = 0;
            int countUnknown = 0;
            for (int r = 1; r <= rounds; r++) {
                for (String callId : List.of("count-" + r, "edit-" + r)) {
                    List<String> statuses = results.getOrDefault(callId, List.of());
                    if (statuses.size() != 1) {
                        problems.add(callId + " has " + statuses.size() + " tool_result(s) " + statuses);
                    }
                    if (callId.startsWith("count-")) {
                        countOk += statuses.contains("OK") ? 1 : 0;
                        countUnknown += statuses.contains("UNKNOWN") ? 1 : 0;
                    }
                    unknownResults += statuses.contains("UNKNOWN") ? 1 : 0;
                }
            }
            if (results.getOrDefault("write-0", List.of()).size() != 1) {
                problems.add("write-0 has " + results.getOrDefault("write-0", List.of()) + " tool_result(s)");
            }
            Path count = workspaces.resolve(id).resolve(ScriptedSession.COUNT_FILE);
            int lines = Files.exists(count) ? Files.readAllLines(count).size() : 0;
            if (lines < countOk || lines > countOk + countUnknown) {
                problems.add("count.txt has " + lines + " line(s) for " + countOk + " OK and " + countUnknown
                        + " UNKNOWN run(s) of the counting command (rounds " + rounds + ")");
            }
            Path notes = workspaces.resolve(id).resolve(ScriptedSession.NOTES_FILE);
            String note = Files.exists(notes) ? Files.readString(notes) : "(missing)";
            if (!note.equals("round " + rounds + "\n")) {
                problems.add("notes.txt holds " + note.strip() + ", expected round " + rounds);
            }
            boolean interrupted = log.stream().anyMatch(e -> e.type().equals("turn_interrupted"));
            if (!interrupted) {
                problems.add("no turn_interrupted in the log");
            }
            long resumed = log.stream().filter(e -> e.type().equals("session_resumed")).count();
            System.out.printf("  %s %s: %d events, %d rounds, count.txt %d lines, %d takeover(s), %d session_resumed%n",
                    problems.isEmpty() ? "✔" : "✘", id, log.size(), rounds, lines, s.workers() - 1, resumed);
            problems.forEach(p -> {
                System.out.println("      " + p);
                failures.add(id + ": " + p);
            });
        }
        System.out.printf("%n  %d sessions, %d events, %d takeovers by a new worker, %d UNKNOWN tool results%n",
                sessions.size(), events, takeovers, unknownResults);
    }
}
