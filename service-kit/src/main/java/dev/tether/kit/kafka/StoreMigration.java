package dev.tether.kit.kafka;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.UnaryOperator;

/**
 * One step of a {@link StoreFormat}'s chain: how a stored value of version {@code from} becomes one of version
 * {@code from + 1} ({@code up}, applied to every older value read), and back ({@code down}, applied when the service is
 * told to write the older version during a rolling upgrade; absent when the older version cannot hold what the newer
 * one means). Version 0 is the unversioned JSON that releases before store formats had versions wrote; the step from
 * it is {@link #fromUnversioned}. Both work on the value's JSON object without its {@code version} field, may change it in place, and
 * return the result. They are pure functions of the value: the golden files of each version are what they are tested
 * against.
 *
 * <p>A step that cannot tell what an older value means in the newer version must throw a {@link StoreFormatException}
 * ({@link StoreFormatException#unmigratable}) rather than guess: the service then stops on that value, loudly.
 *
 * @param from        the version this step reads (0: a value without a version field); it writes {@code from + 1}
 * @param description what changed in {@code from + 1}, for logs and errors, e.g. {@code "open calls say whether their
 *                    turn was interrupted"}
 */
public record StoreMigration(int from, String description, UnaryOperator<ObjectNode> up, Optional<UnaryOperator<ObjectNode>> down) {

    public StoreMigration {
        Objects.requireNonNull(description, "description");
        Objects.requireNonNull(up, "up");
        Objects.requireNonNull(down, "down");
        if (from < 0) {
            throw new IllegalArgumentException("versions start at 0, got a step from " + from);
        }
    }

    /** A step both ways. */
    public static StoreMigration of(int from, String description, UnaryOperator<ObjectNode> up, UnaryOperator<ObjectNode> down) {
        return new StoreMigration(from, description, up, Optional.of(down));
    }

    /** A step that cannot be taken back: the service cannot be told to write version {@code from} any more. */
    public static StoreMigration oneWay(int from, String description, UnaryOperator<ObjectNode> up) {
        return new StoreMigration(from, description, up, Optional.empty());
    }

    /**
     * The step from version 0, the JSON that releases before store formats had versions wrote (a value without a
     * {@code version} field), to version 1, which has the same fields. Those releases read a field missing from a
     * value (one written before the field existed) as null, false or 0, and ignored none that they wrote: so a version 0
     * value is read as they read it, with the fields in {@code absentMeans} (by path, as in {@link #fieldAdded}) given
     * that value when absent, and every other field required, as in version 1. Writing version 0 writes version 1's
     * fields without a version field: byte for byte what those releases wrote.
     *
     * @param description  which releases wrote version 0, for logs and errors
     * @param absentMeans  field path → what its absence meant to those releases, for the fields added after the store's
     *                     first release; empty if every version 0 value has every field
     */
    public static StoreMigration fromUnversioned(String description, Map<String, JsonNode> absentMeans) {
        var absent = new LinkedHashMap<List<String>, JsonNode>();
        absentMeans.forEach((path, value) -> absent.put(fieldPath(path), Objects.requireNonNull(value, path)));
        return of(0, description, value -> {
            absent.forEach((parts, whenAbsent) -> {
                String field = parts.get(parts.size() - 1);
                each(value, parts.subList(0, parts.size() - 1), o -> {
                    if (!o.has(field)) {
                        o.set(field, whenAbsent.deepCopy());
                    }
                });
            });
            return value;
        }, value -> value);
    }

    /**
     * The commonest step: version {@code from + 1} adds a field. An older value gets {@code whenAbsent}, which must be
     * what the field means for a value written before it existed (the safe reading, never a guess); writing the older
     * version drops it.
     *
     * @param path where the field goes: its name, after the names of the objects it sits in, separated by dots; a
     *             {@code *} stands for every value of an object or every element of an array, e.g.
     *             {@code "openCalls.*.interrupted"} for a field of every open call
     */
    public static StoreMigration fieldAdded(int from, String path, JsonNode whenAbsent) {
        Objects.requireNonNull(whenAbsent, "whenAbsent");
        List<String> parts = fieldPath(path);
        List<String> parents = parts.subList(0, parts.size() - 1);
        String field = parts.get(parts.size() - 1);
        return of(from, "adds " + path,
                value -> each(value, parents, o -> {
                    if (!o.has(field)) {
                        o.set(field, whenAbsent.deepCopy());
                    }
                }),
                value -> each(value, parents, o -> o.remove(field)));
    }

    /**
     * Version {@code from + 1} adds several fields: {@link #fieldAdded} for each of {@code fields} (path → what its
     * absence means), in the map's order.
     */
    public static StoreMigration fieldsAdded(int from, Map<String, JsonNode> fields) {
        List<StoreMigration> each = fields.entrySet().stream().map(f -> fieldAdded(from, f.getKey(), f.getValue())).toList();
        return of(from, "adds " + String.join(", ", fields.keySet()),
                value -> {
                    each.forEach(f -> f.up().apply(value));
                    return value;
                },
                value -> {
                    each.forEach(f -> f.down().orElseThrow().apply(value));
                    return value;
                });
    }

    /** {@code path} split at its dots: names and {@code *}, ending with a name. */
    private static List<String> fieldPath(String path) {
        List<String> parts = List.of(path.split("\\.", -1));
        String field = parts.get(parts.size() - 1);
        if (field.isEmpty() || field.equals("*") || parts.contains("")) {
            throw new IllegalArgumentException("not a field path: '" + path + "'");
        }
        return parts;
    }

    /**
     * Applies {@code change} to every object at {@code parents} under {@code value}; a path through a missing or
     * null field reaches nothing.
     */
    private static ObjectNode each(ObjectNode value, List<String> parents, Consumer<ObjectNode> change) {
        List<JsonNode> level = List.of(value);
        for (String part : parents) {
            var next = new ArrayList<JsonNode>();
            for (JsonNode node : level) {
                if (part.equals("*")) {
                    node.forEach(next::add);
                } else if (node.hasNonNull(part)) {
                    next.add(node.get(part));
                }
            }
            level = next;
        }
        for (JsonNode node : level) {
            if (node instanceof ObjectNode o) {
                change.accept(o);
            }
        }
        return value;
    }

    /** The version this step writes. */
    public int to() {
        return from + 1;
    }
}
