package dev.tether.kit.service.rest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tether.core.event.Actor;
import dev.tether.core.event.ActorKind;
import dev.tether.core.event.Event;
import dev.tether.core.event.UserMessage;
import dev.tether.kit.json.EventJson;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;

/**
 * {@link EventPage}, the contract both {@code GET /v1/sessions/{id}/events} share: the query's defaults and refusals,
 * {@code nextSeq} after the last event returned (or {@code fromSeq}), and the JSON written and read back.
 */
class EventPageTest {

    private static final EventJson JSON = new EventJson();

    private static List<Event> events(long from, long to) {
        return LongStream.rangeClosed(from, to).mapToObj(seq -> new Event("e" + seq, "s-1", "acme", seq,
                Instant.parse("2026-03-01T09:00:00Z").plusSeconds(seq), new Actor(ActorKind.USER, "alice"), "v1",
                new UserMessage("m" + seq, null))).toList();
    }

    @Test
    void aQueryWithoutParameters_startsAt1_withAPageOf100() {
        assertThat(EventPage.Query.of(null, null, 1000)).isEqualTo(new EventPage.Query(1, 100));
        assertThat(EventPage.Query.of(7L, 1000, 1000)).isEqualTo(new EventPage.Query(7, 1000));
    }

    @Test
    void aQueryOutOfRange_is400NamingTheParameter() {
        for (long bad : new long[] {0, -1, Long.MIN_VALUE}) {
            assertThatThrownBy(() -> EventPage.Query.of(bad, null, 1000)).isInstanceOfSatisfying(ApiException.class, e -> {
                assertThat(e.status()).isEqualTo(400);
                assertThat(e.body()).containsEntry("field", "fromSeq").containsEntry("message", "must be at least 1");
            });
        }
        for (int bad : new int[] {0, -1, 1001, Integer.MAX_VALUE}) {
            assertThatThrownBy(() -> EventPage.Query.of(1L, bad, 1000)).isInstanceOfSatisfying(ApiException.class, e -> {
                assertThat(e.status()).isEqualTo(400);
                assertThat(e.body()).containsEntry("field", "limit").containsEntry("message", "must be from 1 to 1000");
            });
        }
    }

    @Test
    void aQuerysLastWantedSeq_isLimitEventsOn_andNotPastTheBound() {
        var query = new EventPage.Query(5, 10);

        assertThat(query.lastWanted(100)).isEqualTo(14);
        assertThat(query.lastWanted(8)).isEqualTo(8);
    }

    @Test
    void nextSeq_isAfterTheLastEventReturned_orFromSeqWhenNoneWas() {
        assertThat(EventPage.of(events(3, 5), 3, 9)).extracting(EventPage::lastSeq, EventPage::nextSeq).containsExactly(9L, 6L);
        assertThat(EventPage.of(List.of(), 10, 9)).extracting(EventPage::lastSeq, EventPage::nextSeq).containsExactly(9L, 10L);
        assertThat(EventPage.none(4)).extracting(EventPage::events, EventPage::lastSeq, EventPage::nextSeq)
                .containsExactly(List.of(), 0L, 4L);
    }

    @Test
    void theJson_isEventsLastSeqNextSeq_andReadsBackTheSame() throws Exception {
        EventPage page = EventPage.of(events(1, 2), 1, 5);

        ObjectNode json = page.toJson(JSON);

        assertThat(json.fieldNames()).toIterable().containsExactly("events", "lastSeq", "nextSeq");
        assertThat(json.get("events")).hasSize(2);
        assertThat(json.get("events").get(0)).isEqualTo(JSON.write(events(1, 1).get(0)));
        assertThat(json.get("lastSeq").asLong()).isEqualTo(5);
        assertThat(json.get("nextSeq").asLong()).isEqualTo(3);
        assertThat(EventPage.fromJson(JSON, JSON.mapper().writeValueAsBytes(json), 1, "acme")).isEqualTo(page);
    }

    @Test
    void theAnswerOfAProjectorFromBeforeTheContract_readsWithItsLastSeqUnknown() throws Exception {
        ObjectNode old = JSON.mapper().createObjectNode();
        old.putArray("events").add(JSON.write(events(4, 4).get(0)));
        old.put("nextFromSeq", 5);

        EventPage page = EventPage.fromJson(JSON, old.toString().getBytes(StandardCharsets.UTF_8), 4, "acme");

        assertThat(page.events()).extracting(Event::seq).containsExactly(4L);
        assertThat(page.nextSeq()).isEqualTo(5);
        assertThat(page.lastSeq()).as("unknown: read on until a page is empty").isEqualTo(Long.MAX_VALUE);
    }
}
