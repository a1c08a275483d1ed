package dev.tether.testing;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A main class run in a JVM of its own, on this JVM's class path: a harness worker that an integration test SIGKILLs
 * at a line it prints, then replaces with a fresh one. Its output (standard error merged in) is read line by line as
 * it comes, to the end.
 *
 * <p>{@link #kill()} only signals the process. {@link Process#destroyForcibly()} also closes this side of the output
 * pipe, so the lines the worker printed just before its death were lost and the reader failed with "Stream closed"
 * (a CI run failed on it). Here they stay readable: the pipe ends when the process does.
 *
 * <p>{@link #close()} kills it by its PID if it still runs.
 */
public final class ChildJvm implements AutoCloseable {

    private final Process process;
    private final BlockingQueue<String> unread = new LinkedBlockingQueue<>();
    private final List<String> seen = new ArrayList<>();
    private final Thread reader;
    private volatile IOException readFailure;

    private ChildJvm(Process process, String name) {
        this.process = process;
        this.reader = new Thread(this::read, name + "-output");
        reader.setDaemon(true);
        reader.start();
    }

    /** {@code java <the jvm options of services> -cp <this class path> mainAndArgs…}, with {@code env} added. */
    public static ChildJvm start(List<String> mainAndArgs, Map<String, String> env) throws IOException {
        var command = new ArrayList<String>();
        command.add(ProcessHandle.current().info().command().orElse("java"));
        command.addAll(ServiceProcess.jvmOptions());
        command.addAll(List.of("-cp", System.getProperty("java.class.path")));
        command.addAll(mainAndArgs);
        var builder = new ProcessBuilder(command).redirectErrorStream(true);
        builder.environment().putAll(env);
        String main = mainAndArgs.get(0);
        return new ChildJvm(builder.start(), main.substring(main.lastIndexOf('.') + 1));
    }

    private void read() {
        try (var in = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            for (String line; (line = in.readLine()) != null; ) {
                synchronized (seen) {
                    seen.add(line);
                }
                unread.add(line);
            }
        } catch (IOException e) {
            readFailure = e;
        }
    }

    public Process process() {
        return process;
    }

    /** Waits until it prints {@code line}; fails if it ends first or {@code patience} runs out. */
    public void awaitLine(String line, Duration patience) throws InterruptedException {
        long end = System.nanoTime() + patience.toNanos();
        while (System.nanoTime() < end) {
            String next = unread.poll(200, TimeUnit.MILLISECONDS);
            if (line.equals(next)) {
                return;
            }
            if (next == null && !reader.isAlive() && unread.isEmpty()) {
                break;
            }
        }
        throw new AssertionError("pid " + process.pid() + " did not print '" + line + "'; it printed " + printed());
    }

    /** SIGKILL, and waits for the process to be gone. Its output stays readable to the end: see the class comment. */
    public void kill() throws InterruptedException {
        process.toHandle().destroyForcibly();
        if (!process.waitFor(30, TimeUnit.SECONDS)) {
            throw new AssertionError("pid " + process.pid() + " still runs 30 s after its SIGKILL");
        }
    }

    /** Waits until it prints {@code line}, then {@link #kill()}s it. */
    public void killAt(String line, Duration patience) throws InterruptedException {
        awaitLine(line, patience);
        kill();
    }

    /** Waits for it to exit with 0 within {@code patience}; every line it printed. */
    public List<String> awaitExit(Duration patience) throws InterruptedException {
        if (!process.waitFor(patience.toSeconds(), TimeUnit.SECONDS)) {
            throw new AssertionError("pid " + process.pid() + " did not exit within " + patience + "; it printed " + printed());
        }
        List<String> out = lines();
        if (process.exitValue() != 0) {
            throw new AssertionError("pid " + process.pid() + " exited with " + process.exitValue() + "; it printed\n" + String.join("\n", out));
        }
        return out;
    }

    /** Every line it printed, once it has ended and its output is read to the end. */
    public List<String> lines() throws InterruptedException {
        if (process.isAlive()) {
            throw new IllegalStateException("pid " + process.pid() + " still runs");
        }
        reader.join(TimeUnit.SECONDS.toMillis(30));
        if (reader.isAlive()) {
            throw new AssertionError("the output of pid " + process.pid() + " did not end within 30 s of its exit");
        }
        if (readFailure != null) {
            throw new UncheckedIOException("reading the output of pid " + process.pid(), readFailure);
        }
        return printed();
    }

    private List<String> printed() {
        synchronized (seen) {
            return List.copyOf(seen);
        }
    }

    @Override
    public void close() {
        process.toHandle().destroyForcibly();
    }
}
