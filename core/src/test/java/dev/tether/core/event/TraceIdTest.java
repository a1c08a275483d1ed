package dev.tether.core.event;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** What an event accepts as the trace it was appended in: a W3C trace id, 32 lowercase hexadecimal digits, not all zero. */
class TraceIdTest {

    @Test
    void aW3cTraceId_isOne() {
        assertThat(Event.isTraceId("4bf92f3577b34da6a3ce929d0e0e4736")).isTrue();
        assertThat(Event.isTraceId("00000000000000000000000000000001")).isTrue();
    }

    @Test
    void anythingElse_isNot() {
        assertThat(Event.isTraceId(null)).isFalse();
        assertThat(Event.isTraceId("")).isFalse();
        assertThat(Event.isTraceId("00000000000000000000000000000000")).as("all zero: invalid in W3C").isFalse();
        assertThat(Event.isTraceId("4BF92F3577B34DA6A3CE929D0E0E4736")).as("uppercase").isFalse();
        assertThat(Event.isTraceId("4bf92f3577b34da6a3ce929d0e0e473")).as("31 digits").isFalse();
        assertThat(Event.isTraceId("4bf92f3577b34da6a3ce929d0e0e47360")).as("33 digits").isFalse();
        assertThat(Event.isTraceId("4bf92f3577b34da6a3ce929d0e0e473g")).as("not hexadecimal").isFalse();
        assertThat(Event.isTraceId("4bf92f3577b34da6-3ce929d0e0e4736")).isFalse();
    }
}
