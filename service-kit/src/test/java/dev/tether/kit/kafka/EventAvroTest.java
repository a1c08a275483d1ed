package dev.tether.kit.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tether.avro.SessionEvent;
import dev.tether.core.event.Actor;
import dev.tether.core.event.ActorKind;
import dev.tether.core.event.Event;
import dev.tether.core.event.OutcomeResolution;
import dev.tether.core.event.ToolOutcomeResolved;
import dev.tether.core.event.UnknownEvent;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class EventAvroTest {

    @Test
    void toolOutcomeResolved_roundTripsThroughTheSessionEventsBinaryEncoding() throws Exception {
        var event = new Event("e-5", "s-1", "acme", 5, Instant.parse("2026-11-29T10:00:00Z"), new Actor(ActorKind.APPROVER, "alice"),
                "v1", new ToolOutcomeResolved("c1", OutcomeResolution.RETRY, "alice", "the server saw nothing"));

        SessionEvent read = SessionEvent.fromByteBuffer(EventAvro.toAvro(event).toByteBuffer());

        assertThat(EventAvro.fromAvro(read)).isEqualTo(event);
    }

    @Test
    void aTypeWithoutItsPayloadField_readsAsUnknown() {
        var avro = EventAvro.toAvro(new Event("e-5", "s-1", "acme", 5, Instant.parse("2026-11-29T10:00:00Z"),
                new Actor(ActorKind.APPROVER, "alice"), "v1", new ToolOutcomeResolved("c1", OutcomeResolution.ABANDON, "alice", "")));
        avro.getPayload().setToolOutcomeResolved(null);

        assertThat(EventAvro.fromAvro(avro).payload()).isEqualTo(new UnknownEvent(ToolOutcomeResolved.TYPE));
    }
}
