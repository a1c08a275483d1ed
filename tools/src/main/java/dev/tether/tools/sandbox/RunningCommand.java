package dev.tether.tools.sandbox;

import dev.tether.core.secrets.Scrubbed;
import java.time.Duration;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A command that {@link CommandRunner#start started}: {@link #await()} its result, or {@link #cancel()} it from
 * another thread (a {@code turn_interrupted} cancels tools in flight). Its timeout is enforced whether or not anyone
 * awaits it.
 *
 * <p>When {@link #await()} returns, the command and every process it started are dead (in a PID namespace; see
 * {@link ProcessTree} for the best effort without one): none can change the workspace afterwards.
 *
 * <p>Thread-safe: {@link #cancel()} may be called from any thread, any number of times, also after the end.
 */
public final class RunningCommand {

    /** How long a killed command's first process gets to be seen dead before it is killed again. */
    private static final long KILL_RETRY_SECONDS = 1;
    /** How long the processes of a command that ended get to disappear. */
    private static final Duration TREE_GONE_LIMIT = Duration.ofSeconds(5);
    /** How long the output pipe gets to reach its end once the processes are gone. */
    private static final Duration DRAIN_LIMIT = Duration.ofSeconds(2);

    private enum Ending { TIMED_OUT, CANCELLED }

    private final Process process;
    private final ProcessTree tree;
    private final OutputCollector output;
    private final OutputRedactor redactor;
    private final Duration timeout;
    private final long startNanos;
    private final AtomicReference<Ending> ending = new AtomicReference<>();
    private CommandResult result; // guarded by this

    private RunningCommand(
            Process process, OutputCollector output, OutputRedactor redactor, Duration timeout, long startNanos) {
        this.process = process;
        this.tree = new ProcessTree(process.toHandle());
        this.output = output;
        this.redactor = redactor;
        this.timeout = timeout;
        this.startNanos = startNanos;
    }

    /**
     * Watches a started process: its timeout fires whether or not anyone awaits it. The timer is dropped when the
     * process ends; only a timeout that fires starts a thread, to kill the tree.
     */
    static RunningCommand watch(
            Process process, OutputCollector output, OutputRedactor redactor, Duration timeout, long startNanos) {
        var command = new RunningCommand(process, output, redactor, timeout, startNanos);
        Executor onItsOwnThread = kill -> {
            var thread = new Thread(kill, "tether-command-timeout-" + process.pid());
            thread.setDaemon(true);
            thread.start();
        };
        long remaining = timeout.toNanos() - (System.nanoTime() - startNanos);
        process.onExit()
                .orTimeout(remaining, TimeUnit.NANOSECONDS)
                .exceptionallyAsync(timedOut -> { // onExit() never fails: this is the timeout
                    command.stop(Ending.TIMED_OUT);
                    return process;
                }, onItsOwnThread);
        return command;
    }

    /** The pid of the command's first process, seen from the host: the process group's id. */
    public long pid() {
        return process.pid();
    }

    /**
     * Kills the command and every process it started, unless it already ended or timed out; {@link #await()} then
     * reports it cancelled.
     */
    public void cancel() {
        stop(Ending.CANCELLED);
    }

    private void stop(Ending reason) {
        if (process.isAlive() && ending.compareAndSet(null, reason)) {
            tree.kill();
        }
    }

    /**
     * Waits for the command to end (by itself, by its timeout or by {@link #cancel()}) and for its processes to be
     * gone. Returns the same result when called again.
     *
     * @throws InterruptedException if this thread is interrupted while waiting; the command is then cancelled
     */
    public synchronized CommandResult await() throws InterruptedException {
        if (result != null) {
            return result;
        }
        long durationMs;
        try {
            long remaining = timeout.toNanos() - (System.nanoTime() - startNanos);
            if (!process.waitFor(remaining, TimeUnit.NANOSECONDS)) {
                stop(Ending.TIMED_OUT); // the timer does it too, on its own thread
            }
            while (!process.waitFor(KILL_RETRY_SECONDS, TimeUnit.SECONDS)) {
                tree.kill(); // only after a kill: a process in uninterruptible sleep dies when it wakes
            }
            durationMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos);
            tree.killRemaining(TREE_GONE_LIMIT);
            output.awaitEnd(DRAIN_LIMIT);
        } catch (InterruptedException e) {
            cancel();
            throw e;
        }
        Ending end = ending.get();
        result = result(process.exitValue(), end == Ending.TIMED_OUT, end == Ending.CANCELLED, durationMs);
        return result;
    }

    private CommandResult result(int exitCode, boolean timedOut, boolean cancelled, long durationMs) {
        OutputCollector.Captured captured = output.text();
        if (!captured.truncated()) {
            Scrubbed redacted = redactor.redact(captured.text());
            return new CommandResult(exitCode, redacted.text(), timedOut, cancelled, false, durationMs,
                    redacted.redactions());
        }
        Scrubbed redacted = redactor.redactCut(captured.text());
        String text = redacted.text();
        String separator = text.isEmpty() || text.endsWith("\n") ? "" : "\n";
        String marked = text + separator + "[output truncated: " + captured.discardedBytes() + " bytes not shown]\n";
        return new CommandResult(exitCode, marked, timedOut, cancelled, true, durationMs, redacted.redactions());
    }
}
