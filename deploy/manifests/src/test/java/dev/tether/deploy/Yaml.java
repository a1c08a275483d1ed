package dev.tether.deploy;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Reads parsed YAML (maps, lists and scalars) by path, failing with the path that was missing, so a test
 * says which field of which manifest is wrong instead of throwing a NullPointerException.
 */
final class Yaml {

    private Yaml() {}

    /** The node at the path, or null when any step of it is missing. */
    static Object find(Object node, String... path) {
        Object current = node;
        for (String step : path) {
            if (!(current instanceof Map<?, ?> map)) {
                return null;
            }
            current = map.get(step);
        }
        return current;
    }

    static Object get(Object node, String... path) {
        Object value = find(node, path);
        if (value == null) {
            throw new AssertionError("missing " + String.join(".", path));
        }
        return value;
    }

    @SuppressWarnings("unchecked")
    static Map<String, Object> map(Object node, String... path) {
        Object value = get(node, path);
        if (!(value instanceof Map<?, ?>)) {
            throw new AssertionError(String.join(".", path) + " is not a mapping but " + value);
        }
        return (Map<String, Object>) value;
    }

    /** The mapping at the path, or an empty one when it is missing. */
    @SuppressWarnings("unchecked")
    static Map<String, Object> mapOrEmpty(Object node, String... path) {
        Object value = find(node, path);
        return value instanceof Map<?, ?> map ? (Map<String, Object>) map : Map.of();
    }

    static List<Object> list(Object node, String... path) {
        Object value = get(node, path);
        if (!(value instanceof List<?> list)) {
            throw new AssertionError(String.join(".", path) + " is not a sequence but " + value);
        }
        return List.copyOf(list);
    }

    /** The list at the path, or an empty one when it is missing. */
    static List<Object> listOrEmpty(Object node, String... path) {
        Object value = find(node, path);
        return value instanceof List<?> list ? List.copyOf(list) : List.of();
    }

    /** The mappings of the list at the path (an empty list when it is missing). */
    @SuppressWarnings("unchecked")
    static List<Map<String, Object>> maps(Object node, String... path) {
        var maps = new ArrayList<Map<String, Object>>();
        for (Object item : listOrEmpty(node, path)) {
            if (!(item instanceof Map<?, ?>)) {
                throw new AssertionError(String.join(".", path) + " holds " + item + ", not a mapping");
            }
            maps.add((Map<String, Object>) item);
        }
        return maps;
    }

    /** The scalar at the path as YAML wrote it (a number or a boolean as its text). */
    static String string(Object node, String... path) {
        Object value = get(node, path);
        if (value instanceof Map<?, ?> || value instanceof List<?>) {
            throw new AssertionError(String.join(".", path) + " is not a scalar but " + value);
        }
        return Objects.toString(value);
    }

    /** The scalar at the path as text, or null when it is missing. */
    static String stringOrNull(Object node, String... path) {
        Object value = find(node, path);
        return value == null ? null : string(node, path);
    }

    static int integer(Object node, String... path) {
        Object value = get(node, path);
        if (!(value instanceof Integer number)) {
            throw new AssertionError(String.join(".", path) + " is not an integer but " + value);
        }
        return number;
    }

    /** A mapping of scalars as text: labels, environment variables, configs. */
    static Map<String, String> strings(Map<String, Object> map) {
        var strings = new java.util.LinkedHashMap<String, String>();
        map.forEach((key, value) -> strings.put(key, Objects.toString(value)));
        return strings;
    }
}
