package dev.tether.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.entry;

import dev.tether.kit.kafka.RestoreLog;
import java.time.LocalTime;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Figure 8 reads the restore's own time from the projector's log: the lines {@link RestoreLog} writes. */
class RecoveryRestoreTest {

    @Test
    void sumsTheWavesTheProjectorLogged_andTakesTheRunsEventsPerSecondOfThem() {
        var first = new RestoreLog.Wave(12, Map.of("checkpoints", 1_234L, "messages", 898_766L), 3_000);
        var second = new RestoreLog.Wave(6, Map.of("messages", 100_500L), 1_000);
        List<String> log = List.of(
                "07:00:58.103 WARN  traceId= [or.ap.ka.st.StreamsConfig] (main) a warning",
                "07:01:00.903 INFO  traceId= [io.quarkus] (main) projector-service 0.1.0 on JVM (powered by Quarkus 3.33.2) started in 2.5s.",
                "07:01:02.003 INFO  traceId= [de.te.ki.ka.RestoreLog] (StateUpdater-1) restoring messages from session-events-0 (offsets 0 to 5)",
                "07:01:05.003 INFO  traceId= [de.te.ki.ka.RestoreLog] (StateUpdater-1) " + first + " (900,100 offsets to read)",
                "07:01:05.100 WARN  traceId= [or.ap.ka.st.pr.in.StreamThread] (StreamThread-1) a rebalance",
                "07:01:06.100 INFO  traceId= [de.te.ki.ka.RestoreLog] (StateUpdater-1) " + second + " (100,500 offsets to read)");

        Recovery.Restore restore = Recovery.Restore.of(log, 1_000_000, LocalTime.parse("07:00:57.000"));

        assertThat(restore.waves()).isEqualTo(2);
        assertThat(restore.records()).isEqualTo(1_000_500);
        assertThat(restore.recordsByStore()).containsExactly(entry("checkpoints", 1_234L), entry("messages", 999_266L));
        assertThat(restore.millis()).isEqualTo(4_000);
        assertThat(restore.recordsPerSec()).isEqualTo(250_125.0);
        assertThat(restore.eventsPerSec()).isEqualTo(250_000.0);
        assertThat(restore.startedMs()).as("launch to Quarkus' started line").isEqualTo(3_903);
        assertThat(restore.restoreBeganMs()).as("launch to the first restoring").isEqualTo(5_003);
    }

    @Test
    void aStartAcrossMidnight_isTimedAcrossIt() {
        List<String> log = List.of(
                "00:00:01.500 INFO  traceId= [io.quarkus] (main) projector-service 0.1.0 on JVM (powered by Quarkus 3.33.2) started in 2.5s.",
                "00:00:02.000 INFO  traceId= [de.te.ki.ka.RestoreLog] (StateUpdater-1) restoring messages from session-events-0 (offsets 0 to 5)");

        Recovery.Restore restore = Recovery.Restore.of(log, 10, LocalTime.parse("23:59:59.000"));

        assertThat(restore.startedMs()).isEqualTo(2_500);
        assertThat(restore.restoreBeganMs()).isEqualTo(3_000);
    }

    @Test
    void aLogWithoutARestore_saysNoWave() {
        Recovery.Restore restore = Recovery.Restore.of(List.of("07:01:02.003 INFO  traceId= [io.quarkus] (main) started"), 1_000,
                LocalTime.parse("07:01:00.000"));

        assertThat(restore.waves()).isZero();
        assertThat(restore.startedMs()).as("no started line of Quarkus'").isEqualTo(-1);
        assertThat(restore.restoreBeganMs()).isEqualTo(-1);
        assertThat(restore.records()).isZero();
        assertThat(restore.recordsByStore()).isEmpty();
    }
}
