package dev.tether.kit.json;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MapperFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.cfg.CoercionAction;
import com.fasterxml.jackson.databind.cfg.CoercionInputShape;
import com.fasterxml.jackson.databind.deser.std.StdScalarDeserializer;
import com.fasterxml.jackson.databind.exc.InvalidFormatException;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.module.SimpleModule;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.type.LogicalType;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import dev.tether.core.event.Actor;
import dev.tether.core.event.ApprovalDenied;
import dev.tether.core.event.Event;
import dev.tether.core.event.EventPayload;
import dev.tether.core.event.EventTypes;
import dev.tether.core.event.FrameworkState;
import dev.tether.core.event.InvalidEventException;
import dev.tether.core.event.JsonSyntax;
import dev.tether.core.event.UnknownEvent;
import java.io.IOException;
import java.time.DateTimeException;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Events in the REST API's JSON: one object per event, {@code {"eventId", "type", ...payload fields}}
 * (camelCase, as docs/ARCHITECTURE.md §4 fixes them); read back with the envelope fields added
 * ({@code seq, sessionId, occurredAt, actor, harnessVersion}, and {@code traceId} where one was recorded).
 *
 * <p>Reading is strict, and every refusal is an {@link InvalidEventException} naming the field:
 * unknown fields, wrong types (no coercion of {@code "12"} to 12; an instant is ISO-8601 text that milliseconds count,
 * never a number), missing required fields,
 * unknown event types, and the fields only Tether sets: the blob references, and {@code approval_denied}'s
 * {@code expired} (a client's denial is an approver's; only the approval-service's expiry, which does not come
 * through the REST API, is not). Enums with a fixed wire name ({@link dev.tether.core.event.WireNamed}) are written
 * and read by that name ({@link WireNames}). Thread-safe.
 */
public final class EventJson {

    /** Payload fields that hold blob references; Tether sets them when it offloads content. */
    static final Set<String> SERVER_SET_FIELDS = Set.of("contentRef", "shownRef", "summaryRef", "artifact");

    /**
     * The payload fields of {@code type} that {@link #readProposal} refuses from a client because only Tether sets them:
     * the blob references, and {@code approval_denied}'s {@code expired}. The API's documents leave them out of the
     * events a client sends (dev.tether.kit.service.openapi).
     */
    public static Set<String> serverSetFields(Class<? extends EventPayload> type) {
        if (type == ApprovalDenied.class) {
            var fields = new java.util.TreeSet<>(SERVER_SET_FIELDS);
            fields.add("expired");
            return Set.copyOf(fields);
        }
        return SERVER_SET_FIELDS;
    }

    private final ObjectMapper strict = strictMapper();

    /** A proposed event as read from JSON: its client-chosen id and its typed payload. */
    public record Proposal(String eventId, EventPayload payload) {}

