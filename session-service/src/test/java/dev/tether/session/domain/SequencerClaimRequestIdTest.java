package dev.tether.session.domain;

import static dev.tether.session.domain.Given.AGENT;
import static dev.tether.session.domain.Given.OTHER_AGENT;
import static dev.tether.session.domain.Given.V1;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tether.session.domain.Given.World;
import org.junit.jupiter.api.Test;

/**
 * A claim's retry is recognized by its command id, which is the client's requestId (the SDKs let a caller choose it). A
 * claim of another worker reusing the latest claim's requestId is refused: answered as that claim, it would hand the new
 * worker the current epoch, fencing nobody and telling it nothing of the session it resumes.
 */
class SequencerClaimRequestIdTest {

    @Test
    void anotherWorkersClaim_reusingTheLatestClaimsRequestId_isNotAnsweredAsThatClaimsRetry() {
        World w = World.started();
        var first = new CommandEnvelope("claim-" + w.sessionId, w.sessionId, AGENT.tenantId(), AGENT, w.now,
                new Command.ClaimSession("worker-1", V1, false));
        w.accept(first);
        assertThat(w.head.epoch()).isEqualTo(1);

        // worker-1 vanished; worker-2 (another agent) claims with the same requestId
        var second = new CommandEnvelope("claim-" + w.sessionId, w.sessionId, OTHER_AGENT.tenantId(), OTHER_AGENT, w.now,
                new Command.ClaimSession("worker-2", V1, false));
        Decision d = w.apply(second);

        if (d instanceof Decision.Accepted a) {
            assertThat(a.head().workerId()).as("the worker the accepted claim gives the session to").isEqualTo("worker-2");
            assertThat(a.head().epoch()).as("worker-2's epoch, which must fence worker-1's 1").isGreaterThan(1);
        }
    }
}
