package dev.tether.core.event;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class TurnInterruptedTest {

    @Test
    void anInterruption_cutsOffExactlyTheCallsAskedForBeforeIt() {
        assertThat(TurnInterrupted.cutsOff(6, 5)).as("the call of the message before it").isTrue();
        assertThat(TurnInterrupted.cutsOff(9, 5)).as("however long before").isTrue();
        assertThat(TurnInterrupted.cutsOff(5, 9)).as("a call of a later turn").isFalse();
        assertThat(TurnInterrupted.cutsOff(0, 5)).as("no interruption").isFalse();
    }
}
