package dev.tether.projector.domain;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tether.core.event.Actor;
import dev.tether.core.event.ActorKind;
import dev.tether.core.event.Event;
import dev.tether.core.event.UserMessage;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;

/** {@link LazyEvents}: a session's events read from its log only when looked at, a growing page at a time from the newest. */
class LazyEventsTest {

    private final List<String> asked = new ArrayList<>();
    private List<Event> log = events(LongStream.rangeClosed(1, 1_000));

    private final ContextSource.Events reads = (id, from, to) -> {
        asked.add(from + ".." + to);
        return log.stream().filter(e -> e.seq() >= from && e.seq() <= to).toList();
    };

    @Test
    void givenNothingLookedAt_thenNothingIsRead() {
        var lazy = new LazyEvents(reads, "s-1", 2, 1_000, Long.MIN_VALUE);

        assertThat(lazy.read()).isZero();
        assertThat(asked).isEmpty();
        assertThat(lazy).as("the size comes with the newest page").hasSize(999);
        assertThat(asked).containsExactly("937..1000");
    }

    @Test
    void givenTheNewestLookedAtOneByOne_thenPagesFromTheNewestBack_eachAsLargeAsAllReadBefore() {
        var lazy = new LazyEvents(reads, "s-1", 2, 1_000, Long.MIN_VALUE);

        for (int i = lazy.size() - 1; i >= lazy.size() - 300; i--) {
            assertThat(lazy.get(i).seq()).isEqualTo(i + 2);
        }

        assertThat(asked).containsExactly("937..1000", "873..936", "745..872", "489..744");
        assertThat(lazy.read()).isEqualTo(512);
    }

    @Test
    void givenAnOldEventLookedAt_thenEverythingDownToItIsReadInOneRange_afterTheNewestPage_andTheWholeListIsTheLog() {
        var lazy = new LazyEvents(reads, "s-1", 2, 1_000, Long.MIN_VALUE);

        assertThat(lazy.get(0).seq()).isEqualTo(2);
        assertThat(asked).containsExactly("937..1000", "2..936");
        assertThat(lazy).isEqualTo(log.subList(1, 1_000));
    }

    @Test
    void givenASkippedSeq_thenItIsLeftOut_andTheOthersKeepTheirPlaces() {
        var lazy = new LazyEvents(reads, "s-1", 501, 1_000, 700);

        assertThat(lazy).hasSize(499);
        assertThat(lazy.get(198).seq()).isEqualTo(699);
        assertThat(lazy.get(199).seq()).isEqualTo(701);
        assertThat(lazy.get(498).seq()).isEqualTo(1_000);
        assertThat(lazy).extracting(Event::seq).doesNotContain(700L).hasSize(499);
        assertThat(new LazyEvents(reads, "s-1", 501, 1_000, 7)).as("a seq outside the range skips none").hasSize(500);
    }

    @Test
    void givenALogWithASeqMissing_thenReadingItThrowsAndSaysWhere_neverAShorterList() {
        log = events(LongStream.rangeClosed(1, 1_000).filter(seq -> seq != 900));
        var lazy = new LazyEvents(reads, "s-1", 2, 1_000, Long.MIN_VALUE);

        assertThat(lazy.get(998).seq()).as("the newest page is whole").isEqualTo(1_000);
        assertThat(lazy.read()).isEqualTo(64);
        assertThatThrownBy(() -> lazy.get(800)).isInstanceOf(LazyEvents.MissingEvents.class)
                .hasMessageContaining("session s-1").hasMessageContaining("does not hold every seq from 802 to 936");
    }

    @Test
    void givenTheSessionErasedAfterTheNewestPage_thenAnOlderEventIsMissingEvents_notAShorterList() {
        var lazy = new LazyEvents(reads, "s-1", 2, 1_000, Long.MIN_VALUE);
        assertThat(lazy.get(998).seq()).isEqualTo(1_000);

        log = List.of(); // erased: its events deleted from the store between two page reads

        assertThat(lazy.get(990).seq()).as("what was read is kept").isEqualTo(992);
        assertThatThrownBy(() -> lazy.get(900)).isInstanceOf(LazyEvents.MissingEvents.class)
                .hasMessageContaining("does not hold every seq from 873 to 936");
    }

    @Test
    void givenALogThatEndsBeforeToSeq_asAWarmCopyBehindItsCheckpoint_thenTheListEndsWhereTheLogDoes() {
        log = events(LongStream.rangeClosed(1, 990));
        var behind = new LazyEvents(reads, "s-1", 2, 1_000, Long.MIN_VALUE);

        assertThat(behind).hasSize(989);
        assertThat(behind.get(988).seq()).isEqualTo(990);
        assertThat(behind).isEqualTo(log.subList(1, 990));

        log = events(LongStream.rangeClosed(1, 500));
        asked.clear();
        var farBehind = new LazyEvents(reads, "s-1", 2, 1_000, 700);
        assertThat(farBehind).as("nothing in the newest page: the rest, at once").hasSize(499).isEqualTo(log.subList(1, 500));
        assertThat(asked).containsExactly("937..1000", "2..936");

        log = List.of();
        assertThat(new LazyEvents(reads, "s-1", 2, 1_000, Long.MIN_VALUE)).isEmpty();
    }

    @Test
    void givenAnEmptyRange_thenTheListIsEmpty() {
        assertThat(new LazyEvents(reads, "s-1", 2, 1, Long.MIN_VALUE)).isEmpty();
        assertThat(asked).isEmpty();
    }

    private static List<Event> events(LongStream seqs) {
        return seqs.mapToObj(seq -> new Event("e" + seq, "s-1", "acme", seq, Instant.EPOCH.plusSeconds(seq), new Actor(ActorKind.USER, "alice"),
                "v1", new UserMessage("message " + seq, null))).toList();
    }
}
