package dev.tether.reliability;

import dev.tether.testing.ProcessControl;
import dev.tether.testing.ServiceProcess;
import dev.tether.testing.TetherStack;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;

/**
 * Seeded faults. Until it has injected {@code target} faults (or is stopped), it waits a random pause and injects one
 * fault of a kind drawn with {@code java.util.Random(seed)}: the first faults go through every kind once, in a seeded
 * order, then kinds are drawn by weight.
 *
 * <ul>
 *   <li>{@code SIGKILL <service>}: SIGKILL, down for a random delay, restart on the same port and state directory,
 *       wait until ready;</li>
 *   <li>{@code SIGKILL worker}: SIGKILL of a worker process; the {@link WorkerPool} starts its successor, which takes
 *       the sessions over;</li>
 *   <li>{@code SIGKILL kafka}: SIGKILL of the broker, down for a random delay, restart on the same data directory;
 *       then every service must be ready again;</li>
 *   <li>{@code SIGKILL registry}: SIGKILL of the schema registry, down for a random delay, restart on the same port
 *       and storage (its H2 file: the schema ids stay); then every service must be ready again by itself;</li>
 *   <li>{@code SIGSTOP registry}: the registry frozen for {@link #REGISTRY_STOP_MILLIS} (it keeps its connections and
 *       answers nothing: every lookup meets its deadline), then SIGCONT; then every service must be ready again;</li>
 *   <li>{@code SIGSTOP <service>}: stopped for {@link #SERVICE_STOP_MILLIS} (longer than the services' Kafka session
 *       timeout, 15 s), then SIGCONT; it must be ready again;</li>
 *   <li>{@code SIGSTOP worker}: stopped longer than the pool's worker timeout; the pool replaces it; then SIGCONT: it
 *       must find itself fenced and exit.</li>
 * </ul>
 *
 * A tool-executor is killed while it runs a command (it waits up to 10 s for one), so its outcome is left unknown.
 * Recoveries run in the background, so faults overlap, but never two on the same victim, and the broker goes down
 * only when everything else is up. The seed fixes the kinds, victims, pauses and down times; the timing of the
 * sessions around them is not fixed. Runs on its own thread.
 */
final class FaultInjector implements Runnable {

    static final long SERVICE_STOP_MILLIS = 20_000;
    /** How long a frozen registry stays frozen: issue 15's 60 s, well past every registry deadline. */
    static final long REGISTRY_STOP_MILLIS = 60_000;
    static final long WORKER_STOP_MILLIS = WorkerPool.WORKER_TIMEOUT_MILLIS + 5_000;
    /** How often a killed service is started before its fault counts as not recovered. */
    static final int START_ATTEMPTS = 3;
    static final List<String> SERVICES = List.of("session-service", "projector-service", "approval-service", "tool-executor");

    /** One injected fault, as printed and checked. */
    record Fault(int number, Instant at, String kind, String victim, long downMillis, long recoverMillis, String error) {
    }

    /** The registry's faults, only in runs that ask for them ({@code ChaosRun.Config#registryFaults}). */
    static final List<String> REGISTRY_FAULTS = List.of("SIGKILL registry", "SIGSTOP registry");

    private final Map<String, Integer> weights;

    private final Map<String, ServiceProcess> services;
    private final WorkerPool workers;
    private final TetherStack stack;
    private final Random random;
    private final int target;
    private final Duration pauseMin;
    private final Duration pauseMax;
    private final Duration downMax;
    private final List<Fault> faults = new ArrayList<>();
    private final List<String> failedStarts = new ArrayList<>();
    private volatile boolean running = true;
    /** Set when the run is torn down (Ctrl-C): no victim is restarted any more. */
    private volatile boolean aborted;

