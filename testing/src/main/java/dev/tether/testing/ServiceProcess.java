package dev.tether.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.regex.Pattern;

/**
 * A Tether service run as its own process from its packaged jar ({@code target/quarkus-app}), for
 * tests that must kill it (SIGKILL) or restart it. It talks to the JVM's {@link TetherStack#shared()}, or to the stack
 * it is given.
 * Every start uses the same port, state directory and log file, as a restarted service would.
 *
 * <p>{@link #close()} stops it (SIGTERM, then SIGKILL) by its PID. Not thread-safe.
 */
public final class ServiceProcess implements AutoCloseable {

    private final Path jar;
    private final Path workDir;
    private int port;
    private boolean portShown; // baseUrl() was asked: the port is someone's address of this service now, and is kept
    private long logAtLaunch; // the log's size when the running process was launched: what it wrote comes after
    private final Map<String, String> env;
    private final List<String> systemProperties;
    private final Supplier<TetherStack> stack;
    private final ClassDataArchive classData;
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(2)).build();
    private Process process;
    private boolean ended; // by kill() or stop(): ended as asked, not by itself
    private int starts;

    /**
     * @param moduleDir        the service module's directory (holding {@code target/quarkus-app/quarkus-run.jar})
     * @param workDir          where its state, blobs and logs go (kept across restarts)
     * @param env              extra environment, e.g. topic prefix
     * @param systemProperties extra {@code -Dkey=value} options
     */
    public ServiceProcess(Path moduleDir, Path workDir, Map<String, String> env, List<String> systemProperties) {
        this(moduleDir, workDir, env, systemProperties, TetherStack::shared);
    }

    /** The same, against {@code stack} (for example {@link TetherStack#cluster()}) instead of the shared one. */
    public ServiceProcess(Path moduleDir, Path workDir, Map<String, String> env, List<String> systemProperties, TetherStack stack) {
        this(moduleDir, workDir, env, systemProperties, () -> stack);
    }

    private ServiceProcess(Path moduleDir, Path workDir, Map<String, String> env, List<String> systemProperties,
                           Supplier<TetherStack> stack) {
        this.stack = stack;
        // started by the same path from every module's tests, as the class-data archive they share was dumped by
        this.jar = moduleDir.resolve("target/quarkus-app/quarkus-run.jar").toAbsolutePath().normalize();
        this.workDir = workDir;
        this.port = Ports.free();
        this.env = Map.copyOf(env);
        this.systemProperties = List.copyOf(systemProperties);
        if (!Files.exists(jar)) {
            throw new IllegalStateException("no packaged service at " + jar + " (integration tests run after the package phase)");
        }
        this.classData = ClassDataArchive.of(jar, jvmOptions());
    }

    public String baseUrl() {
        portShown = true;
        return "http://127.0.0.1:" + port;
    }

    public Path log() {
        return workDir.resolve("service.log");
    }

    /** Where its Kafka Streams state stores live ({@code TETHER_STATE_DIR}), kept across restarts. */
    public Path stateDirectory() {
        return workDir.resolve("state");
    }

    /** Its {@code java.io.tmpdir}, emptied at each start. */
    private Path tempDirectory() {
        return workDir.resolve("tmp");
    }

    /**
     * How long {@link #start} waits for readiness. A service is ready in about 20 s on the build machine; on a shared one
     * at load 30 (a CI run beside other builds) starts of 2 minutes and more were seen, which is slow, not broken.
     */
    private static final Duration READY_WITHIN = Duration.ofMinutes(4);
    /** What the executor's {@code CrashPoints} logs before it halts the JVM. */
    private static final Pattern CRASH_POINT_HALT = Pattern.compile("test crash point \\S+ reached: halting");

    /**
     * Starts the service and waits until {@code /q/health/ready} answers 200 (at most {@link #READY_WITHIN}); a service
     * that is not ready by then is stopped before the failure is thrown, since the caller holds no handle to stop it with.
     */
    public ServiceProcess start() {
        for (int attempt = 1; ; attempt++) {
            launch();
            try {
                awaitReady(READY_WITHIN);
                return this;
            } catch (PortTaken e) {
                stop();
                if (portShown || starts > attempt || attempt == 3) {
                    throw e;
                }
                port = Ports.free(); // its first start, its address not given to anyone yet: another free port will do
            } catch (RuntimeException e) {
                stop();
                throw e;
            }
        }
    }

    /**
     * The port this service was given was taken by another process between {@link Ports#free} and the start (another
     * test's service, started beside this one): the service exited at once.
     */
    static final class PortTaken extends IllegalStateException {
        PortTaken(String message) {
            super(message);
        }
    }

    /**
     * Starts the service without waiting for it to be ready: for a start while something it needs (the registry) is
     * away, when the test asks its readiness itself ({@link #awaitReady(Duration)}).
     */
    public ServiceProcess launch() {
        if (process != null && process.isAlive()) {
            throw new IllegalStateException("already running");
        }
        try {
            Files.createDirectories(workDir);
            // its temp files in its work directory, emptied at each start, so a kill() leaves none in the machine's temp
            // directory: RocksDB unpacks its native library (15 MB) and Vert.x makes its file cache there, and both remove
            // them only at a clean exit
            Trees.delete(tempDirectory());
            Files.createDirectories(tempDirectory());
            var command = new ArrayList<String>();
            command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
            command.add("-Xmx384m");
            command.add("-Djava.io.tmpdir=" + tempDirectory());
            // as the images run it: a JVM out of memory may have lost a thread it needs (Kafka Streams' state updater), so it
            // exits rather than serve on with that part dead; the test sees a dead process, not a hang
            command.add("-XX:+ExitOnOutOfMemoryError");
            command.addAll(jvmOptions());
            command.addAll(classData.options());
            command.addAll(systemProperties);
            command.add("-jar");
            command.add(jar.toString());
            var builder = new ProcessBuilder(command)
                    .directory(workDir.toFile())
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(log().toFile()));
            TetherStack stack = this.stack.get();
            var environment = builder.environment();
            environment.put("TETHER_KAFKA_BOOTSTRAP", stack.bootstrapServers());
            environment.put("TETHER_REGISTRY_URL", stack.registryUrl());
            environment.put("QUARKUS_HTTP_PORT", Integer.toString(port));
            environment.put("TETHER_STATE_DIR", stateDirectory().toString());
            environment.put("TETHER_AUTH_DEV_KEYS_ENABLED", "true");
            environment.putAll(env);
            Files.writeString(log(), "---- start " + (++starts) + "\n", java.nio.file.StandardOpenOption.CREATE,
                    java.nio.file.StandardOpenOption.APPEND);
            logAtLaunch = Files.size(log());
            process = builder.start();
            ended = false;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return this;
    }

    /**
     * The JVM options of {@code -Dtether-test.jvm-options} (space-separated; none if unset): the build gives its test
     * JVMs options that start them on less CPU (see the parent pom), and the processes they start get the same ones. A
     * benchmark run outside the build has none, so it measures the services as they run in production.
     */
    public static List<String> jvmOptions() {
        String options = System.getProperty("tether-test.jvm-options", "").trim();
        return options.isEmpty() ? List.of() : List.of(options.split("\\s+"));
    }

    /** SIGKILL: the process dies at once, as in a machine crash; nothing is flushed or closed. */
    public void kill() {
        if (process != null) {
            ended = true;
            process.destroyForcibly();
            waitFor();
        }
    }

    /**
     * SIGTERM, then SIGKILL after 30 s. A service that ended by itself before (neither {@link #kill()}ed nor stopped: out
     * of memory, say) is reported on stderr with its exit status and the end of its log, which the test's clean-up may
     * delete: a test that failed because it was gone then says so. One that halted at a crash point a crash test set (the executor's
     * {@code CrashPoints}, whose log line says so) is reported in one line, as expected.
     */
    public void stop() {
        if (process != null && !process.isAlive() && !ended) {
            String name = jar.getParent().getParent().getParent().getFileName() + " (pid " + process.pid() + ")";
            String tail = logTail(40);
            System.err.println(CRASH_POINT_HALT.matcher(tail).find()
                    ? "ServiceProcess: " + name + " halted at the test crash point it was given, as its test asked (exit status "
                            + process.exitValue() + ")"
                    : "ServiceProcess: " + name + " had ended by itself, with exit status " + process.exitValue()
                            + "; the end of its log:\n" + tail);
        }
        if (process != null && process.isAlive()) {
            ended = true;
            process.destroy();
            try {
                if (!process.waitFor(30, TimeUnit.SECONDS)) {
                    process.destroyForcibly();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            waitFor();
        }
    }

    /** The PID of the running process (for signals the JDK cannot send, such as SIGSTOP); -1 if never started. */
    public long pid() {
        return process == null ? -1 : process.pid();
    }

    public boolean isAlive() {
        return process != null && process.isAlive();
    }

    @Override
    public void close() {
        stop();
    }

    /** The last {@code lines} lines of the service's log, for a failing test's message (the log may go with its directory). */
    public String logTail(int lines) {
        try {
            List<String> all = Files.readAllLines(log());
            return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
        } catch (IOException | UncheckedIOException e) {
            return "(" + log() + " cannot be read: " + e + ")";
        }
    }

    private void waitFor() {
        try {
            if (process.waitFor(30, TimeUnit.SECONDS)) {
                classData.exited(process.exitValue());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Waits until {@code /q/health/ready} answers 200 from this process (its log says it listens on its port: a 200 from
     * another process that took the port is not its answer); fails if the process exits or {@code timeout} passes first.
     *
     * @throws PortTaken when the process exited because another one had taken its port
     */
    public void awaitReady(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        var request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/q/health/ready")).timeout(Duration.ofSeconds(2)).build();
        Pattern listening = Pattern.compile("Listening on: http://127\\.0\\.0\\.1:" + port + "(?!\\d)");
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                if (sinceLaunch().contains("Port " + port + " seems to be in use by another process")) {
                    throw new PortTaken("port " + port + " was taken by another process before the service could listen on it; its log: " + log());
                }
                throw new IllegalStateException("the service exited during start-up; its log: " + log());
            }
            try {
                if (http.send(request, HttpResponse.BodyHandlers.discarding()).statusCode() == 200 && listening.matcher(sinceLaunch()).find()) {
                    return;
                }
            } catch (IOException e) {
                // not listening yet
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
            try {
                Thread.sleep(250);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }
        throw new IllegalStateException("the service was not ready within " + timeout + "; its log: " + log());
    }

    /** What the running process has written to the log so far. */
    private String sinceLaunch() {
        try (var channel = java.nio.channels.FileChannel.open(log())) {
            long size = channel.size();
            var bytes = java.nio.ByteBuffer.allocate((int) Math.min(Integer.MAX_VALUE - 8, Math.max(0, size - logAtLaunch)));
            channel.read(bytes, logAtLaunch);
            return new String(bytes.array(), 0, bytes.position(), java.nio.charset.StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Environment entries, in order, for {@link #ServiceProcess}. */
    public static Map<String, String> env(String... keysAndValues) {
        var map = new LinkedHashMap<String, String>();
        for (int i = 0; i + 1 < keysAndValues.length; i += 2) {
            map.put(keysAndValues[i], keysAndValues[i + 1]);
        }
        return map;
    }
}
