package dev.tether.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashSet;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class EventIdsTest {

    @Test
    void sameSessionStepAndIndex_giveTheSameId_acrossCallsAndProcesses() {
        // computed independently with Python: uuid.uuid3(UUID("f1751fa4-…"), "demo-1/turn-3/0")
        assertThat(EventIds.of("demo-1", "turn-3", 0)).isEqualTo("06d08208-279b-3a4c-a53d-746a738ec850");
        assertThat(EventIds.of("demo-1", "turn-3", 1)).isEqualTo("6f17bec5-4bcb-34c4-803e-e840a0780bcf");
        assertThat(EventIds.of("demo-1", "turn-3", 0)).isEqualTo(EventIds.of("demo-1", "turn-3", 0));
    }

    @Test
    void nameBased_isRfc4122Version3() {
        // RFC 4122's own example namespace; the value Python's uuid.uuid3(NAMESPACE_DNS, "python.org") gives
        UUID dns = UUID.fromString("6ba7b810-9dad-11d1-80b4-00c04fd430c8");
        UUID id = EventIds.nameBased(dns, "python.org");
        assertThat(id).isEqualTo(UUID.fromString("6fa459ea-ee8a-3ca4-894e-db77e160355e"));
        assertThat(id.version()).isEqualTo(3);
        assertThat(id.variant()).isEqualTo(2);
    }

    @Test
    void anotherSessionStepOrIndex_givesAnotherId() {
        var ids = new HashSet<String>();
        for (String session : new String[] {"s1", "s2"}) {
            for (String step : new String[] {"turn-1", "turn-2", "turn-1/result"}) {
                for (int i = 0; i < 5; i++) {
                    ids.add(EventIds.of(session, step, i));
                }
            }
        }
        assertThat(ids).hasSize(2 * 3 * 5);
    }

    @Test
    void refusesWhatCouldMakeTwoNamesAlike() {
        assertThatThrownBy(() -> EventIds.of("a/b", "c", 0)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'/'");
        assertThatThrownBy(() -> EventIds.of("s", "step", -1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> EventIds.of("s", " ", 0)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aBatch_derivesIdsFromItsStep_exceptWhereAnEventFixesItsOwn() {
        AppendBatch batch = AppendBatch.forStep("turn-3", NewEvent.userMessage("a"), NewEvent.userMessage("b").withEventId("fixed-id"),
                NewEvent.userMessage("c"));
        assertThat(batch.eventIds("demo-1")).containsExactly(EventIds.of("demo-1", "turn-3", 0), "fixed-id",
                EventIds.of("demo-1", "turn-3", 2));
        // the same step sent again (a retry, a restarted worker) carries the same ids
        assertThat(AppendBatch.forStep("turn-3", NewEvent.userMessage("a"), NewEvent.userMessage("b").withEventId("fixed-id"),
                NewEvent.userMessage("c")).eventIds("demo-1")).isEqualTo(batch.eventIds("demo-1"));
    }
}
