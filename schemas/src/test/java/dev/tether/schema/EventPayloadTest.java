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

    /**
     * A generated class embeds the schemas of the types it uses: the commands and events that carry an EventPayload
     * must carry today's, or a new event type written by one service reaches another as unknown (what a stale
     * incremental build of this module produced once: the clean in the pom now prevents it).
     */
    @Test
    void everyRecordCarryingAPayload_embedsTodaysPayloadSchema() {
        for (Schema carrier : new Schema[] {SessionEvent.getClassSchema(), dev.tether.avro.SessionCommand.getClassSchema()}) {
            assertThat(payloadsIn(carrier)).as(carrier.getName()).isNotEmpty().allSatisfy(p -> assertThat(p).isEqualTo(EventPayload.getClassSchema()));
        }
    }

    private static java.util.List<Schema> payloadsIn(Schema schema) {
        var found = new java.util.ArrayList<Schema>();
        collectPayloads(schema, found, new java.util.HashSet<>());
        return found;
    }

    private static void collectPayloads(Schema schema, java.util.List<Schema> found, java.util.Set<String> seen) {
        switch (schema.getType()) {
            case RECORD -> {
                if (schema.getFullName().equals(EventPayload.getClassSchema().getFullName())) {
                    found.add(schema);
                } else if (seen.add(schema.getFullName())) {
                    schema.getFields().forEach(f -> collectPayloads(f.schema(), found, seen));
                }
            }
            case UNION -> schema.getTypes().forEach(t -> collectPayloads(t, found, seen));
            case ARRAY -> collectPayloads(schema.getElementType(), found, seen);
            case MAP -> collectPayloads(schema.getValueType(), found, seen);
            default -> { }
        }
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
