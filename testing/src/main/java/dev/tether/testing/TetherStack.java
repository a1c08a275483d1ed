package dev.tether.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.testcontainers.DockerClientFactory;

/**
 * One real Kafka broker and one real Apicurio Registry for the whole test JVM.
 *
 * <p>{@link #shared()} starts them on first use and stops them when the JVM exits. With a Docker
 * engine they run in Testcontainers; without one (the default on the build machines) the
 * project's own launcher, {@code deploy/local/stack}, runs them as child processes on free
 * loopback ports, with the registry in an H2 file under its
 * temporary directory (so a registry killed and restarted keeps its schema ids). The launcher is told this JVM's PID, so even a
 * test JVM killed with SIGKILL leaves no broker or registry behind. Choose with the system
 * property {@code tether-test.stack} = {@code auto} (default) | {@code local} | {@code docker}.
 *
 * <p>{@link #cluster()} is a second stack of the same JVM, local only: three KRaft brokers (each also one of the 3
 * voters of the controller quorum) set up as production is, replication factor 3 and {@code min.insync.replicas=2}
 * for every topic, the internal ones included, for tests that kill brokers ({@link #killBroker(int)}).
 *
 * <p>Never a mock: every {@code *IT} talks to these real processes. Thread-safe.
 */
public abstract class TetherStack {

    private static final Logger LOG = LoggerFactory.getLogger(TetherStack.class);
    private static TetherStack shared;
    private static TetherStack cluster;

    /** Bootstrap servers of the broker, e.g. {@code 127.0.0.1:41234}. */
    public abstract String bootstrapServers();

    /** Base URL of the registry's Apicurio v3 API (what the serdes use). */
    public abstract String registryUrl();

    /** Base URL of the registry's Confluent-compatible API. */
    public abstract String ccompatUrl();

    /** Stops the broker and the registry; called once, when the JVM exits. */
    abstract void stop();

