package dev.tether.session.domain;

import static dev.tether.session.domain.Given.AGENT;
import static dev.tether.session.domain.Given.OPERATOR;
import static dev.tether.session.domain.Given.V1;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import dev.tether.session.domain.Given.World;
import org.junit.jupiter.api.Test;

/**
 * A command that decide throws on is a poison: it is never committed, comes first again after every restart, and stops
 * the sequencer for every tenant. The REST edge checks a claim's workerId and a migration's version, but another writer of
 * session-commands may not: the sequencer refuses them blank rather than throw building the event.
 */
class SequencerBlankCommandTest {

    @Test
    void aClaimWithABlankWorkerId_isRefused_notThrown() {
        World w = World.started();

        assertThatCode(() -> w.decide(w.claim(AGENT, "", V1, false))).as("decide on a claim with a blank workerId")
                .doesNotThrowAnyException();
        assertThat(w.decide(w.claim(AGENT, " ", V1, false))).isInstanceOf(Decision.Rejected.class);
    }

    @Test
    void aMigrationToABlankVersion_isRefused_notThrown() {
        World w = World.started();

        assertThatCode(() -> w.decide(w.migrate(OPERATOR, ""))).as("decide on a migration to a blank version")
                .doesNotThrowAnyException();
        assertThat(w.decide(w.migrate(OPERATOR, " "))).isInstanceOf(Decision.Rejected.class);
    }
}
