package dev.tether.client;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tether.client.internal.Json;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * An event as the log holds it: the envelope the sequencer set and the payload fields of its type
 * (docs/ARCHITECTURE.md §4). Types this client does not know are read like any other.
 *
 * @param seq            its position in the session, from 1, gapless
 * @param eventId        the id it was appended with
 * @param type           its wire type, e.g. {@code tool_result}
 * @param sessionId      the session
 * @param occurredAt     when the sequencer accepted it
 * @param actor          who it is attributed to
 * @param harnessVersion the harness version the session was pinned to then
 * @param json           the whole event as the API returned it (envelope and payload); a copy on every call
 */
public record SessionEvent(long seq, String eventId, String type, String sessionId, Instant occurredAt, Actor actor,
                           String harnessVersion, ObjectNode json) {

    public SessionEvent {
        Objects.requireNonNull(eventId, "eventId");
        Objects.requireNonNull(type, "type");
        json = json.deepCopy();
    }

    /** The whole event (a copy). */
    @Override
    public ObjectNode json() {
        return json.deepCopy();
    }

    /** A payload (or envelope) field as text, e.g. {@code text("callId")}; empty when absent. */
    public Optional<String> text(String field) {
        return Optional.ofNullable(Json.text(json, field));
    }

    /** A numeric field, e.g. {@code longField("epoch")}; empty when absent. */
    public OptionalLong longField(String field) {
        Long value = Json.nullableLong(json, field);
        return value == null ? OptionalLong.empty() : OptionalLong.of(value);
    }

    /** Any field (a copy), e.g. {@code field("toolCalls")}; empty when absent. */
    public Optional<JsonNode> field(String field) {
        JsonNode value = json.get(field);
        return value == null || value.isNull() ? Optional.empty() : Optional.of(value.deepCopy());
    }

    /** The event's JSON text, as the API returned it. */
    public String toJson() {
        return Json.write(json);
    }

    /** The seq, type and id only: payloads may be large. */
    @Override
    public String toString() {
        return "SessionEvent[" + sessionId + "#" + seq + " " + type + " " + eventId + "]";
    }
}
