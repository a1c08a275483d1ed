package dev.tether.session.domain;

import static dev.tether.session.domain.Given.ADMIN;
import static dev.tether.session.domain.Given.AGENT;
import static dev.tether.session.domain.Given.APPROVER;
import static dev.tether.session.domain.Given.OPERATOR;
import static dev.tether.session.domain.Given.SERVICE;
import static dev.tether.session.domain.Given.asking;
import static dev.tether.session.domain.Given.call;
import static dev.tether.session.domain.Given.frameworkState;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tether.core.auth.TetherPrincipal;
import dev.tether.core.event.ActorKind;
import dev.tether.core.event.Event;
import dev.tether.core.event.FrameworkState;
import dev.tether.session.domain.Decision.Accepted;
import dev.tether.session.domain.Decision.Rejected;
import dev.tether.session.domain.Given.World;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@code framework_state} in the sequencer (docs/ARCHITECTURE.md §4): a client's record, appended as it is, with or
 * without the worker's epoch; never a service's; it moves the head's position and nothing else.
 */
class SequencerFrameworkStateTest {

    @Test
    void anAgentsFrameworkState_isAppended_withOrWithoutItsEpoch_attributedAsAPlanIs() {
        World w = World.claimed();
        w.accept(w.append(AGENT, asking(call("c1"))));
        SessionHead before = w.head;

        Accepted withEpoch = w.accept(w.appendEvents(AGENT, w.lastSeq(), w.head.epoch(), w.ev(AGENT, frameworkState("cp-1"))));
        Accepted without = w.accept(w.append(AGENT, frameworkState("cp-2")));
        Accepted byAdmin = w.accept(w.append(ADMIN, frameworkState("cp-3")));

        assertThat(List.of(withEpoch, without, byAdmin)).flatExtracting(Accepted::events).extracting(Event::seq)
                .containsExactly(before.lastSeq() + 1, before.lastSeq() + 2, before.lastSeq() + 3);
        Event first = withEpoch.events().get(0);
        assertThat(first.payload()).isEqualTo(frameworkState("cp-1"));
        assertThat(first.actor().kind()).isEqualTo(ActorKind.MODEL).isEqualTo(Sequencer.actorFor("plan_updated", AGENT).kind());
        assertThat(first.actor().id()).isEqualTo(AGENT.id());
        assertThat(w.head).as("only the position moved").isEqualTo(before.withLastEvent(before.lastSeq() + 3, w.now));
        assertThat(w.head.openCalls()).containsOnlyKeys("c1");
    }

    @Test
    void aServicesFrameworkState_isRefused_andSoIsAnApproversOrAnOperators() {
        World w = World.claimed();

        for (TetherPrincipal by : List.of(SERVICE, APPROVER, OPERATOR)) {
            Rejected r = w.reject(w.append(by, frameworkState("cp-1")));

            assertThat(r.reason()).as(by.id()).isEqualTo(Rejection.ILLEGAL_EVENT);
            assertThat(r.field()).as(by.id()).isEqualTo("events[0].type");
        }
        assertThat(w.reject(w.append(SERVICE, frameworkState("cp-1"))).message()).contains("written by clients");
    }

    @Test
    void aFrameworkStateWithAStaleEpoch_isFenced_likeAnyAppend() {
        World w = World.claimed();
        w.accept(w.claim(Given.OTHER_AGENT, "worker-2", Given.V1, false));

        Rejected r = w.reject(w.appendEvents(AGENT, null, 1L, w.ev(AGENT, frameworkState("cp-1"))));

        assertThat(r.reason()).isEqualTo(Rejection.STALE_EPOCH);
    }

    @Test
    void aFrameworkStateResent_isADuplicate_withItsFirstSeq() {
        World w = World.claimed();
        var event = w.ev(AGENT, new FrameworkState("langgraph", "writes", "[\"\",\"cp-1\",\"task-1\"]", "[[\"messages\",[]]]"));
        long seq = w.accept(w.appendEvents(AGENT, null, null, event)).events().get(0).seq();

        Accepted again = w.accept(w.appendEvents(AGENT, null, null, event));

        assertThat(again.events()).isEmpty();
        assertThat(again.appended()).singleElement().satisfies(a -> {
            assertThat(a.duplicate()).isTrue();
            assertThat(a.seq()).isEqualTo(seq);
        });
        assertThat(w.head.lastSeq()).isEqualTo(seq);
    }
}