    FaultInjector(Map<String, ServiceProcess> services, WorkerPool workers, TetherStack stack, long seed, int target,
                  Duration pauseMin, Duration pauseMax, Duration downMax, boolean registryFaults) {
        this.services = new LinkedHashMap<>(services);
        this.workers = workers;
        this.stack = stack;
        this.random = new Random(seed);
        this.target = target;
        this.pauseMin = pauseMin;
        this.pauseMax = pauseMax;
        this.downMax = downMax;
        this.weights = weights();
        if (!registryFaults) {
            REGISTRY_FAULTS.forEach(this.weights::remove);
        }
    }

    private static Map<String, Integer> weights() {
        var w = new LinkedHashMap<String, Integer>();
        w.put("SIGKILL tool-executor", 4);
        w.put("SIGKILL session-service", 2);
        w.put("SIGKILL projector-service", 2);
        w.put("SIGKILL approval-service", 2);
        w.put("SIGKILL worker", 4);
        w.put("SIGKILL kafka", 1);
        w.put("SIGKILL registry", 1);
        w.put("SIGSTOP registry", 1);
        w.put("SIGSTOP service", 1);
        w.put("SIGSTOP worker", 1);
        return w;
    }

    /** Every kind of fault the injector knows. */
    static List<String> kinds() {
        return List.copyOf(weights().keySet());
    }

    /** No new fault; the ones under way still recover (the run goes on to its checks). */
    void stop() {
        running = false;
    }

    /** No new fault and no more restarts: the run is being torn down, its processes are about to be stopped. */
    void abort() {
        aborted = true;
        running = false;
    }

    synchronized List<Fault> faults() {
        return List.copyOf(faults);
    }

    @Override
    public void run() {
        var firstRound = new ArrayList<>(weights.keySet());
        Collections.shuffle(firstRound, random);
        int total = weights.values().stream().mapToInt(Integer::intValue).sum();
        int injected = 0;
        while (running && injected < target) {
            long pauseEnd = System.nanoTime() + between(pauseMin.toMillis(), pauseMax.toMillis()) * 1_000_000;
            while (running && System.nanoTime() < pauseEnd) {
                if (!sleep(100)) {
                    return;
                }
            }
            if (!running) {
                break;
            }
            String kind;
            if (!firstRound.isEmpty()) {
                kind = firstRound.remove(0);
            } else {
                int draw = random.nextInt(total);
                kind = null;
                for (var e : weights.entrySet()) {
                    draw -= e.getValue();
                    if (draw < 0) {
                        kind = e.getKey();
                        break;
                    }
                }
            }
            long down = between(0, downMax.toMillis());
            String serviceForStop = SERVICES.get(random.nextInt(SERVICES.size()));
            if (!inject(injected + 1, kind, down, serviceForStop)) {
                continue; // no live worker to hit: the draw is spent, the next one may hit something else
            }
            injected++;
        }
        awaitRecoveries();
    }

    /** Service and worker faults recover in the background, so faults overlap; these are the recoveries under way. */
    private final Map<String, Thread> recovering = new LinkedHashMap<>();

    private synchronized boolean busy(String victim) {
        recovering.values().removeIf(t -> !t.isAlive());
        return victim == null ? !recovering.isEmpty() : recovering.containsKey(victim);
    }

    private void awaitFree(String victim) {
        while (busy(victim)) {
            sleep(100);
        }
    }

    /** Waits until every fault injected has recovered (the victim restarted, resumed or replaced). */
    void awaitRecoveries() {
        awaitFree(null);
    }

    private synchronized void background(String victim, Runnable recovery) {
        Thread t = new Thread(recovery, "chaos-recover-" + victim);
        recovering.put(victim, t);
        t.start();
    }

    private void record(int number, Instant at, String kind, String victim, long down, long t0, String error) {
        var fault = new Fault(number, at, kind, victim, down, (System.nanoTime() - t0) / 1_000_000, error);
        synchronized (this) {
            faults.add(fault);
        }
        System.out.printf("[fault %d] %s%s, down %d ms, recovered in %d ms%s%n", fault.number(), fault.kind(),
                fault.kind().endsWith(fault.victim()) ? "" : " (" + fault.victim() + ")",
                fault.downMillis(), fault.recoverMillis(), fault.error().isEmpty() ? "" : ", FAILED: " + fault.error());
    }

