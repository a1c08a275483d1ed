package dev.tether.core.event;

/**
 * An event as a client proposes it, before the sequencer gives it a seq.
 *
 * @param eventId the client's UUID for it, the idempotency key of the append
 * @param actor   who it will be attributed to (set by Tether from the authenticated caller)
 * @param payload the typed payload
 */
public record ProposedEvent(String eventId, Actor actor, EventPayload payload) {
    public ProposedEvent {
        Fields.nonBlank(eventId, "eventId");
        Fields.required(actor, "actor");
        Fields.required(payload, "payload");
    }

    public String type() {
        return payload.type();
    }
}
