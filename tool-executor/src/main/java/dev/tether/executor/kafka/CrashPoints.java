package dev.tether.executor.kafka;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.Set;
import org.jboss.logging.Logger;

/**
 * For crash tests: the first time a call reaches the configured point, halts the JVM, as a SIGKILL would (no shutdown
 * hook, no flush), or freezes it, as a GC pause or a stopped VM would (the process stops itself with SIGSTOP, every
 * thread with it, heartbeats included, until the test sends SIGCONT). Once: a marker file remembers it across the
 * restart. Off unless configured.
 */
final class CrashPoints {

    /** A call's STARTED is about to be written: it has passed every check of its own (its claim on its partition too). */
    static final String BEFORE_STARTED = "before-started";
    static final String AFTER_STARTED = "after-started";
    static final String AFTER_EFFECT = "after-effect";
    static final String AFTER_OUTCOME = "after-outcome";
    private static final Set<String> POINTS = Set.of(BEFORE_STARTED, AFTER_STARTED, AFTER_EFFECT, AFTER_OUTCOME);

    private static final Logger LOG = Logger.getLogger(CrashPoints.class);

    /** A wait for kill(1), or a 100 ms sleep, that took this long or longer was a stop, since continued. */
    private static final Duration STOPPED = Duration.ofSeconds(2);
    private static final Duration NEVER_STOPPED = Duration.ofMinutes(1);

    private final String crashAt;
    private final String freezeAt;
    private final Path marker;

    CrashPoints(Optional<String> crashAt, Optional<String> freezeAt, Optional<String> marker) {
        this.crashAt = point("crash-at", crashAt);
        this.freezeAt = point("freeze-at", freezeAt);
        if ((this.crashAt != null || this.freezeAt != null) && marker.isEmpty()) {
            throw new IllegalArgumentException("tether.executor.test.crash-at and freeze-at need tether.executor.test.crash-marker");
        }
        this.marker = marker.map(Path::of).orElse(null);
    }

    private static String point(String setting, Optional<String> point) {
        if (point.isPresent() && !POINTS.contains(point.get())) {
            throw new IllegalArgumentException("tether.executor.test." + setting + ": '" + point.get()
                    + "' is not before-started, after-started, after-effect or after-outcome");
        }
        return point.orElse(null);
    }

    static CrashPoints none() {
        return new CrashPoints(Optional.empty(), Optional.empty(), Optional.empty());
    }

    void reached(String here) {
        boolean crash = here.equals(crashAt);
        if ((!crash && !here.equals(freezeAt)) || Files.exists(marker)) {
            return;
        }
        try {
            Files.writeString(marker, here);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        if (crash) {
            LOG.warnf("test crash point %s reached: halting", here);
            Runtime.getRuntime().halt(137);
        }
        LOG.warnf("test freeze point %s reached: stopping (SIGSTOP) until SIGCONT", here);
        freeze();
        LOG.warnf("test freeze point %s: continued", here);
    }

    /**
     * Stops this process until it is continued. kill(1) only queues the SIGSTOP: one of this JVM's threads takes it and
     * stops them all, and on a busy machine this thread may see kill(1) back and run on for some milliseconds before
     * the stop lands (a fresh-clone run and a local one went on from the freeze point that way). So this thread
     * waits for the stop itself: until kill(1), or then a short sleep, takes far longer than it should, the process
     * having been stopped meanwhile and continued. A test keeps it stopped longer than that ({@link #STOPPED}). Sending
     * the stop again instead would stop the process a second time, later, which no test continues.
     */
    private static void freeze() {
        try {
            long sent = System.nanoTime();
            int status = new ProcessBuilder("kill", "-STOP", Long.toString(ProcessHandle.current().pid()))
                    .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start()
                    .waitFor();
            if (status != 0) {
                LOG.errorf("test freeze: kill -STOP exited %d; not stopped", status);
                return;
            }
            long step = sent; // waiting for kill(1) is the first step
            while (System.nanoTime() - step < STOPPED.toNanos()) {
                if (System.nanoTime() - sent > NEVER_STOPPED.toNanos()) {
                    LOG.errorf("test freeze: not stopped %s after kill -STOP; going on", NEVER_STOPPED);
                    return;
                }
                step = System.nanoTime();
                Thread.sleep(100);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
