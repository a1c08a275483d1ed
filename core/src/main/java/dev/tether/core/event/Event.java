package dev.tether.core.event;

import java.time.Instant;

/**
 * One event of a session's log as the sequencer accepted it: the envelope every event carries
 * and its typed payload.
 *
 * @param eventId        client-chosen UUID; re-sending it appends nothing
 * @param sessionId      the session
 * @param tenantId       the owning tenant
 * @param seq            position in the session's log, from 1, without gaps
 * @param occurredAt     when the sequencer accepted it
 * @param actor          who it is attributed to
 * @param harnessVersion the harness version the session was pinned to at the time
 * @param payload        the typed payload
 */
public record Event(String eventId, String sessionId, String tenantId, long seq, Instant occurredAt, Actor actor,
                    String harnessVersion, EventPayload payload) {

    public Event {
        Fields.nonBlank(eventId, "eventId");
        Fields.nonBlank(sessionId, "sessionId");
        Fields.nonBlank(tenantId, "tenantId");
        Fields.positive(seq, "seq");
        Fields.required(occurredAt, "occurredAt");
        Fields.required(actor, "actor");
        Fields.text(harnessVersion, "harnessVersion");
        Fields.required(payload, "payload");
    }

    /** The wire name of the event's type. */
    public String type() {
        return payload.type();
    }
}
