package dev.tether.kit.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

class RestoreLogTest {

    private static final TopicPartition MESSAGES_0 = new TopicPartition("session-events", 0);
    private static final TopicPartition MESSAGES_1 = new TopicPartition("session-events", 1);
    private static final TopicPartition CHECKPOINTS_0 = new TopicPartition("tether-projector-checkpoints-changelog", 0);

    private final AtomicLong nanos = new AtomicLong(1_000_000_000L);
    private final RestoreLog log = new RestoreLog(nanos::get);

    @Test
    void overlappingRestores_areOneWave_summedWhenTheLastOneEnds() {
        log.onRestoreStart(MESSAGES_0, "messages", 0, 600_000);
        log.onRestoreStart(CHECKPOINTS_0, "checkpoints", 0, 700);
        advanceMillis(1_000);
        log.onRestoreStart(MESSAGES_1, "messages", 10, 400_010);
        log.onRestoreEnd(CHECKPOINTS_0, "checkpoints", 500);
        advanceMillis(2_000);
        log.onRestoreEnd(MESSAGES_0, "messages", 600_000);

        assertThat(log.lastWave()).as("one store partition still restores").isNull();

        advanceMillis(1_000);
        log.onRestoreEnd(MESSAGES_1, "messages", 399_500);

        RestoreLog.Wave wave = log.lastWave();
        assertThat(wave).isEqualTo(new RestoreLog.Wave(3, Map.of("messages", 999_500L, "checkpoints", 500L), 4_000));
        assertThat(wave.records()).isEqualTo(1_000_000);
        assertThat(wave.recordsPerSecond()).isEqualTo(250_000.0);
        assertThat(wave).hasToString(
                "restored 1,000,000 records into 3 store partitions (checkpoints 500, messages 999,500) in 4,000 ms: 250,000 records/s");
    }

    @Test
    void aSuspendedRestore_endsWithWhatItRead() {
        log.onRestoreStart(MESSAGES_0, "messages", 0, 1_000);
        log.onRestoreStart(MESSAGES_1, "messages", 0, 1_000);
        advanceMillis(500);
        log.onRestoreSuspended(MESSAGES_1, "messages", 300);
        log.onRestoreEnd(MESSAGES_0, "messages", 1_000);

        assertThat(log.lastWave()).isEqualTo(new RestoreLog.Wave(2, Map.of("messages", 1_300L), 500));
    }

    @Test
    void aRestoreAfterTheWaveEnded_startsTheNextWave_fromNothing() {
        log.onRestoreStart(MESSAGES_0, "messages", 0, 1_000);
        advanceMillis(100);
        log.onRestoreEnd(MESSAGES_0, "messages", 1_000);
        advanceMillis(5_000);

        log.onRestoreStart(CHECKPOINTS_0, "checkpoints", 0, 50);
        advanceMillis(20);
        log.onRestoreEnd(CHECKPOINTS_0, "checkpoints", 40);

        assertThat(log.lastWave()).isEqualTo(new RestoreLog.Wave(1, Map.of("checkpoints", 40L), 20));
    }

    @Test
    void anEndWithoutItsStart_isIgnored() {
        log.onRestoreEnd(MESSAGES_0, "messages", 1_000);

        assertThat(log.lastWave()).isNull();

        log.onRestoreStart(MESSAGES_1, "messages", 0, 10);
        log.onRestoreEnd(MESSAGES_1, "messages", 10);

        assertThat(log.lastWave()).isEqualTo(new RestoreLog.Wave(1, Map.of("messages", 10L), 0));
    }

    private void advanceMillis(long millis) {
        nanos.addAndGet(millis * 1_000_000);
    }
}
