package dev.tether.session.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tether.core.event.Actor;
import dev.tether.core.event.ActorKind;
import dev.tether.core.event.Event;
import dev.tether.core.event.SessionStarted;
import dev.tether.core.event.ToolMode;
import dev.tether.session.domain.Sequencer;
import dev.tether.session.domain.SessionHead;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Whether the event store has reached a session, not an erased one of its id ({@link SessionStores#holdsStartOf}): what a
 * page, a fork and a live stream wait for before they read a session's events.
 */
class SessionStoresStartTest {

    private static final Instant ERASED_START = Instant.parse("2026-03-01T10:00:00Z");
    private static final Instant START = Instant.parse("2026-03-01T10:05:00.123Z");

    @Test
    void theStoreHoldsTheSession_onceItHoldsItsFirstEvent() {
        SessionHead head = Sequencer.evolve(null, start("tenant-a", START));

        assertThat(SessionStores.holdsStartOf(head, List.of(start("tenant-a", START)))).isTrue();
    }

    @Test
    void theStoreHoldsNotTheSession_whileItHoldsAnErasedOnesEventsUnderItsId_orNoneYet() {
        SessionHead head = Sequencer.evolve(null, start("tenant-b", START));

        assertThat(SessionStores.holdsStartOf(head, List.of(start("tenant-a", ERASED_START)))).as("another tenant's").isFalse();
        assertThat(SessionStores.holdsStartOf(head, List.of(start("tenant-b", ERASED_START)))).as("the tenant's erased one").isFalse();
        assertThat(SessionStores.holdsStartOf(head, List.of())).as("none yet").isFalse();
    }

    @Test
    void aHeadStoredBeforeSessionsKeptTheirStart_isToldByItsTenant() {
        SessionHead head = Sequencer.evolve(null, start("tenant-a", START));
        SessionHead old = new SessionHead(head.sessionId(), head.tenantId(), head.owner(), head.lastSeq(), head.epoch(), head.workerId(),
                head.modelId(), head.harnessVersion(), head.toolMode(), head.closed(), head.used(), head.tokenBudget(),
                head.parentSessionId(), head.openCalls(), head.lastClaimEventId(), head.lastClaimResume(), head.lastInterruptSeq(),
                head.harnessTools(), null, null, null);

        assertThat(SessionStores.holdsStartOf(old, List.of(start("tenant-a", ERASED_START)))).isTrue();
        assertThat(SessionStores.holdsStartOf(old, List.of(start("tenant-b", ERASED_START)))).isFalse();
    }

    private static Event start(String tenantId, Instant at) {
        return new Event("ev-" + at, "session-1", tenantId, 1, at, new Actor(ActorKind.SYSTEM, "agent-1"), "v1",
                new SessionStarted("o", "", "model-x", "v1", ToolMode.WRITE, List.of(), null, null, List.of(), null));
    }
}
