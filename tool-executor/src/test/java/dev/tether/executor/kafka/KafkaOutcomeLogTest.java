package dev.tether.executor.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tether.avro.ToolOutcome;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/** The ledger's reader of {@code tool-outcomes}, without a broker. */
class KafkaOutcomeLogTest {

    private static final TopicPartition P0 = new TopicPartition("tool-outcomes", 0);

    private final MockConsumer<String, ToolOutcome> committed = new MockConsumer<>("earliest");
    private final MockConsumer<byte[], byte[]> written = new MockConsumer<>("earliest");

    /**
     * A read timeout of zero (or less) made every read of the ledger give up at once: no call was ever decided, and each
     * batch came again every second, for ever. It stops the start, naming the setting.
     */
    @Test
    void aReadTimeoutThatIsNotPositive_stopsTheStart_namingItsSetting() {
        for (Duration timeout : new Duration[] {Duration.ZERO, Duration.ofSeconds(-30)}) {
            assertThatThrownBy(() -> new KafkaOutcomeLog(committed, written, "tool-outcomes", timeout))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("tether.executor.ledger.read-timeout");
        }
    }

    /**
     * A transaction open at offset 4 (a frozen instance's first write, say) held back the records written after it, up to
     * 9, from a {@code read_committed} reader: the end was 4, and a lookup then missed what lay past it, a call's STARTED
     * and OK among them, and ran the call again. The end is asked once that transaction is over, and covers them.
     */
    @Test
    void theEnd_waitsForATransactionOpenWhenAsked_soThatWhatWasWrittenAfterItCanBeRead() {
        committed.updateEndOffsets(Map.of(P0, 4L));
        written.updateEndOffsets(Map.of(P0, 9L));
        var log = new KafkaOutcomeLog(committed, written, "tool-outcomes", Duration.ofSeconds(10));
        CompletableFuture.runAsync(() -> committed.updateEndOffsets(Map.of(P0, 10L)), // committed: its marker at 9
                CompletableFuture.delayedExecutor(300, TimeUnit.MILLISECONDS));

        long started = System.nanoTime();
        assertThat(log.end(0)).isEqualTo(10L);
        assertThat(Duration.ofNanos(System.nanoTime() - started)).isGreaterThanOrEqualTo(Duration.ofMillis(250));
    }

    @Test
    void aTransactionStillOpenPastTheReadTimeout_failsTheLookup_sayingWhatItWaitedFor() {
        committed.updateEndOffsets(Map.of(P0, 4L));
        written.updateEndOffsets(Map.of(P0, 9L));
        var log = new KafkaOutcomeLog(committed, written, "tool-outcomes", Duration.ofMillis(500));

        assertThatThrownBy(() -> log.end(0)).isInstanceOf(OutcomeLog.LedgerUnavailableException.class)
                .hasMessageContaining("readable up to offset 4 but written up to 9");
    }

    @Test
    void withNoTransactionOpen_theEndIsWhereTheRecordsEnd() {
        committed.updateEndOffsets(Map.of(P0, 9L));
        written.updateEndOffsets(Map.of(P0, 9L));
        assertThat(new KafkaOutcomeLog(committed, written, "tool-outcomes", Duration.ofMillis(500)).end(0)).isEqualTo(9L);
    }
}
