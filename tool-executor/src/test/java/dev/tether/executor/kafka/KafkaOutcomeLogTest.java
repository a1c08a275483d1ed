package dev.tether.executor.kafka;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tether.avro.ToolOutcome;
import java.time.Duration;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.junit.jupiter.api.Test;

/** The ledger's reader of {@code tool-outcomes}, without a broker. */
class KafkaOutcomeLogTest {

    /**
     * A read timeout of zero (or less) made every read of the ledger give up at once: no call was ever decided, and each
     * batch came again every second, for ever. It stops the start, naming the setting.
     */
    @Test
    void aReadTimeoutThatIsNotPositive_stopsTheStart_namingItsSetting() {
        for (Duration timeout : new Duration[] {Duration.ZERO, Duration.ofSeconds(-30)}) {
            assertThatThrownBy(() -> new KafkaOutcomeLog(new MockConsumer<String, ToolOutcome>("earliest"), "tool-outcomes", timeout))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("tether.executor.ledger.read-timeout");
        }
    }
}
