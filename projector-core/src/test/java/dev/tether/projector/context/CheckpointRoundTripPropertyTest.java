package dev.tether.projector.context;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tether.core.event.Event;
import dev.tether.projector.avro.CheckpointAvro;
import dev.tether.projector.context.SessionScript.Action;
import dev.tether.projector.domain.Projection;
import dev.tether.projector.domain.SessionProjection;
import java.util.List;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * For random sessions, every checkpoint of the fold reads back from its Avro exactly as it was written. The projector
 * relies on it: between the events of a session it folds the next event into the checkpoint it kept in memory rather
 * than into the one it stored, and the two must be the same value, or a checkpoint would depend on when the projector
 * last read its store (a restart, a commit).
 */
class CheckpointRoundTripPropertyTest {

    @Property(tries = 500, seed = "20261202")
    void everyCheckpointOfTheFold_readsBackFromItsAvro_asItWasWritten(@ForAll("sessions") List<Action> actions) {
        SessionProjection state = null;
        for (Event event : SessionScript.play(actions).events()) {
            state = Projection.evolve(state, event, 3, 100 + event.seq());
            assertThat(CheckpointAvro.load(CheckpointAvro.toAvro(state)).projection()).as("the checkpoint at seq %d", event.seq())
                    .isEqualTo(state);
        }
    }

    @Provide
    Arbitrary<List<Action>> sessions() {
        return new ContextPrefixPropertyTest().sessions();
    }
}