    private static ObjectMapper strictMapper() {
        JsonMapper mapper = JsonMapper.builder()
                .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
                .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
                .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
                .enable(DeserializationFeature.FAIL_ON_NUMBERS_FOR_ENUMS)
                .disable(DeserializationFeature.ACCEPT_FLOAT_AS_INT)
                .disable(MapperFeature.ALLOW_COERCION_OF_SCALARS)
                .serializationInclusion(JsonInclude.Include.NON_NULL)
                .addModule(new JavaTimeModule())
                .addModule(new SimpleModule("tether-instants").addDeserializer(Instant.class, new IsoInstant()))
                .addModule(WireNames.module())
                .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS)
                .build();
        // a number is not a string, a string is not a number, and neither is a boolean
        for (CoercionInputShape shape : new CoercionInputShape[] {CoercionInputShape.Integer, CoercionInputShape.Float,
                CoercionInputShape.Boolean}) {
            mapper.coercionConfigFor(LogicalType.Textual).setCoercion(shape, CoercionAction.Fail);
        }
        for (LogicalType type : new LogicalType[] {LogicalType.Integer, LogicalType.Float, LogicalType.Boolean}) {
            mapper.coercionConfigFor(type).setCoercion(CoercionInputShape.String, CoercionAction.Fail);
            mapper.coercionConfigFor(type).setCoercion(CoercionInputShape.EmptyString, CoercionAction.Fail);
        }
        mapper.coercionConfigFor(LogicalType.Boolean).setCoercion(CoercionInputShape.Integer, CoercionAction.Fail);
        // nor is a number the enum constant of that ordinal ("toolMode": 1 is not WRITE)
        mapper.coercionConfigFor(LogicalType.Enum).setCoercion(CoercionInputShape.Integer, CoercionAction.Fail);
        return mapper;
    }

    /** The mapper this class reads and writes with (strict reading, nulls left out when writing). */
    public ObjectMapper mapper() {
        return strict;
    }

    /** Reads {@code {"eventId", "type", ...}}; field names in errors are relative to the object. */
    public Proposal readProposal(JsonNode node) {
        if (node == null || !node.isObject()) {
            throw new InvalidEventException(InvalidEventException.WHOLE, "must be a JSON object");
        }
        String eventId = requiredText(node, "eventId");
        String type = requiredText(node, "type");
        Class<? extends EventPayload> payloadType = EventTypes.byWireName(type).orElseThrow(() -> new InvalidEventException("type",
                "unknown event type; one of " + String.join(", ", EventTypes.wireNames())));
        ObjectNode fields = ((ObjectNode) node).deepCopy();
        fields.remove("eventId");
        fields.remove("type");
        if (fields.has("traceId")) {
            throw new InvalidEventException("traceId", "is recorded by the sequencer from the request's trace, not sent by clients");
        }
        for (String serverSet : SERVER_SET_FIELDS) {
            if (fields.has(serverSet)) {
                throw new InvalidEventException(serverSet, "is set by Tether when it offloads large content, not by clients");
            }
        }
        if (payloadType == ApprovalDenied.class && fields.has("expired")) {
            throw new InvalidEventException("expired", "is set by the approval-service when no approver decided in time, not by clients");
        }
        EventPayload payload = read(fields, payloadType);
        if (payload instanceof ApprovalDenied d) {
            payload = ApprovalDenied.byApprover(d.callId(), d.scope(), d.tool(), d.pathGlob(), d.approver(), d.reason());
        }
        if (payload instanceof FrameworkState f) {
            String problem = JsonSyntax.strictProblem(f.content()); // stored events read back with the lenient check
            if (problem != null) {
                throw new InvalidEventException("content", "must be JSON text that parses as one JSON value: " + problem);
            }
        }
        return new Proposal(eventId, payload);
    }

    /** Reads {@code node} as {@code type}, with the strict rules above. */
    public <T> T read(JsonNode node, Class<T> type) {
        try {
            return strict.treeToValue(node, type);
        } catch (JsonProcessingException e) {
            throw invalid(e, node);
        } catch (IllegalArgumentException e) {
            if (e.getCause() instanceof JsonProcessingException j) {
                throw invalid(j, node);
            }
            throw e;
        }
    }

    /** An event as the API returns it. */
    public ObjectNode write(Event event) {
        ObjectNode node = strict.createObjectNode();
        node.put("seq", event.seq());
        node.put("eventId", event.eventId());
        node.put("type", event.type());
        node.put("sessionId", event.sessionId());
        node.put("occurredAt", event.occurredAt().toString());
        ObjectNode actor = node.putObject("actor");
        actor.put("kind", event.actor().kind().name());
        actor.put("id", event.actor().id());
        node.put("harnessVersion", event.harnessVersion());
        if (event.traceId() != null) {
            node.put("traceId", event.traceId());
        }
        ObjectNode payload = strict.valueToTree(event.payload());
        payload.remove("type"); // the envelope's type comes first
        if (payload.path("harnessTools").isArray() && payload.get("harnessTools").isEmpty()) {
            // none declared: written as before the field existed, so readers of the previous release read it
            payload.remove("harnessTools");
        }
        node.setAll(payload);
        return node;
    }

    /**
     * Reads back an event as {@link #write} wrote it, for {@code tenantId} (the API leaves the tenant out: it is the
     * caller's). A type this version does not know reads as {@link UnknownEvent}, as it does from Avro.
     */
    public Event readEvent(JsonNode node, String tenantId) {
        if (node == null || !node.isObject()) {
            throw new InvalidEventException(InvalidEventException.WHOLE, "must be a JSON object");
        }
        ObjectNode fields = ((ObjectNode) node).deepCopy();
        JsonNode seq = fields.remove("seq");
        String eventId = requiredText(node, "eventId");
        String sessionId = requiredText(node, "sessionId");
        String occurredAt = requiredText(node, "occurredAt");
        String type = requiredText(node, "type");
        Actor actor = read(fields.remove("actor"), Actor.class);
        fields.remove(List.of("eventId", "sessionId", "occurredAt", "type"));
        JsonNode traceId = fields.remove("traceId");
        if (seq == null || !seq.canConvertToLong()) {
            throw new InvalidEventException("seq", "must be a number");
        }
        Optional<Class<? extends EventPayload>> payloadType = EventTypes.byWireName(type);
        // a payload with its own harnessVersion (session_started, session_forked, session_claimed) wrote it over the
        // envelope's, which the sequencer makes equal to it
        JsonNode harnessVersion = payloadType.filter(EventJson::hasHarnessVersion).isPresent() ? fields.get("harnessVersion")
                : fields.remove("harnessVersion");
        EventPayload payload = payloadType.<EventPayload>map(t -> read(fields, t)).orElseGet(() -> new UnknownEvent(type));
        try {
            return new Event(eventId, sessionId, tenantId, seq.asLong(), Instant.parse(occurredAt), actor,
                    harnessVersion == null || harnessVersion.isNull() ? null : harnessVersion.asText(), payload,
                    traceId != null && Event.isTraceId(traceId.asText()) ? traceId.asText() : null);
        } catch (DateTimeParseException e) {
            throw new InvalidEventException("occurredAt", "must be an ISO-8601 instant");
        }
    }

    /** {@code text} as an ISO-8601 instant that a long counts in milliseconds (as Avro stores them), or null. */
    public static Instant instant(String text) {
        try {
            Instant instant = Instant.parse(text);
            instant.toEpochMilli();
            return instant;
        } catch (DateTimeException | ArithmeticException e) {
            return null;
        }
    }

    /**
     * An instant as the services write them: ISO-8601 text ({@code 2026-12-06T12:00:00.123Z}) that a long counts in
     * milliseconds, as Avro stores it. A number is refused, and so is text of one (seconds or milliseconds?).
     */
    private static final class IsoInstant extends StdScalarDeserializer<Instant> {

        IsoInstant() {
            super(Instant.class);
        }

        @Override
        public Instant deserialize(JsonParser in, DeserializationContext context) throws IOException {
            Instant instant = in.currentToken() == JsonToken.VALUE_STRING ? instant(in.getText()) : null;
            if (instant != null) {
                return instant;
            }
            throw new InvalidEventException(InvalidEventException.WHOLE,
                    "must be an ISO-8601 instant, as the services write them (2026-12-06T12:00:00.123Z)");
        }
    }

    private static boolean hasHarnessVersion(Class<? extends EventPayload> type) {
        return type.isRecord() && Arrays.stream(type.getRecordComponents()).anyMatch(c -> c.getName().equals("harnessVersion"));
    }

    private static String requiredText(JsonNode node, String field) {
        JsonNode value = node.get(field);
        if (value == null || value.isNull()) {
            throw new InvalidEventException(field, "is required");
        }
        if (!value.isTextual() || value.asText().isBlank()) {
            throw new InvalidEventException(field, "must be a non-empty string");
        }
        return value.asText();
    }

    /** Why {@code read} refused {@code input}, naming the field; {@code input} tells a missing (or null) field from a wrong one. */
    private static InvalidEventException invalid(JsonProcessingException e, JsonNode input) {
        if (e.getCause() instanceof InvalidEventException cause) {
            // a nested record refused a field: name it by its full path, e.g. toolCalls[0].callId
            String at = e instanceof JsonMappingException m ? path(m) : InvalidEventException.WHOLE;
            return at.equals(InvalidEventException.WHOLE) ? cause : cause.under(at + ".");
        }
        String field = e instanceof JsonMappingException m ? path(m) : InvalidEventException.WHOLE;
        if (e instanceof UnrecognizedPropertyException u) {
            // names the object, not the unknown field: a field name is client text and may be a secret, dots and all
            List<JsonMappingException.Reference> refs = u.getPath();
            String allowed = u.getKnownPropertyIds() == null ? "" : u.getKnownPropertyIds().stream().map(Object::toString).sorted()
                    .collect(Collectors.joining(", "));
            return new InvalidEventException(path(refs.subList(0, Math.max(refs.size() - 1, 0))),
                    "has a field it does not know; its fields are: " + allowed);
        }
        if (e instanceof InvalidFormatException f && f.getTargetType() != null && f.getTargetType().isEnum()) {
            String allowed = Arrays.stream(f.getTargetType().getEnumConstants()).map(Object::toString)
                    .collect(Collectors.joining(", "));
            return new InvalidEventException(field, "must be one of " + allowed);
        }
        if (e instanceof JsonMappingException m && !m.getPath().isEmpty() && absent(input, m.getPath())) {
            // a number or a boolean (a primitive: no null stands for "not sent") that was left out, or sent as null
            return new InvalidEventException(field, "is required");
        }
        return new InvalidEventException(field, "has the wrong type or shape");
    }

    /** Whether the input has no value, or null, where {@code refs} lead: the field Jackson refused was not sent. */
    private static boolean absent(JsonNode input, List<JsonMappingException.Reference> refs) {
        JsonNode at = input;
        for (JsonMappingException.Reference ref : refs) {
            if (at == null || at.isNull()) {
                return false; // a parent is not there: Jackson did not refuse a field of it
            }
            if (ref.getFieldName() != null && at.isObject()) {
                at = at.get(ref.getFieldName());
            } else if (ref.getFieldName() == null && ref.getIndex() >= 0 && at.isArray()) {
                at = at.get(ref.getIndex());
            } else {
                return false; // a parent of another shape: that is what is wrong
            }
        }
        return at == null || at.isNull();
    }

    private static String path(JsonMappingException e) {
        return path(e.getPath());
    }

    private static String path(List<JsonMappingException.Reference> refs) {
        var sb = new StringBuilder();
        for (JsonMappingException.Reference ref : refs) {
            if (ref.getFieldName() != null) {
                if (!sb.isEmpty()) {
                    sb.append('.');
                }
                sb.append(ref.getFieldName());
            } else if (ref.getIndex() >= 0) {
                sb.append('[').append(ref.getIndex()).append(']');
            }
        }
        return sb.isEmpty() ? InvalidEventException.WHOLE : sb.toString();
    }
}
