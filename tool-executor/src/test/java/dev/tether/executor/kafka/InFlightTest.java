package dev.tether.executor.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tether.tools.CancellationToken;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/**
 * What {@link InFlight} remembers of the last {@value InFlight#REMEMBERED_SESSIONS} sessions that had an interruption or an
 * erasure: the sessions whose latest one is the most recent, however long ago their first one was.
 */
class InFlightTest {

    private static final Instant AUTHORIZED = Instant.parse("2026-11-29T10:00:00Z");

    @Test
    void aSessionInterruptedAgain_isRememberedAsRecent_notForgottenForItsFirstInterruption() {
        var inFlight = new InFlight();
        inFlight.interrupt("s1", 10);
        for (int i = 0; i < InFlight.REMEMBERED_SESSIONS - 1; i++) {
            inFlight.interrupt("other-" + i, 5);
        }
        inFlight.interrupt("s1", 50); // the most recent interruption of all
        inFlight.interrupt("one-more", 5);

        assertThat(inFlight.lastInterruptSeq("s1")).as("its turn at seq 50 was interrupted a moment ago").isEqualTo(50);
        var token = new CancellationToken();
        try (var ignored = inFlight.register("s1", 45, AUTHORIZED, token)) {
            assertThat(token.isCancelled()).as("a call of the interrupted turn, come late").isTrue();
        }
    }

    @Test
    void aSessionErasedAgain_isRememberedAsRecent_notForgottenForItsFirstErasure() {
        var inFlight = new InFlight();
        inFlight.erased("s1", AUTHORIZED.minusSeconds(600));
        for (int i = 0; i < InFlight.REMEMBERED_SESSIONS - 1; i++) {
            inFlight.erased("other-" + i, AUTHORIZED.minusSeconds(300));
        }
        inFlight.erased("s1", AUTHORIZED.plusSeconds(60)); // a later session under the id, erased a moment ago
        inFlight.erased("one-more", AUTHORIZED.plusSeconds(61));

        assertThat(inFlight.erasedAt("s1")).isEqualTo(AUTHORIZED.plusSeconds(60));
    }
}
