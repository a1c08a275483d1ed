package dev.tether.session.domain;

import static dev.tether.session.domain.Given.AGENT;
import static dev.tether.session.domain.Given.BUDGET;
import static dev.tether.session.domain.Given.LATER;
import static dev.tether.session.domain.Given.PARENT_SESSION;
import static dev.tether.session.domain.Given.SERVICE;
import static dev.tether.session.domain.Given.closed;
import static dev.tether.session.domain.Given.started;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tether.core.event.Event;
import dev.tether.core.event.SubagentResult;
import dev.tether.session.domain.Decision.Accepted;
import dev.tether.session.domain.Decision.NotifyParent;
import dev.tether.session.domain.Given.World;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/**
 * An id is free again once its session is erased, and a subagent's id is the client's to choose: a child made again under
 * an erased child's id reports a result of its own, whose eventId names the child session (its start), so the parent does
 * not take it for a duplicate of the first child's.
 */
class SequencerSubagentMadeAgainTest {

    static final String CHILD = "child-session-1";

    @Test
    void aChildMadeAgainUnderAnErasedChildsId_reportsItsOwnResultToTheParent() {
        World parent = World.started(PARENT_SESSION, started());
        Instant parentStart = parent.head.startedAt();

        World first = World.started(CHILD, started(BUDGET, PARENT_SESSION, parentStart));
        NotifyParent n1 = (NotifyParent) first.accept(first.append(AGENT, closed("first child: found 3 bugs"))).followUps().get(0);
        parent.accept(parent.appendEvents(SERVICE, null, null, n1.event()));
        first.accept(first.erase(AGENT));
        assertThat(first.head).isNull();

        World second = World.empty(CHILD);
        second.now = LATER;
        second.accept(second.append(AGENT, started(BUDGET, PARENT_SESSION, parentStart)));
        NotifyParent n2 = (NotifyParent) second.accept(second.append(AGENT, closed("second child: all green"))).followUps().get(0);
        Accepted delivered = parent.accept(parent.appendEvents(SERVICE, null, null, n2.event()));

        assertThat(delivered.events()).as("the second child's result in the parent's log")
                .extracting(Event::payload)
                .containsExactly(new SubagentResult(CHILD, "second child: all green", parentStart));
    }
}
