package dev.tether.tools;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class CancellationTokenTest {

    private final CancellationToken token = new CancellationToken();
    private final List<String> ran = new ArrayList<>();

    @Test
    void runsEachRegisteredAction_once_whenCancelled() {
        token.onCancel(() -> ran.add("kill command"));
        token.onCancel(() -> ran.add("abort fetch"));

        token.cancel();
        token.cancel();

        assertThat(token.isCancelled()).isTrue();
        assertThat(ran).containsExactly("kill command", "abort fetch");
    }

    @Test
    void runsAnActionAtOnce_whenRegisteredAfterTheCancellation() {
        token.cancel();

        token.onCancel(() -> ran.add("late")).close();

        assertThat(ran).containsExactly("late");
    }

    @Test
    void runsNoAction_thatWasUnregistered() {
        CancellationToken.Registration done = token.onCancel(() -> ran.add("finished work"));
        token.onCancel(() -> ran.add("still running"));

        done.close();
        done.close();
        token.cancel();

        assertThat(ran).containsExactly("still running");
    }

    @Test
    void isNotCancelled_untilCancelled() {
        token.onCancel(() -> ran.add("x"));

        assertThat(token.isCancelled()).isFalse();
        assertThat(ran).isEmpty();
    }
}
