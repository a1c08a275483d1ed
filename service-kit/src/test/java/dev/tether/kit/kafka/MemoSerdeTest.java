package dev.tether.kit.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.Serializer;
import org.junit.jupiter.api.Test;

/** A value put into a store right after it was read is not encoded again; anything else is. */
class MemoSerdeTest {

    /** A value by identity, as an Avro record is to the memo. */
    private record Box(String text) {}

    private final AtomicInteger encoded = new AtomicInteger();
    private final MemoSerde<Box> serde = MemoSerde.of(Serdes.serdeFrom(
            (Serializer<Box>) (topic, box) -> {
                if (box == null) {
                    return null;
                }
                encoded.incrementAndGet();
                return box.text().getBytes(StandardCharsets.UTF_8);
            },
            (Deserializer<Box>) (topic, bytes) -> bytes == null ? null : new Box(new String(bytes, StandardCharsets.UTF_8))));

    @Test
    void theValueJustDecoded_isAnsweredWithTheBytesItCameFrom_withoutEncoding() {
        byte[] arrived = "hello".getBytes(StandardCharsets.UTF_8);
        Box box = serde.sourceDeserializer().deserialize("session-events", arrived);

        assertThat(serde.serializer().serialize("store-changelog", box)).isSameAs(arrived);
        assertThat(serde.serializer().serialize("store-changelog", null, box)).isSameAs(arrived);
        assertThat(encoded).hasValue(0);
    }

    @Test
    void anEqualValueThatIsAnotherInstance_isEncoded() {
        serde.sourceDeserializer().deserialize("t", "two".getBytes(StandardCharsets.UTF_8));

        assertThat(serde.serializer().serialize("t", new Box("two"))).containsExactly("two".getBytes(StandardCharsets.UTF_8));
        assertThat(encoded).hasValue(1);
    }

    @Test
    void theValuesDecodedAhead_areRemembered_untilMoreThanTheMemoHoldsWereDecodedAfterThem() {
        // Kafka Streams decodes the next record of every partition before it processes the current one
        Box first = serde.sourceDeserializer().deserialize("t", "first".getBytes(StandardCharsets.UTF_8));
        for (int i = 1; i < MemoSerde.REMEMBERED; i++) {
            serde.sourceDeserializer().deserialize("t", ("ahead " + i).getBytes(StandardCharsets.UTF_8));
        }
        serde.serializer().serialize("t", first);
        assertThat(encoded).hasValue(0);

        serde.sourceDeserializer().deserialize("t", "one too many".getBytes(StandardCharsets.UTF_8));
        assertThat(serde.serializer().serialize("t", first)).containsExactly("first".getBytes(StandardCharsets.UTF_8));
        assertThat(encoded).hasValue(1);
    }

    @Test
    void nullsPassThrough() {
        assertThat(serde.sourceDeserializer().deserialize("t", null)).isNull();
        assertThat(serde.serializer().serialize("t", null)).isNull();
        assertThat(encoded).hasValue(0);
    }

    @Test
    void theStoresOwnReads_rememberNothing() {
        byte[] stored = "read by a query".getBytes(StandardCharsets.UTF_8);
        Box read = serde.deserializer().deserialize("store-changelog", stored);

        assertThat(serde.serializer().serialize("store-changelog", read)).isNotSameAs(stored);
        assertThat(encoded).hasValue(1);
    }

    @Test
    void eachThreadHasItsOwnMemo() {
        Box box = serde.sourceDeserializer().deserialize("t", "mine".getBytes(StandardCharsets.UTF_8));

        CompletableFuture.runAsync(() -> serde.serializer().serialize("t", box)).join();

        assertThat(encoded).hasValue(1);
    }
}
