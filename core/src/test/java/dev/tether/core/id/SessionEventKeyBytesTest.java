package dev.tether.core.id;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import org.junit.jupiter.api.Test;

class SessionEventKeyBytesTest {

    @Test
    void aKey_isFormatLengthIdAndSeq_byteForByte() {
        // the bytes in session-events and in the stores restored from it: they never change
        assertThat(SessionEventKeyBytes.encode("s1", 258)).containsExactly(1, 0, 2, 's', '1', 0, 0, 0, 0, 0, 0, 1, 2);
    }

    @Test
    void roundTrips_unicodeIdsAndLargeSeqs() {
        for (var key : new SessionEventKeyBytes.Decoded[] {
                new SessionEventKeyBytes.Decoded("s-1", 1),
                new SessionEventKeyBytes.Decoded("セッション/ü", Long.MAX_VALUE),
                new SessionEventKeyBytes.Decoded("", 42)}) {
            assertThat(SessionEventKeyBytes.decode(SessionEventKeyBytes.encode(key.sessionId(), key.seq()))).isEqualTo(key);
        }
    }

    @Test
    void keysOfOneSession_sortBySeq_andAnotherSessionsAreOutsideTheirRange() {
        byte[] from = SessionEventKeyBytes.encode("s-1", 1);
        byte[] ten = SessionEventKeyBytes.encode("s-1", 10);
        byte[] to = SessionEventKeyBytes.encode("s-1", Long.MAX_VALUE);
        byte[] other = SessionEventKeyBytes.encode("s-10", 1);

        assertThat(Arrays.compareUnsigned(from, ten)).isNegative();
        assertThat(Arrays.compareUnsigned(ten, to)).isNegative();
        assertThat(Arrays.compareUnsigned(other, from) < 0 || Arrays.compareUnsigned(other, to) > 0).isTrue();
    }

    @Test
    void refusesWhatIsNotAKey_andAnIdTooLongForOne() {
        assertThatThrownBy(() -> SessionEventKeyBytes.decode("s-1".getBytes())).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("not a session-events key (3 bytes, format 115)");
        byte[] truncated = Arrays.copyOf(SessionEventKeyBytes.encode("s-1", 5), 12);
        assertThatThrownBy(() -> SessionEventKeyBytes.decode(truncated)).hasMessageContaining("the sessionId's length 3 does not fit 12 bytes");
        assertThatThrownBy(() -> SessionEventKeyBytes.encode("x".repeat(0x10000), 1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("longer than 65535 bytes");
    }
}
