package dev.tether.kit.kafka;

import dev.tether.avro.Actor;
import dev.tether.avro.ActorKind;
import dev.tether.avro.EventPayload;
import dev.tether.avro.SessionEvent;
import dev.tether.avro.UserMessage;
import java.time.Instant;
import java.util.UUID;

/** Events for tests that need real ones on the wire. */
final class SampleEvents {

    private SampleEvents() {}

    static SessionEvent userMessage(String sessionId, long seq, String text) {
        return SessionEvent.newBuilder()
                .setEventId(UUID.nameUUIDFromBytes((sessionId + "/" + seq).getBytes()).toString())
                .setSessionId(sessionId)
                .setTenantId("acme")
                .setSeq(seq)
                .setOccurredAt(Instant.ofEpochMilli(1_800_000_000_000L + seq))
                .setActor(new Actor(ActorKind.USER, "alice"))
                .setHarnessVersion("v1")
                .setType("user_message")
                .setPayload(EventPayload.newBuilder().setUserMessage(new UserMessage(text, null)).build())
                .build();
    }
}
