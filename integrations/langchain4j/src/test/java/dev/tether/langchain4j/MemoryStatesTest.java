package dev.tether.langchain4j;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The bounded per-memory states: which are evicted, what they leave behind, and that one in use is never made twice. */
class MemoryStatesTest {

    /** A state that counts how it was made: from nothing, or from what an evicted one left. */
    private record State(String key, String madeFrom) {}

    private final List<String> made = new ArrayList<>();
    private final MemoryStates<State, String> states = new MemoryStates<>(2, s -> "left by " + s.key());

    private State use(String key) {
        State s = states.acquire(key, held -> {
            made.add(key);
            return new State(key, held);
        });
        states.release(key);
        return s;
    }

    @Test
    void theLeastRecentlyUsed_isEvicted_andItsNextStateStartsFromWhatItLeft() {
        State a = use("a");
        use("b");
        assertThat(use("a")).as("still there").isSameAs(a);
        use("c"); // b is the least recently used

        assertThat(states.size()).isEqualTo(2);
        assertThat(use("a")).isSameAs(a);
        assertThat(use("b").madeFrom()).isEqualTo("left by b");
        assertThat(states.heldSize()).as("c, evicted by b").isEqualTo(1);
        assertThat(made).containsExactly("a", "b", "c", "b");
    }

    @Test
    void aStateInUse_isNeverEvicted_soAMemoryNeverHasTwo() {
        State a = states.acquire("a", held -> new State("a", held));
        use("b");
        use("c");
        use("d");

        assertThat(states.acquire("a", held -> new State("a", "made twice"))).isSameAs(a);
        states.release("a");
        states.release("a");
        use("e"); // evicts d, used longer ago than a
        use("f"); // evicts a, no longer in use
        assertThat(states.size()).isEqualTo(2);
        assertThat(use("a").madeFrom()).isEqualTo("left by a");
    }

    @Test
    void nothingIsHeld_forAStateThatLeavesNothing() {
        var forgetful = new MemoryStates<State, String>(1, s -> null);
        forgetful.acquire("a", held -> new State("a", held));
        forgetful.release("a");
        forgetful.acquire("b", held -> new State("b", held));
        forgetful.release("b");
        assertThat(forgetful.heldSize()).isZero();
        assertThat(forgetful.size()).isEqualTo(1);
    }

    @Test
    void misuseIsRefused() {
        assertThatThrownBy(() -> new MemoryStates<State, String>(0, s -> null)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("capacity");
        assertThatThrownBy(() -> states.release("never")).isInstanceOf(IllegalStateException.class);
    }
}
