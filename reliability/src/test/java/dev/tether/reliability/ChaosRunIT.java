package dev.tether.reliability;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * The reduced chaos run of CI ({@link ChaosRun.Config#reduced}: 20 sessions in 5 worker processes, 12 faults of every
 * kind, then the same script fault-free): fails if any check of the run fails. Writes
 * {@code reliability/target/results/chaos-reduced.json}.
 */
class ChaosRunIT {

    static {
        // the run prints its own progress; the Kafka clients' configuration dumps would bury it
        System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn");
        System.setProperty("org.slf4j.simpleLogger.log.dev.tether.testing", "info");
    }

    @Test
    void everySessionSurvivesTheFaultsExactlyOnce() throws Exception {
        Path root = Path.of(System.getProperty("tether-test.root", ".")).toAbsolutePath().normalize();
        ChaosRun.Result result = new ChaosRun(ChaosRun.Config.reduced(42), root).run();

        assertTrue(result.passed(), () -> "the chaos run failed:\n  " + String.join("\n  ", result.failures()));
        assertTrue(((Number) result.figures().get("faults injected")).intValue() >= 10, "at least 10 faults");
        assertTrue(((Number) result.figures().get("sessions")).intValue() >= 20, "at least 20 sessions");
    }
}
