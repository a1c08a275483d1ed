package dev.tether.client.internal;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The SDK's one JSON mapper and the few null-safe reads of the services' answers. Not part of the
 * API. Thread-safe (the mapper is only used for trees and text).
 */
public final class Json {

    /** Reads trees and writes text; never binds classes, so no reflection and nothing to configure. */
    public static final ObjectMapper MAPPER = JsonMapper.builder().build();

    private Json() {}

    public static ObjectNode object() {
        return MAPPER.createObjectNode();
    }

    /** {@code text} as a tree; a {@link MalformedAnswerException} if it is not JSON. */
    public static JsonNode parse(String text) {
        try {
            return MAPPER.readTree(text == null ? "" : text);
        } catch (JsonProcessingException e) {
            throw new MalformedAnswerException("the answer is not JSON: " + e.getOriginalMessage());
        }
    }

    /** An object's text, as written on the wire. */
    public static String write(JsonNode node) {
        try {
            return MAPPER.writeValueAsString(node);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("a tree always serializes", e);
        }
    }

    /** The text field; null when absent or JSON null. */
    public static String text(JsonNode node, String field) {
        JsonNode value = node == null ? null : node.get(field);
        return value == null || value.isNull() ? null : value.isTextual() ? value.asText() : value.toString();
    }

    public static Optional<String> optionalText(JsonNode node, String field) {
        return Optional.ofNullable(text(node, field));
    }

    /** The text field, which the answer must have. */
    public static String requiredText(JsonNode node, String field) {
        String value = text(node, field);
        if (value == null) {
            throw new MalformedAnswerException("the answer has no " + field);
        }
        return value;
    }

    public static long longValue(JsonNode node, String field, long absent) {
        JsonNode value = node == null ? null : node.get(field);
        return value == null || value.isNull() ? absent : value.asLong(absent);
    }

    /** The number field, which the answer must have. */
    public static long requiredLong(JsonNode node, String field) {
        JsonNode value = node == null ? null : node.get(field);
        if (value == null || !value.isNumber()) {
            throw new MalformedAnswerException("the answer has no number " + field);
        }
        return value.asLong();
    }

    /** The number field; null when absent or JSON null. */
    public static Long nullableLong(JsonNode node, String field) {
        JsonNode value = node == null ? null : node.get(field);
        return value == null || value.isNull() || !value.isNumber() ? null : value.asLong();
    }

    public static int intValue(JsonNode node, String field, int absent) {
        return (int) longValue(node, field, absent);
    }

    public static boolean booleanValue(JsonNode node, String field) {
        JsonNode value = node == null ? null : node.get(field);
        return value != null && value.asBoolean(false);
    }

    /** An ISO-8601 instant; null when absent, JSON null or unreadable. */
    public static Instant instant(JsonNode node, String field) {
        String value = text(node, field);
        if (value == null) {
            return null;
        }
        try {
            return Instant.parse(value);
        } catch (DateTimeParseException e) {
            return null;
        }
    }

    public static List<String> strings(JsonNode node, String field) {
        var out = new ArrayList<String>();
        JsonNode array = node == null ? null : node.get(field);
        if (array != null && array.isArray()) {
            array.forEach(e -> out.add(e.isTextual() ? e.asText() : e.toString()));
        }
        return List.copyOf(out);
    }

    /** The elements of an array field (none when absent). */
    public static List<JsonNode> elements(JsonNode node, String field) {
        var out = new ArrayList<JsonNode>();
        JsonNode array = node == null ? null : node.get(field);
        if (array != null && array.isArray()) {
            array.forEach(out::add);
        }
        return out;
    }

    /**
     * The elements of the array {@code field}, which the answer must have: a list answer without its list is malformed,
     * never read as an empty list (a caller would take "no sessions" for a fact).
     */
    public static List<JsonNode> requiredElements(JsonNode node, String field) {
        JsonNode array = node == null ? null : node.get(field);
        if (array == null || !array.isArray()) {
            throw new MalformedAnswerException("the answer has no list " + field);
        }
        return elements(node, field);
    }

    /** The object field; null when absent or not an object. */
    public static JsonNode objectOrNull(JsonNode node, String field) {
        JsonNode value = node == null ? null : node.get(field);
        return value != null && value.isObject() ? value : null;
    }
}
