package dev.tether.executor.kafka;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
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
     * Stops this process until it is continued. A stop that did not hold (kill(1) back within a second: no test continues
     * the process that soon) is tried again, logging kill(1)'s exit status: a fresh-clone run and a local one each saw
     * the worker go on at once, for a reason not found yet, and a test that thinks it froze the process then tests
     * nothing.
     */
    private static void freeze() {
        try {
            for (int attempt = 1; attempt <= 5; attempt++) {
                long start = System.nanoTime();
                // kill(1) sends the signal and exits; this process stops there, waiting for it, until it is continued.
                // No timeout: on a loaded machine kill(1) may take seconds to run
                int status = new ProcessBuilder("kill", "-STOP", Long.toString(ProcessHandle.current().pid()))
                        .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start()
                        .waitFor();
                if (System.nanoTime() - start >= TimeUnit.SECONDS.toNanos(1)) {
                    return;
                }
                LOG.warnf("test freeze: the stop did not hold (kill -STOP exited %d); stopping again", status);
                Thread.sleep(100);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
