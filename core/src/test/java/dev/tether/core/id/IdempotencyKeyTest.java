package dev.tether.core.id;

import static org.assertj.core.api.Assertions.assertThat;

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
}
