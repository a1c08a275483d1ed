package dev.tether.kit.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.apache.kafka.common.errors.SerializationException;
import org.junit.jupiter.api.Test;

class SessionEventKeySerdeTest {

    private final SessionEventKeySerde serde = new SessionEventKeySerde();

    @Test
    void roundTrips_unicodeIdsAndLargeSeqs() {
        for (var key : new SessionEventKey[] {
                new SessionEventKey("s-1", 1),
                new SessionEventKey("セッション/ü", Long.MAX_VALUE),
                new SessionEventKey("", 42)}) {
            byte[] bytes = serde.serialize("session-events", key);
            assertThat(bytes[0]).isEqualTo(SessionEventKeySerde.FORMAT_V1);
            assertThat(serde.deserialize("session-events", bytes)).isEqualTo(key);
        }
    }

    @Test
    void distinctEvents_haveDistinctKeys_soCompactionKeepsEveryOne() {
        assertThat(serde.serialize("t", new SessionEventKey("s", 1)))
                .isNotEqualTo(serde.serialize("t", new SessionEventKey("s", 2)));
        assertThat(serde.serialize("t", new SessionEventKey("s1", 1)))
                .isNotEqualTo(serde.serialize("t", new SessionEventKey("s", 11)));
    }

    @Test
    void keysOfOneSession_sortBySeq_andShareAPrefix_soARangeScanServesThem() {
        byte[] a = serde.serialize("t", new SessionEventKey("s-1", 2));
        byte[] b = serde.serialize("t", new SessionEventKey("s-1", 10));
        byte[] c = serde.serialize("t", new SessionEventKey("s-1", 300));
        byte[] other = serde.serialize("t", new SessionEventKey("s-10", 1));

        assertThat(java.util.Arrays.compareUnsigned(a, b)).isNegative();
        assertThat(java.util.Arrays.compareUnsigned(b, c)).isNegative();
        byte[] from = serde.serialize("t", new SessionEventKey("s-1", 1));
        byte[] to = serde.serialize("t", new SessionEventKey("s-1", Long.MAX_VALUE));
        // another session's key, even one whose id starts the same, is outside the range
        assertThat(java.util.Arrays.compareUnsigned(other, from) < 0 || java.util.Arrays.compareUnsigned(other, to) > 0).isTrue();
    }

    @Test
    void nullStaysNull() {
        assertThat(serde.serialize("t", null)).isNull();
        assertThat(serde.deserialize("t", null)).isNull();
    }

    @Test
    void rejectsBytesThatAreNotAKey() {
        assertThatThrownBy(() -> serde.deserialize("session-events", "s-1".getBytes()))
                .isInstanceOf(SerializationException.class)
                .hasMessageContaining("not a session-events key");
    }

    @Test
    void rejectsSeqBelowOne() {
        assertThatThrownBy(() -> new SessionEventKey("s", 0)).hasMessageContaining("seq starts at 1");
    }
}