    /** The stack of this JVM, started on first call. */
    public static synchronized TetherStack shared() {
        if (shared == null) {
            String mode = System.getProperty("tether-test.stack", "auto");
            boolean docker = switch (mode) {
                case "docker" -> true;
                case "local" -> false;
                case "auto" -> dockerAvailable();
                default -> throw new IllegalArgumentException("tether-test.stack must be auto, local or docker, not " + mode);
            };
            long start = System.nanoTime();
            TetherStack stack = docker ? ContainerStack.start() : LocalStack.start();
            LOG.info("Kafka at {} and Apicurio Registry at {} ready in {} ms ({})", stack.bootstrapServers(),
                    stack.registryUrl(), TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start),
                    docker ? "Testcontainers" : "deploy/local/stack");
            Runtime.getRuntime().addShutdownHook(new Thread(stack::stop, "tether-stack-stop"));
            shared = stack;
        }
        return shared;
    }

    /**
     * The 3-broker stack of this JVM ({@code deploy/local/stack start --brokers 3}), started on first call, stopped when
     * the JVM exits; apart from {@link #shared()}. Always the local stack: its brokers are killed by PID.
     */
    public static synchronized TetherStack cluster() {
        if (cluster == null) {
            long start = System.nanoTime();
            TetherStack stack = LocalStack.start(3);
            LOG.info("3 Kafka brokers at {} and Apicurio Registry at {} ready in {} ms (deploy/local/stack --brokers 3)",
                    stack.bootstrapServers(), stack.registryUrl(), TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
            Runtime.getRuntime().addShutdownHook(new Thread(stack::stop, "tether-cluster-stop"));
            cluster = stack;
        }
        return cluster;
    }

    /**
     * The environment {@code deploy/local/stack} (and {@code bin/run}, which starts it) gets from a test: the broker and
     * the registry start on as little CPU as the test JVMs ({@link ServiceProcess#jvmOptions()}: none outside the build)
     * and share one class-data archive each across the build's stacks, as the services do ({@link ClassDataArchive}).
     */
    public static Map<String, String> launcherEnvironment() {
        var environment = new LinkedHashMap<String, String>();
        environment.put("TETHER_STACK_JVM_OPTS", String.join(" ", ServiceProcess.jvmOptions()));
        if (Boolean.getBoolean(ClassDataArchive.PROPERTY)) {
            environment.put("TETHER_STACK_CLASS_DATA", "1");
        }
        return environment;
    }

    /**
     * A directory that lives as long as this stack (deleted when it stops): for state that only
     * makes sense against this broker, such as a Kafka Streams state directory.
     */
    public Path scratchDir(String name) {
        try {
            return Files.createDirectories(scratchRoot().resolve(name));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    abstract Path scratchRoot();

    /**
     * SIGKILL of the Kafka broker, as in a machine crash (chaos tests); {@link #restartBroker()} brings it back on the
     * same port and data directory. Only the local stack supports it.
     */
    public void killBroker() {
        throw new UnsupportedOperationException("killing the broker needs the local stack (deploy/local/stack)");
    }

    /** Starts the broker killed by {@link #killBroker()} again, same command line and data, and waits until it is up. */
    public void restartBroker() {
        throw new UnsupportedOperationException("restarting the broker needs the local stack (deploy/local/stack)");
    }

    /**
     * SIGKILL of the schema registry (chaos tests); {@link #restartRegistry()} brings it back on the same port with the
     * same storage (an H2 file: every schema keeps its id). Only the local stack supports it.
     */
    public void killRegistry() {
        throw new UnsupportedOperationException("killing the registry needs the local stack (deploy/local/stack)");
    }

    /** Starts the registry killed by {@link #killRegistry()} again, same command line and storage, and waits until it answers. */
    public void restartRegistry() {
        throw new UnsupportedOperationException("restarting the registry needs the local stack (deploy/local/stack)");
    }

    /**
     * SIGSTOP ({@code frozen}) or SIGCONT of the schema registry: frozen, it keeps its connections open and answers
     * nothing, as a registry in a long GC pause or on a hung machine does. Only the local stack supports it.
     */
    public void freezeRegistry(boolean frozen) {
        throw new UnsupportedOperationException("freezing the registry needs the local stack (deploy/local/stack)");
    }

    /** The node ids of the brokers: {@code [1]} for one, {@code [1, 2, 3]} for {@link #cluster()}. */
    public List<Integer> brokerIds() {
        return List.of(1);
    }

    /** The PID of broker {@code nodeId}'s process while it runs; empty when it does not (killed, or in a container). */
    public OptionalLong brokerPid(int nodeId) {
        return OptionalLong.empty();
    }

    /**
     * SIGKILL of broker {@code nodeId} (one of {@link #brokerIds()}) by its PID; {@link #restartBroker(int)} brings it
     * back. Only the local stack supports it.
     */
    public void killBroker(int nodeId) {
        throw new UnsupportedOperationException("killing a broker needs the local stack (deploy/local/stack)");
    }

    /** Starts broker {@code nodeId}, killed by {@link #killBroker(int)}, again: same command line, port and data. */
    public void restartBroker(int nodeId) {
        throw new UnsupportedOperationException("restarting a broker needs the local stack (deploy/local/stack)");
    }

    /** Kafka client properties that reach the broker. */
    public Map<String, Object> clientConfig() {
        var config = new LinkedHashMap<String, Object>();
        config.put("bootstrap.servers", bootstrapServers());
        return config;
    }

    private static boolean dockerAvailable() {
        if (System.getenv("DOCKER_HOST") == null && !Files.exists(Path.of("/var/run/docker.sock"))) {
            return false; // no engine to ask; spares Testcontainers' probing and its error log
        }
        try {
            return DockerClientFactory.instance().isDockerAvailable();
        } catch (RuntimeException | LinkageError e) {
            return false;
        }
    }

    /** deploy/local/stack, as child processes of this JVM. */
    static final class LocalStack extends TetherStack {
        /** How long {@code deploy/local/stack start} may take: a cold start on a busy 2-core machine is well under it. */
        private static final Duration START_TIMEOUT = Duration.ofMinutes(5);

        private final Path script;
        private final Path dir;
        private final Map<String, String> endpoints;
        private final int brokers;
        /** The command line of each broker killed by {@link #killBroker(int)}, as the launcher started it. */
        private final Map<Integer, List<String>> killedBrokers = new LinkedHashMap<>();

        private LocalStack(Path script, Path dir, Map<String, String> endpoints, int brokers) {
            this.script = script;
            this.dir = dir;
            this.endpoints = endpoints;
            this.brokers = brokers;
            // loaded now, not when the JVM exits: a @QuarkusTest's copy of this class (Quarkus loads the test's classes
            // itself, so a JVM that also runs plain tests has two shared stacks) runs its shutdown hook after Quarkus has
            // closed its class loader, which then loads nothing more, and the directory would be left
            Trees.class.getName();
        }

        static LocalStack start() {
            return start(1);
        }

        /** {@code deploy/local/stack start --brokers <brokers>} on free ports: {@link #start(Path, int)}. */
        static LocalStack start(int brokers) {
            Path root = Path.of(System.getProperty("tether-test.root", ".")).toAbsolutePath().normalize();
            Path script = root.resolve("deploy/local/stack");
            if (!Files.isExecutable(script)) {
                throw new IllegalStateException("no launcher at " + script
                        + " (set the system property tether-test.root to the repository root)");
            }
            return start(script, brokers);
        }

        /**
         * {@code <script> start --brokers <brokers>} on free ports, each time in a new directory; on others, up to twice
         * more, if a port was taken between {@link Ports#free} and its server's bind (by a server another test JVM
         * started meanwhile).
         */
        static LocalStack start(Path script, int brokers) {
            for (int attempt = 1; ; attempt++) {
                try {
                    return startOnce(script, brokers);
                } catch (PortTakenException e) {
                    if (attempt == 3) {
                        throw e;
                    }
                    System.err.println("tether-stack: a port was taken before the stack bound it; starting again on others");
                }
            }
        }

        private static LocalStack startOnce(Path script, int brokers) {
            Path dir = null;
            try {
                dir = Files.createTempDirectory(brokers == 1 ? "tether-stack-" : "tether-cluster-");
                var ports = Ports.free(2 * brokers + 2);
                var command = List.of(script.toString(), "start", "--dir", dir.toString(), "--brokers", Integer.toString(brokers),
                        "--kafka-port", join(ports.subList(0, brokers)), "--controller-port", join(ports.subList(brokers, 2 * brokers)),
                        "--registry-port", ports.get(2 * brokers).toString(), "--registry-mgmt-port", ports.get(2 * brokers + 1).toString(),
                        // H2 in a file under the stack's directory: a registry killed and restarted keeps its schema ids
                        "--registry-storage", "file",
                        "--owner-pid", Long.toString(ProcessHandle.current().pid()));
                var builder = new ProcessBuilder(command);
                builder.environment().putAll(launcherEnvironment());
                return new LocalStack(script, dir, parse(runStart(builder, dir, START_TIMEOUT)), brokers);
            } catch (PortTakenException e) {
                Trees.delete(dir); // the launcher stopped what it had started
                throw e;
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }

        /**
         * Runs the launcher's start and returns what it printed (the endpoints) once it exited 0. Its output goes to
         * {@code start.out} and {@code start.log} in {@code dir}, not to a pipe read here: a start that hangs, or leaves
         * a process holding its output open, would keep a read from ever returning, and the timeout would never apply.
         * Not done within {@code timeout}, it gets SIGTERM (on which it stops what it started: the registry, then the
         * brokers, each given 30 s) and 70 s, then SIGKILL, as do its descendants still alive; the exception carries its
         * output.
         */
        static String runStart(ProcessBuilder builder, Path dir, Duration timeout) throws IOException, InterruptedException {
            Path out = dir.resolve("start.out");
            Path log = dir.resolve("start.log");
            Process p = builder.redirectOutput(out.toFile())
                    .redirectError(log.toFile())
                    .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")))
                    .start();
            if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                List<ProcessHandle> tree = p.descendants().toList(); // before it exits: then they are no one's
                p.destroy();
                if (!p.waitFor(70, TimeUnit.SECONDS)) {
                    p.destroyForcibly();
                }
                tree.stream().filter(ProcessHandle::isAlive).forEach(ProcessHandle::destroyForcibly);
                throw new IllegalStateException("deploy/local/stack start did not end within " + timeout + "; stopped. Its output:\n"
                        + text(out) + text(log));
            }
            if (p.exitValue() != 0) {
                String failure = "deploy/local/stack start failed (exit " + p.exitValue() + "):\n" + text(log);
                // a broker's or the registry's bind, or the launcher's own look before it
                throw failure.contains("Address already in use") || failure.contains(" is in use (choose other ports")
                        ? new PortTakenException(failure)
                        : new IllegalStateException(failure);
            }
            return text(out);
        }

        /** The launcher failed because a port it was given was taken; it stopped what it had started. */
        static final class PortTakenException extends IllegalStateException {
            PortTakenException(String message) {
                super(message);
            }
        }

        /** A file as UTF-8, malformed bytes replaced: a log cut mid-character still reads. */
        private static String text(Path file) throws IOException {
            return new String(Files.readAllBytes(file), StandardCharsets.UTF_8);
        }

        private static String join(List<Integer> ports) {
            return String.join(",", ports.stream().map(String::valueOf).toList());
        }

        /** The launcher's name of broker {@code nodeId}: its PID file, log and data directory in the stack's directory. */
        private String brokerName(int nodeId) {
            if (nodeId < 1 || nodeId > brokers) {
                throw new IllegalArgumentException("no broker " + nodeId + ": the stack's brokers are " + brokerIds());
            }
            return brokers == 1 ? "kafka" : "kafka-" + nodeId;
        }

        private int onlyBroker() {
            if (brokers != 1) {
                throw new IllegalStateException("the stack has " + brokers + " brokers: name the one to kill or restart");
            }
            return 1;
        }

        @Override
        public List<Integer> brokerIds() {
            return IntStream.rangeClosed(1, brokers).boxed().toList();
        }

        @Override
        public synchronized OptionalLong brokerPid(int nodeId) {
            try {
                Path pidFile = dir.resolve(brokerName(nodeId) + ".pid");
                if (killedBrokers.containsKey(nodeId) || !Files.exists(pidFile)) {
                    return OptionalLong.empty();
                }
                long pid = Long.parseLong(Files.readString(pidFile).trim());
                return ProcessHandle.of(pid).filter(ProcessHandle::isAlive).isPresent() ? OptionalLong.of(pid) : OptionalLong.empty();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        @Override
        public void killBroker() {
            killBroker(onlyBroker());
        }

        @Override
        public void restartBroker() {
            restartBroker(onlyBroker());
        }

        @Override
        public synchronized void killBroker(int nodeId) {
            String name = brokerName(nodeId);
            if (killedBrokers.containsKey(nodeId)) {
                throw new IllegalStateException(name + " is down already (killed, not restarted)");
            }
            try {
                long pid = Long.parseLong(Files.readString(dir.resolve(name + ".pid")).trim());
                ProcessHandle broker = ProcessHandle.of(pid).orElseThrow(() -> new IllegalStateException("no broker with pid " + pid));
                // the command line as the launcher started it (with its marker), to start it again the same way
                String cmdline = Files.readString(Path.of("/proc", Long.toString(pid), "cmdline"));
                killedBrokers.put(nodeId, List.of(cmdline.split("\0")));
                broker.destroyForcibly();
                broker.onExit().get(30, TimeUnit.SECONDS);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            } catch (Exception e) {
                throw new IllegalStateException("could not kill " + name, e);
            }
        }

        @Override
        public synchronized void restartBroker(int nodeId) {
            String name = brokerName(nodeId);
            List<String> command = killedBrokers.get(nodeId);
            if (command == null) {
                throw new IllegalStateException(name + " was not killed by killBroker()");
            }
            try {
                Path log = dir.resolve(name + ".log");
                long before = startedLines(log);
                Process p = new ProcessBuilder(command)
                        .redirectErrorStream(true)
                        .redirectOutput(ProcessBuilder.Redirect.appendTo(dir.resolve(name + ".out").toFile()))
                        .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")))
                        .start();
                Files.writeString(dir.resolve(name + ".pid"), p.pid() + "\n");
                killedBrokers.remove(nodeId);
                // 5 minutes: a node of a loaded 3-broker cluster replays the metadata log before it says it started, and
                // on a busy 2-core machine that was seen to take over 3 minutes
                long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(5);
                while (startedLines(log) <= before) {
                    if (!p.isAlive()) {
                        throw new IllegalStateException(name + " exited with " + p.exitValue() + " while starting again; its log: " + log);
                    }
                    if (System.nanoTime() > deadline) {
                        throw new IllegalStateException(name + " runs but had not started 5 minutes after its restart; its log: " + log);
                    }
                    Thread.sleep(200);
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }

        private List<String> registryCommand;

        @Override
        public synchronized void killRegistry() {
            try {
                long pid = registryPid();
                ProcessHandle registry = ProcessHandle.of(pid).orElseThrow(() -> new IllegalStateException("no registry with pid " + pid));
                // the command line as the launcher started it (with its marker and storage), to start it again the same way
                registryCommand = List.of(Files.readString(Path.of("/proc", Long.toString(pid), "cmdline")).split("\0"));
                signal(pid, "CONT"); // a frozen process dies only once it runs
                registry.destroyForcibly();
                registry.onExit().get(30, TimeUnit.SECONDS);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            } catch (Exception e) {
                throw new IllegalStateException("could not kill the registry", e);
            }
        }

        @Override
        public synchronized void restartRegistry() {
            if (registryCommand == null) {
                throw new IllegalStateException("the registry was not killed by killRegistry()");
            }
            try {
                Process p = new ProcessBuilder(registryCommand)
                        .redirectErrorStream(true)
                        .redirectOutput(ProcessBuilder.Redirect.appendTo(dir.resolve("registry.log").toFile()))
                        .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")))
                        .start();
                Files.writeString(dir.resolve("registry.pid"), p.pid() + "\n");
                var http = java.net.http.HttpClient.newBuilder().connectTimeout(java.time.Duration.ofSeconds(1)).build();
                var info = java.net.http.HttpRequest.newBuilder(java.net.URI.create(registryUrl() + "/system/info"))
                        .timeout(java.time.Duration.ofSeconds(2)).build();
                long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(3);
                while (true) {
                    try {
                        if (http.send(info, java.net.http.HttpResponse.BodyHandlers.discarding()).statusCode() == 200) {
                            return;
                        }
                    } catch (IOException notYet) {
                        // not listening yet
                    }
                    if (!p.isAlive() || System.nanoTime() > deadline) {
                        throw new IllegalStateException("the registry did not come back; its log: " + dir.resolve("registry.log"));
                    }
                    Thread.sleep(250);
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }

        @Override
        public synchronized void freezeRegistry(boolean frozen) {
            try {
                signal(registryPid(), frozen ? "STOP" : "CONT");
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        private long registryPid() throws IOException {
            return Long.parseLong(Files.readString(dir.resolve("registry.pid")).trim());
        }

        /** {@code kill -<signal> <pid>}: the JDK sends only TERM and KILL itself. */
        private static void signal(long pid, String signal) throws IOException {
            try {
                Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(pid)).redirectErrorStream(true).start();
                String out = new String(kill.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
                    throw new IOException("kill -" + signal + " " + pid + " failed: " + out);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException(e);
            }
        }

        private static long startedLines(Path log) throws IOException {
            if (!Files.exists(log)) {
                return 0;
            }
            try (Stream<String> lines = Files.lines(log, StandardCharsets.ISO_8859_1)) {
                return lines.filter(l -> l.contains("Kafka Server started")).count();
            }
        }

        @Override
        public String bootstrapServers() {
            return endpoints.get("TETHER_KAFKA_BOOTSTRAP");
        }

        @Override
        Path scratchRoot() {
            return dir.resolve("scratch");
        }

        @Override
        public String registryUrl() {
            return endpoints.get("TETHER_REGISTRY_URL");
        }

        @Override
        public String ccompatUrl() {
            return endpoints.get("TETHER_REGISTRY_CCOMPAT_URL");
        }

        @Override
        void stop() {
            try {
                Process p = new ProcessBuilder(script.toString(), "stop", "--dir", dir.toString())
                        .redirectErrorStream(true)
                        .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                        .start();
                p.waitFor(2, TimeUnit.MINUTES);
                keepLogs();
                Trees.delete(dir);
            } catch (IOException | UncheckedIOException | LinkageError e) {
                System.err.println("tether-stack: could not stop the stack in " + dir + ": " + e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }

        /** Copies the broker's and registry's logs to {@code tether-test.logs} (the module's target/), for failures. */
        private void keepLogs() throws IOException {
            String keep = System.getProperty("tether-test.logs");
            if (keep == null) {
                return;
            }
            // the cluster's beside the shared stack's, whose names they would otherwise take
            Path into = Files.createDirectories(brokers == 1 ? Path.of(keep) : Path.of(keep, "cluster"));
            var logs = new ArrayList<String>();
            for (int id : brokerIds()) { // no lambda: see the constructor on what this may not load at exit
                logs.add(brokerName(id) + ".log");
            }
            logs.addAll(List.of("registry.log", "start.log"));
            for (String log : logs) {
                if (Files.exists(dir.resolve(log))) {
                    Files.copy(dir.resolve(log), into.resolve(log), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
                }
            }
        }

        private static Map<String, String> parse(String out) {
            var values = new LinkedHashMap<String, String>();
            for (String line : out.split("\n")) {
                int eq = line.indexOf('=');
                if (eq > 0) {
                    values.put(line.substring(0, eq).trim(), line.substring(eq + 1).trim());
                }
            }
            for (String key : List.of("TETHER_KAFKA_BOOTSTRAP", "TETHER_REGISTRY_URL", "TETHER_REGISTRY_CCOMPAT_URL")) {
                if (!values.containsKey(key)) {
                    throw new IllegalStateException("deploy/local/stack printed no " + key + ":\n" + out);
                }
            }
            return values;
        }
    }
}
