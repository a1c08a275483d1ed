package dev.tether.core.event;

/** The principal an event is attributed to. Set by Tether from the authenticated caller, never by the client. */
public record Actor(ActorKind kind, String id) {
    public Actor {
        Fields.required(kind, "actor.kind");
        Fields.text(id, "actor.id");
    }
}
