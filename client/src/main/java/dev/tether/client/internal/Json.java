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
import java.util.Map;
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

    /**
     * A caller's value as a tree, for a payload field named {@code path}: only what JSON has — null, strings (and
     * characters), booleans, finite numbers, enums (by name), maps with keys that are not null, lists and other iterables,
     * arrays, and trees ({@link JsonNode}).
     *
     * @throws IllegalArgumentException naming where it is ({@code path.key[2]}) for a number that is not finite (Jackson
     *                                  writes NaN as the string {@code "NaN"}), a cycle (Jackson overflows the stack), or
     *                                  any other object (Jackson writes its getters, a {@code Date} as a number, a
     *                                  {@code byte[]} as base64): write it as a string, a number, a list or a map
     */
    public static JsonNode value(Object value, String path) {
        return value(value, path, java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>()));
    }

    private static JsonNode value(Object value, String path, java.util.Set<Object> parents) {
        if (value == null) {
            return MAPPER.nullNode();
        }
        if (value instanceof JsonNode node) {
            finite(node, path);
            return node.deepCopy();
        }
        if (value instanceof String || value instanceof Character) {
            return MAPPER.getNodeFactory().textNode(value.toString());
        }
        if (value instanceof Boolean b) {
            return MAPPER.getNodeFactory().booleanNode(b);
        }
        if ((value instanceof Double d && !Double.isFinite(d)) || (value instanceof Float f && !Float.isFinite(f))) {
            throw new IllegalArgumentException(path + ": JSON has no " + value);
        }
        if (value instanceof Integer || value instanceof Long || value instanceof Short || value instanceof Byte || value instanceof Double
                || value instanceof Float || value instanceof java.math.BigInteger || value instanceof java.math.BigDecimal) {
            return MAPPER.valueToTree(value);
        }
        if (value instanceof Enum<?> e) {
            return MAPPER.getNodeFactory().textNode(e.name());
        }
        boolean container = value instanceof Map<?, ?> || value instanceof Iterable<?> || value instanceof Object[]
                || (value.getClass().isArray() && !(value instanceof byte[]));
        if (!container) {
            throw new IllegalArgumentException(path + ": not a JSON value: a " + value.getClass().getName()
                    + " (write it as a string, number, boolean, list, map or JsonNode)");
        }
        if (!parents.add(value)) {
            throw new IllegalArgumentException(path + ": a cyclic structure is not JSON");
        }
        try {
            if (value instanceof Map<?, ?> map) {
                ObjectNode object = object();
                map.forEach((k, v) -> {
                    if (k == null) {
                        throw new IllegalArgumentException(path + ": a map key is null");
                    }
                    object.set(k.toString(), value(v, path + "." + k, parents));
                });
                return object;
            }
            var array = MAPPER.createArrayNode();
            if (value instanceof Iterable<?> items) {
                for (Object item : items) {
                    array.add(value(item, path + "[" + array.size() + "]", parents));
                }
            } else {
                for (int i = 0; i < java.lang.reflect.Array.getLength(value); i++) {
                    array.add(value(java.lang.reflect.Array.get(value, i), path + "[" + i + "]", parents));
                }
            }
            return array;
        } finally {
            parents.remove(value);
        }
    }

    /** A tree's numbers must be finite, as JSON's are (a {@code DoubleNode} of NaN is written as the string "NaN"). */
    private static void finite(JsonNode node, String path) {
        if (node.isFloatingPointNumber() && !Double.isFinite(node.doubleValue())) {
            throw new IllegalArgumentException(path + ": JSON has no " + node.doubleValue());
        }
        if (node.isObject()) {
            node.properties().forEach(p -> finite(p.getValue(), path + "." + p.getKey()));
        } else if (node.isArray()) {
            for (int i = 0; i < node.size(); i++) {
                finite(node.get(i), path + "[" + i + "]");
            }
        }
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
