package dev.tether.reliability;

import dev.tether.testing.ProcessControl;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.TimeUnit;

/**
 * The chaos run's worker processes ({@link ChaosWorker}): the sessions in groups, one worker process per group. A
 * supervisor thread keeps every group worked on: when a group's worker process dies (the {@link FaultInjector}
 * SIGKILLed it), it starts a new worker process, under a new worker id, that claims the group's sessions again — a
 * takeover, which the session-service must record as {@code session_resumed} CRASH. A worker process that was
 * SIGSTOPped longer than {@link #WORKER_TIMEOUT_MILLIS} is presumed dead and replaced the same way; when it is resumed
 * it must find itself fenced. Thread-safe.
 */
final class WorkerPool implements AutoCloseable {

    /** How long a worker may be unresponsive before the pool replaces it, like a lease running out. */
    static final long WORKER_TIMEOUT_MILLIS = 10_000;

    /** The sessions of one worker process, and its successive processes (generations). */
    private static final class Group {
        final int number;
        final List<String> sessions; // id:number
        Process current;
        int generation;
        boolean done;
        final List<Process> superseded = new ArrayList<>();

        Group(int number, List<String> sessions) {
            this.number = number;
            this.sessions = sessions;
        }
    }

    private final List<String> baseCommand;
    private final String runId;
    private final Path logDir;
    private final List<Group> groups = new ArrayList<>();
    private final Thread supervisor;
    private volatile boolean running = true;
    private int takeovers;
    private int abnormalExits;

    /**
     * @param classpath the classpath of {@link ChaosWorker}
     * @param workerArgs the options every worker gets (endpoints, rounds, pacing, give-up time)
     * @param sessions   {@code id:number} of every session
     */
    WorkerPool(String classpath, List<String> workerArgs, String runId, List<String> sessions, int sessionsPerWorker, Path logDir) {
        var command = new ArrayList<String>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.add("-Xmx96m");
        command.add("-XX:TieredStopAtLevel=1");
        command.add("-Dorg.slf4j.simpleLogger.defaultLogLevel=warn");
        command.add("-cp");
        command.add(classpath);
        command.add(ChaosWorker.class.getName());
        command.addAll(workerArgs);
        this.baseCommand = List.copyOf(command);
        this.runId = runId;
        this.logDir = logDir;
        for (int i = 0; i < sessions.size(); i += sessionsPerWorker) {
            groups.add(new Group(groups.size() + 1, List.copyOf(sessions.subList(i, Math.min(sessions.size(), i + sessionsPerWorker)))));
        }
        this.supervisor = new Thread(this::supervise, "chaos-worker-pool");
        this.supervisor.setDaemon(true);
    }

    void start() {
        synchronized (this) {
            groups.forEach(this::startGeneration);
        }
        supervisor.start();
    }

    int workerProcesses() {
        return groups.size();
    }

    synchronized int takeovers() {
        return takeovers;
    }

    synchronized boolean allDone() {
        return groups.stream().allMatch(g -> g.done);
    }

    /** A live worker process, picked with {@code random}: its PID and its group, for a fault. */
    synchronized Optional<Victim> pick(Random random) {
        List<Group> live = groups.stream().filter(g -> !g.done && g.current != null && g.current.isAlive()).toList();
        if (live.isEmpty()) {
            return Optional.empty();
        }
        Group g = live.get(random.nextInt(live.size()));
        return Optional.of(new Victim(g.number, g.current));
    }

    record Victim(int group, Process process) {
        String name() {
            return "worker " + group + " (pid " + process.pid() + ")";
        }
    }

    /** SIGKILL of the victim; the supervisor starts its successor. */
    void kill(Victim victim) {
        victim.process().destroyForcibly();
        try {
            victim.process().waitFor(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** The victim is stopped and presumed dead: a new worker process takes its sessions over at once. */
    synchronized void replace(Victim victim) {
        Group g = groups.get(victim.group() - 1);
        if (g.current == victim.process()) {
            g.superseded.add(g.current);
            takeovers++;
            startGeneration(g);
        }
    }

    /** Waits for superseded (fenced) workers to exit; true if each exited by itself within the timeout. */
    boolean awaitSuperseded(long timeoutMillis) throws InterruptedException {
        long deadline = System.currentTimeMillis() + timeoutMillis;
        List<Process> all;
        synchronized (this) {
            all = groups.stream().flatMap(g -> g.superseded.stream()).toList();
        }
        boolean ok = true;
        for (Process p : all) {
            ok &= p.waitFor(Math.max(1, deadline - System.currentTimeMillis()), TimeUnit.MILLISECONDS);
        }
        return ok;
    }

    synchronized int abnormalExits() {
        return abnormalExits;
    }

    private void supervise() {
        while (running) {
            synchronized (this) {
                for (Group g : groups) {
                    if (g.done || g.current == null || g.current.isAlive()) {
                        continue;
                    }
                    if (g.current.exitValue() == 0) {
                        g.done = true; // every session closed (or taken over, which the checks will see)
                    } else {
                        if (g.current.exitValue() != 137) {
                            abnormalExits++; // gave up, or crashed by itself: not a fault we injected
                        }
                        takeovers++;
                        startGeneration(g);
                    }
                }
            }
            try {
                Thread.sleep(200);
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    private void startGeneration(Group g) {
        g.generation++;
        String workerId = runId + "-w" + g.number + "-gen" + g.generation;
        var command = new ArrayList<>(baseCommand);
        command.add(1, "-Dchaos.worker=" + workerId);
        command.addAll(List.of("--worker", workerId));
        command.addAll(g.sessions);
        try {
            Files.createDirectories(logDir);
            g.current = new ProcessBuilder(command).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(logDir.resolve("worker-" + g.number + ".log").toFile()))
                    .start();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Every worker process still running is SIGKILLed (they are stopped at the end of a run, or on Ctrl-C). */
    @Override
    public synchronized void close() {
        running = false;
        supervisor.interrupt();
        for (Group g : groups) {
            List<Process> all = new ArrayList<>(g.superseded);
            if (g.current != null) {
                all.add(g.current);
            }
            for (Process p : all) {
                if (p.isAlive()) {
                    ProcessControl.signal(p.pid(), "CONT");
                    p.destroyForcibly();
                }
            }
        }
    }
}