    /** Injects one fault; its recovery runs in the background, except for the broker's. False if there was no victim. */
    private boolean inject(int number, String kind, long down, String serviceForStop) {
        Instant at = Instant.now();
        switch (kind) {
            case "SIGKILL worker" -> {
                Optional<WorkerPool.Victim> v = workers.pick(random);
                if (v.isEmpty()) {
                    return false;
                }
                workers.kill(v.get()); // the pool starts its successor
                record(number, at, kind, v.get().name(), 0, System.nanoTime(), "");
            }
            case "SIGSTOP worker" -> {
                Optional<WorkerPool.Victim> v = workers.pick(random);
                if (v.isEmpty()) {
                    return false;
                }
                long pid = v.get().process().pid();
                ProcessControl.signal(pid, "STOP");
                background("worker-" + pid, () -> {
                    sleep(WorkerPool.WORKER_TIMEOUT_MILLIS);
                    workers.replace(v.get()); // presumed dead: a new worker takes its sessions over
                    sleep(WORKER_STOP_MILLIS - WorkerPool.WORKER_TIMEOUT_MILLIS);
                    long t0 = System.nanoTime();
                    ProcessControl.signal(pid, "CONT"); // it wakes up fenced
                    record(number, at, kind, v.get().name(), WORKER_STOP_MILLIS, t0, "");
                });
            }
            case "SIGKILL kafka" -> {
                awaitFree(null); // the broker goes down alone: every service up, so recovering it is the services' own doing
                stack.killBroker();
                sleep(down);
                if (aborted) {
                    return true;
                }
                long t0 = System.nanoTime();
                String error;
                try {
                    stack.restartBroker();
                    error = awaitServicesReady();
                } catch (RuntimeException e) {
                    error = String.valueOf(e.getMessage());
                }
                record(number, at, kind, "broker", down, t0, error);
            }
            case "SIGKILL registry", "SIGSTOP registry" -> {
                awaitFree(null); // the registry goes away alone, as the broker does
                boolean frozen = kind.startsWith("SIGSTOP");
                long away = frozen ? REGISTRY_STOP_MILLIS : down;
                if (frozen) {
                    stack.freezeRegistry(true);
                } else {
                    stack.killRegistry();
                }
                sleep(away);
                if (aborted) {
                    if (frozen) {
                        stack.freezeRegistry(false);
                    }
                    return true;
                }
                long t0 = System.nanoTime();
                String error;
                try {
                    if (frozen) {
                        stack.freezeRegistry(false);
                    } else {
                        stack.restartRegistry();
                    }
                    error = awaitServicesReady();
                } catch (RuntimeException e) {
                    error = String.valueOf(e.getMessage());
                }
                record(number, at, kind, "registry", away, t0, error);
            }
            case "SIGSTOP service" -> {
                awaitFree(serviceForStop);
                ServiceProcess service = services.get(serviceForStop);
                ProcessControl.signal(service.pid(), "STOP");
                background(serviceForStop, () -> {
                    sleep(SERVICE_STOP_MILLIS);
                    long t0 = System.nanoTime();
                    ProcessControl.signal(service.pid(), "CONT");
                    record(number, at, kind, serviceForStop, SERVICE_STOP_MILLIS, t0, awaitReady(serviceForStop));
                });
            }
            default -> {
                String victim = kind.substring("SIGKILL ".length());
                awaitFree(victim);
                ServiceProcess service = services.get(victim);
                if (victim.equals("tool-executor")) {
                    awaitRunningCommand(service);
                }
                service.kill();
                background(victim, () -> {
                    sleep(down);
                    if (aborted) {
                        return;
                    }
                    long t0 = System.nanoTime();
                    record(number, at, kind, victim, down, t0, startLikeASupervisor(victim, service));
                });
            }
        }
        return true;
    }

