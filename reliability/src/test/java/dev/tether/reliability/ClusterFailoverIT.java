package dev.tether.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The cluster run ({@link ClusterRun}, issue 15 §5): the four services exactly-once against three KRaft brokers, every
 * topic at replication factor 3 with {@code min.insync.replicas=2}, while the leader of {@code session-events}
 * partitions, the sequencer's transaction coordinator and the active controller are SIGKILLed and restarted in turn.
 * Fails if any check of the run fails. Writes {@code reliability/target/results/cluster.json}.
 *
 * <p>About 10 minutes on the 2-core build machine, so not part of {@code .ci/run} (the reliability module's failsafe
 * configuration leaves it out); run it with {@code reliability/run --cluster}, or alone:
 * {@code bin/mvn verify -pl reliability -Dit.test=ClusterFailoverIT -Dtest=none -Dsurefire.failIfNoSpecifiedTests=false}.
 */
class ClusterFailoverIT {

    static {
        // the run prints its own progress; the Kafka clients' configuration dumps would bury it
        System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn");
        System.setProperty("org.slf4j.simpleLogger.log.dev.tether.testing", "info");
    }

    @Test
    void theFourServices_stayExactlyOnce_throughLeaderCoordinatorAndControllerFailovers() throws Exception {
        Path root = Path.of(System.getProperty("tether-test.root", ".")).toAbsolutePath().normalize();
        ClusterRun.Result result = new ClusterRun(ClusterRun.Config.standard(), root).run();

        assertThat(result.failures()).as("the cluster run's failed checks").isEmpty();
        Map<String, Object> figures = result.figures();
        assertThat(figures.get("brokers")).isEqualTo(3);
        assertThat((String) figures.get("topics at replication factor 3 with min.insync.replicas 2")).matches("(\\d+) of \\1");
        for (ClusterRun.Fault fault : ClusterRun.Fault.values()) {
            String f = fault.label + ": ";
            assertThat(((Number) figures.get(f + "probe appends acknowledged")).intValue()).as(f + "appends acknowledged").isPositive();
            assertThat(figures.get(f + "probe appends lost")).as(f + "lost").isEqualTo(0);
            assertThat(figures.get(f + "probe appends duplicated")).as(f + "duplicated").isEqualTo(0);
            assertThat(figures.get(f + "final checkpoints identical to the fault-free run (normalised)")).as(f + "checkpoints")
                    .isEqualTo(ClusterRun.Config.standard().sessionsPerFault() + " of " + ClusterRun.Config.standard().sessionsPerFault());
            assertThat(((Number) figures.get(f + "partitions with a shrunk ISR while the broker was down (most seen)")).intValue())
                    .as(f + "ISR shrank").isPositive();
        }
    }
}
