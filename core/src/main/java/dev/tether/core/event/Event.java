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
 * @param traceId        the W3C trace id (32 lowercase hex digits) of the trace the sequencer appended it in, the same
 *                       as the {@code traceparent} header of its record; null when none was recorded (tracing off, or
 *                       an event appended before the field existed). Never part of what an event means.
 */
public record Event(String eventId, String sessionId, String tenantId, long seq, Instant occurredAt, Actor actor,
                    String harnessVersion, EventPayload payload, String traceId) {


    public Event {
        Fields.nonBlank(eventId, "eventId");
        Fields.nonBlank(sessionId, "sessionId");
        Fields.nonBlank(tenantId, "tenantId");
        Fields.positive(seq, "seq");
        Fields.required(occurredAt, "occurredAt");
        Fields.required(actor, "actor");
        Fields.text(harnessVersion, "harnessVersion");
        Fields.required(payload, "payload");
        if (traceId != null && !isTraceId(traceId)) {
            throw new InvalidEventException("traceId", "must be a W3C trace id: 32 lowercase hexadecimal digits, not all zero");
        }
    }

    /** An event with no trace id recorded. */
    public Event(String eventId, String sessionId, String tenantId, long seq, Instant occurredAt, Actor actor,
                 String harnessVersion, EventPayload payload) {
        this(eventId, sessionId, tenantId, seq, occurredAt, actor, harnessVersion, payload, null);
    }

    /** The wire name of the event's type. */
    public String type() {
        return payload.type();
    }

    /** Whether {@code text} is a W3C trace id as an event records it: 32 lowercase hexadecimal digits, not all zero. */
    public static boolean isTraceId(String text) {
        if (text == null || text.length() != 32) {
            return false;
        }
        boolean allZero = true;
        for (int i = 0; i < 32; i++) { // a loop, not a regular expression: every event read is checked (a projector hot spot)
            char c = text.charAt(i);
            if (!(c >= '0' && c <= '9' || c >= 'a' && c <= 'f')) {
                return false;
            }
            allZero &= c == '0';
        }
        return !allZero;
    }

    /** This event as appended in the trace {@code traceId} (null: none recorded). */
    public Event withTraceId(String traceId) {
        return new Event(eventId, sessionId, tenantId, seq, occurredAt, actor, harnessVersion, payload, traceId);
    }
}
