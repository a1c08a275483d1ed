package dev.tether.executor.domain;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The eventId of a call's tool_result is compared with the one already in the log when an ended call is reported again. */
class ResultEventIdTest {

    @Test
    void isTheValueTheExecutorHasAlwaysDerived() {
        // computed by the executor's own derivation before DerivedIds replaced it
        assertThat(CallRules.resultEventId("s1/5/c1")).isEqualTo("a81c3006-0810-3800-a090-b6e7a5d964a1");
    }
}
