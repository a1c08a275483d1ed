package dev.tether.schema;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tether.avro.Actor;
import dev.tether.avro.ActorKind;
import dev.tether.avro.EventPayload;
import dev.tether.avro.SessionEvent;
import dev.tether.avro.UserMessage;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.time.Instant;
import org.apache.avro.Schema;
import org.junit.jupiter.api.Test;

class EventPayloadTest {

    /**
     * Adding an event type must stay FULL compatible, which only works if every payload field is
     * an optional record defaulting to null.
     */
    @Test
    void everyPayloadField_isNullableWithNullDefault() {
        for (Schema.Field f : EventPayload.getClassSchema().getFields()) {
            assertThat(f.schema().getType()).as(f.name()).isEqualTo(Schema.Type.UNION);
            assertThat(f.schema().getTypes().get(0).getType()).as(f.name()).isEqualTo(Schema.Type.NULL);
            assertThat(f.hasDefaultValue()).as(f.name()).isTrue();
            assertThat(f.defaultVal()).as(f.name()).isEqualTo(org.apache.avro.JsonProperties.NULL_VALUE);
        }
    }

    @Test
    void payloadFields_coverEveryEventTypeOfTheArchitecture() {
        assertThat(EventPayload.getClassSchema().getFields()).extracting(Schema.Field::name).containsExactly(
                "sessionStarted", "userMessage", "assistantMessage", "approvalRequested", "approvalGranted",
                "approvalDenied", "toolCallAuthorized", "toolResult", "turnInterrupted", "contextCompacted",
                "planUpdated", "stepCompleted", "sessionClaimed", "sessionResumed", "sessionMigrated",
                "sessionForked", "subagentResult", "sessionClosed", "toolOutcomeResolved", "toolCallStarted", "frameworkState");
    }

    @Test
    void sessionEvent_roundTripsThroughItsBinaryEncoding() throws IOException {
        var event = SessionEvent.newBuilder()
                .setEventId("6f1c1a8e-1d2b-4a43-9c3e-0a1b2c3d4e5f")
                .setSessionId("s-1")
                .setTenantId("acme")
                .setSeq(2)
                .setOccurredAt(Instant.parse("2026-11-29T08:00:00Z"))
                .setActor(new Actor(ActorKind.USER, "alice"))
                .setHarnessVersion("v1")
                .setType("user_message")
                .setPayload(EventPayload.newBuilder()
                        .setUserMessage(new UserMessage("rename Foo to Bar", null))
                        .build())
                .build();

        ByteBuffer bytes = event.toByteBuffer();
        SessionEvent read = SessionEvent.fromByteBuffer(bytes);

        assertThat(read).isEqualTo(event);
        assertThat(read.getPayload().getUserMessage().getContent()).isEqualTo("rename Foo to Bar");
        assertThat(read.getPayload().getAssistantMessage()).isNull();
    }
}
