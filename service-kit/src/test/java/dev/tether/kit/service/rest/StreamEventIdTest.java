package dev.tether.kit.service.rest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Instant;
import org.junit.jupiter.api.Test;

/**
 * A live stream's event ids carry the session's start, so that a reconnect can tell the session it followed from one
 * made under the same id since; a bare seq, as older clients send, is still taken; anything else is a 400 naming the
 * header.
 */
class StreamEventIdTest {

    private static final Instant START = Instant.parse("2026-12-06T12:00:00.123Z");

    @Test
    void anId_namesTheSeqAndTheSessionsStart_andIsReadBackAsWritten() {
        String id = StreamEventId.of(7, START);

        assertThat(id).isEqualTo("7@2026-12-06T12:00:00.123Z");
        StreamEventId read = StreamEventId.parse(id);
        assertThat(read).isEqualTo(new StreamEventId(7, START));
        assertThat(read.nextSeq()).isEqualTo(8);
        assertThat(read.toString()).isEqualTo(id);
        assertThat(StreamEventId.of(7, null)).isEqualTo("7");
    }

    @Test
    void aBareSeq_orNone_isTaken() {
        assertThat(StreamEventId.parse(" 4 ")).isEqualTo(new StreamEventId(4, null));
        assertThat(StreamEventId.parse("0").nextSeq()).isEqualTo(1);
        assertThat(StreamEventId.parse(null)).isNull();
        assertThat(StreamEventId.parse("  ")).isNull();
    }

    @Test
    void aRequest_goesOnAfterItsLastEventId_elseFromItsFromSeq_ofTheSessionEitherNames() {
        Instant other = Instant.parse("2026-12-06T13:00:00Z");

        assertThat(StreamEventId.ofRequest(null, null, null)).isEqualTo(new StreamEventId(0, null));
        assertThat(StreamEventId.ofRequest(null, 5L, null).nextSeq()).isEqualTo(5);
        assertThat(StreamEventId.ofRequest(null, 5L, START.toString())).isEqualTo(new StreamEventId(4, START));
        assertThat(StreamEventId.ofRequest("9", 5L, START.toString())).isEqualTo(new StreamEventId(9, START));
        assertThat(StreamEventId.ofRequest("9@" + other, 5L, START.toString())).as("the header's start first")
                .isEqualTo(new StreamEventId(9, other));
        assertThat(StreamEventId.ofRequest(null, 5L, START.toString()).sameSessionQuery())
                .isEqualTo("?sessionStartedAt=2026-12-06T12%3A00%3A00.123Z");
        assertThatThrownBy(() -> StreamEventId.ofRequest(null, 0L, null)).isInstanceOfSatisfying(ApiException.class,
                e -> assertThat(e.body()).containsEntry("field", "fromSeq").containsEntry("message", "must be at least 1"));
        assertThatThrownBy(() -> StreamEventId.ofRequest(null, 1L, "yesterday")).isInstanceOfSatisfying(ApiException.class,
                e -> assertThat(e.body()).containsEntry("field", "sessionStartedAt"));
    }

    @Test
    void anotherSession_isTheSameIdWithAnotherStart_andNotFound() {
        StreamEventId id = StreamEventId.parse("3@2026-12-06T12:00:00.123Z");

        StreamEventId.requireSameSession(id.sessionStartedAt(), START);
        StreamEventId.requireSameSession(id.sessionStartedAt(), Instant.parse("2026-12-06T12:00:00.123456Z")); // millis kept
        StreamEventId.requireSameSession(id.sessionStartedAt(), null);
        StreamEventId.requireSameSession(null, START);
        assertThatThrownBy(() -> StreamEventId.requireSameSession(id.sessionStartedAt(), START.plusMillis(1)))
                .isInstanceOfSatisfying(ApiException.class, e -> {
                    assertThat(e.status()).isEqualTo(404);
                    assertThat(e.body()).containsEntry("error", "not_found");
                    assertThat(e.getMessage()).contains("was erased");
                });
    }

    @Test
    void theSameSessionQuery_asksForTheSessionThatStartedThen() {
        assertThat(StreamEventId.parse("3@2026-12-06T12:00:00.123Z").sameSessionQuery())
                .isEqualTo("?sessionStartedAt=2026-12-06T12%3A00%3A00.123Z");
        assertThat(StreamEventId.parse("3").sameSessionQuery()).isEmpty();
    }

    @Test
    void anythingElse_isRefusedNamingTheHeader() {
        for (String bad : new String[] {"x", "5@", "@2026-12-06T12:00:00Z", "5@yesterday", "5@2026-12-06", "-1",
                "9223372036854775807", "99999999999999999999", "5@+1000000000-01-01T00:00:00Z", "5@2026-12-06T12:00:00Z@x"}) {
            assertThatThrownBy(() -> StreamEventId.parse(bad)).as(bad).isInstanceOfSatisfying(ApiException.class, e -> {
                assertThat(e.status()).isEqualTo(400);
                assertThat(e.body()).containsEntry("field", "Last-Event-ID");
            });
        }
    }
}
