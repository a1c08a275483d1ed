package dev.tether.executor.kafka;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.Set;
import org.jboss.logging.Logger;

/**
 * For crash tests: halts the JVM, as a SIGKILL would (no shutdown hook, no flush), the first time a call reaches the
 * configured point. The crash happens once: a marker file remembers it across the restart. Off unless configured.
 */
final class CrashPoints {

    static final String AFTER_STARTED = "after-started";
    static final String AFTER_EFFECT = "after-effect";
    static final String AFTER_OUTCOME = "after-outcome";

    private static final Logger LOG = Logger.getLogger(CrashPoints.class);

    private final String point;
    private final Path marker;

    CrashPoints(Optional<String> point, Optional<String> marker) {
        if (point.isPresent() && !Set.of(AFTER_STARTED, AFTER_EFFECT, AFTER_OUTCOME).contains(point.get())) {
            throw new IllegalArgumentException("tether.executor.test.crash-at: '" + point.get()
                    + "' is not after-started, after-effect or after-outcome");
        }
        if (point.isPresent() && marker.isEmpty()) {
            throw new IllegalArgumentException("tether.executor.test.crash-at needs tether.executor.test.crash-marker");
        }
        this.point = point.orElse(null);
        this.marker = marker.map(Path::of).orElse(null);
    }

    static CrashPoints none() {
        return new CrashPoints(Optional.empty(), Optional.empty());
    }

    void reached(String here) {
        if (!here.equals(point) || Files.exists(marker)) {
            return;
        }
        try {
            Files.writeString(marker, here);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        LOG.warnf("test crash point %s reached: halting", here);
        Runtime.getRuntime().halt(137);
    }
}