    /**
     * Starts a killed service again as its supervisor would (Kubernetes' restart policy, compose's
     * {@code restart: unless-stopped}): a start that fails (the process exits, or is not ready within 2 minutes) is
     * recorded in {@link #failedStarts()} with the tail of its log and tried again after a back-off, up to
     * {@link #START_ATTEMPTS} times. The error text of the last attempt if none succeeded, else empty.
     */
    private String startLikeASupervisor(String victim, ServiceProcess service) {
        String error = "";
        for (int attempt = 1; attempt <= START_ATTEMPTS && !aborted; attempt++) {
            try {
                service.start();
                return "";
            } catch (RuntimeException e) {
                error = String.valueOf(e.getMessage());
                service.kill(); // not ready in time: it must not hold the port and the state directory for the next try
                String failed = victim + " start " + attempt + " of " + START_ATTEMPTS + " failed: " + error
                        + logTail(service.log());
                synchronized (this) {
                    failedStarts.add(failed);
                }
                System.out.printf("[restart] %s%n", failed);
                sleep(2_000L * attempt);
            }
        }
        return error;
    }

    /** The last lines of a service's log that say why it stopped: its ERROR lines, or its last three lines. */
    private static String logTail(java.nio.file.Path log) {
        try {
            List<String> lines = java.nio.file.Files.readAllLines(log);
            int from = 0;
            for (int i = lines.size() - 1; i >= 0; i--) {
                if (lines.get(i).startsWith("---- start ")) {
                    from = i;
                    break;
                }
            }
            List<String> run = lines.subList(from, lines.size());
            List<String> errors = run.stream().filter(l -> l.contains("ERROR")).toList();
            List<String> tail = errors.isEmpty() ? run.subList(Math.max(0, run.size() - 3), run.size()) : errors.subList(
                    Math.max(0, errors.size() - 3), errors.size());
            return tail.isEmpty() ? "" : "\n      " + String.join("\n      ", tail);
        } catch (java.io.IOException | RuntimeException e) {
            return "";
        }
    }

    /** Every service start that failed and was tried again, with the reason from its log. */
    synchronized List<String> failedStarts() {
        return List.copyOf(failedStarts);
    }

    /**
     * Waits (up to 10 s) until the tool-executor runs a command (a child process: the counting command sleeps 2 s), so
     * the kill lands mid-command and leaves an outcome the executor cannot know after its restart: UNKNOWN.
     */
    private static void awaitRunningCommand(ServiceProcess executor) {
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (System.nanoTime() < deadline) {
            boolean running = ProcessHandle.of(executor.pid()).map(p -> p.descendants().findAny().isPresent()).orElse(false);
            if (running) {
                return;
            }
            sleep(50);
        }
    }

    private String awaitReady(String name) {
        long deadline = System.nanoTime() + Duration.ofMinutes(2).toNanos();
        while (!Health.ready(services.get(name).baseUrl())) {
            if (System.nanoTime() > deadline) {
                return name + " not ready 2 minutes after the fault";
            }
            sleep(250);
        }
        return "";
    }

    /** Waits until every service answers ready again (after a broker restart or a SIGCONT); an error text if not. */
    private String awaitServicesReady() {
        long deadline = System.nanoTime() + Duration.ofMinutes(2).toNanos();
        for (var e : services.entrySet()) {
            while (!Health.ready(e.getValue().baseUrl())) {
                if (System.nanoTime() > deadline) {
                    return e.getKey() + " not ready 2 minutes after the fault";
                }
                sleep(250);
            }
        }
        return "";
    }

    private long between(long min, long max) {
        return min + (long) (random.nextDouble() * (max - min));
    }

    private static boolean sleep(long millis) {
        try {
            Thread.sleep(millis);
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }
}
