package dev.tether.core.id;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Instant;
import org.junit.jupiter.api.Test;

class IdempotencyKeyTest {

    @Test
    void isSessionSlashRequestSeqSlashCallId() {
        // the shape of every tool-requests / tool-outcomes key and of the keys in tool_result events already written
        assertThat(IdempotencyKey.of("demo-1", 5, "call-1")).isEqualTo("demo-1/5/call-1");
        assertThat(IdempotencyKey.of("s1", 12, "c1")).isEqualTo("s1/12/c1");
    }

    @Test
    void anotherRequestingEvent_givesAnotherKey() {
        // a RETRY decision re-derives the key from its own seq: a new key, so the new attempt is not the old one
        assertThat(IdempotencyKey.of("s1", 5, "c1")).isNotEqualTo(IdempotencyKey.of("s1", 9, "c1"));
        assertThat(IdempotencyKey.of("s1", 5, "c1")).isNotEqualTo(IdempotencyKey.of("s1", 5, "c2"));
    }

    @Test
    void theRequestSeq_isReadBackFromAKey_whateverTheCallIdHolds() {
        assertThat(IdempotencyKey.requestSeqOf("demo-1/5/call-1")).isEqualTo(5);
        assertThat(IdempotencyKey.requestSeqOf(IdempotencyKey.of("s1", 12, "toolu_01/a/b"))).isEqualTo(12);
    }

    @Test
    void aKeyOfAnotherShape_isRefused_namingIt() {
        for (String bad : new String[] {"s1", "s1/5", "s1/5/", "/5/c1", "s1/x/c1", "s1/0/c1", "s1//c1"}) {
            assertThatThrownBy(() -> IdempotencyKey.requestSeqOf(bad)).as(bad).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("'" + bad + "'");
        }
    }

    @Test
    void theExternalKey_addsTheSessionsStart_inMilliseconds_soASessionMadeAgainUnderTheIdHandsOutAnother() {
        String key = IdempotencyKey.of("s1", 5, "c1");
        Instant first = Instant.parse("2026-12-01T08:46:49.377Z");
        Instant again = Instant.parse("2026-12-01T09:02:11.004Z"); // the same id, made again after an erasure
        assertThat(IdempotencyKey.external(key, first)).isEqualTo("s1/5/c1~1796114809377");
        assertThat(IdempotencyKey.external(key, again)).isNotEqualTo(IdempotencyKey.external(key, first));
        // sub-millisecond digits are cut, as the Avro timestamp-millis the event is stored with cuts them
        assertThat(IdempotencyKey.external(key, first.plusNanos(999_999))).isEqualTo(IdempotencyKey.external(key, first));
        // not known (a request of a projector before it): the key itself, what tools were handed before
        assertThat(IdempotencyKey.external(key, null)).isEqualTo(key);
    }
}
