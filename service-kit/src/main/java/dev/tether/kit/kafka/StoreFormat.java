package dev.tether.kit.kafka;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MapperFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.exc.InvalidFormatException;
import com.fasterxml.jackson.databind.exc.InvalidNullException;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import dev.tether.kit.json.WireNames;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serializer;

/**
 * The persisted format of one state store's values (and of its changelog): a JSON object whose first field is
 * {@code "version"}, followed by the fields of a record type kept for that purpose only (the <em>stored</em> type, in
 * the service's {@code kafka} package), which is mapped to and from the domain value. The domain record can change
 * shape freely; the stored type changes only with a new version.
 *
 * <ul>
 * <li><b>Versions.</b> The current version is the first one plus the number of {@link StoreMigration steps}. A value
 *     of an older version is carried up step by step, then read. A store whose values were written before formats had
 *     versions starts at version 0 ({@link Builder#fromUnversioned}): its values have no {@code version} field and are
 *     read through the step from 0, as the releases that wrote them read them; any other store starts at 1.</li>
 * <li><b>Never guessed.</b> Reading is strict: an unknown field, a missing one, a null primitive, a number or an
 *     unknown name for an enum, or a version newer than the current one is a {@link StoreFormatException} naming the
 *     store, the version and the field, never a default. So a renamed field fails the golden tests of every version
 *     instead of reading as null after an upgrade.</li>
 * <li><b>Rolling upgrades.</b> {@link #writing(int)} writes an older version (through the steps' {@code down}), so
 *     that, while old and new instances share a changelog, the old ones can read everything the new ones write.
 *     Version 0 is written without a version field: byte for byte what the releases before versions wrote.</li>
 * </ul>
 *
 * Immutable and thread-safe; usable as a Kafka {@link Serde} of the store's values.
 *
 * @param <T> the domain value the store holds
 */
public final class StoreFormat<T> implements Serde<T>, Serializer<T>, Deserializer<T> {

    /** The name of the version field, first in every stored value. */
    public static final String VERSION_FIELD = "version";

    private static final ObjectMapper MAPPER = JsonMapper.builder()
            .addModule(new JavaTimeModule())
            .addModule(WireNames.module())
            .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS)
            .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .enable(DeserializationFeature.FAIL_ON_MISSING_CREATOR_PROPERTIES)
            .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
            .enable(DeserializationFeature.FAIL_ON_NUMBERS_FOR_ENUMS)
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .enable(DeserializationFeature.FAIL_ON_READING_DUP_TREE_KEY)
            .disable(MapperFeature.ALLOW_COERCION_OF_SCALARS)
            .build();

    /** Jackson's message for a missing creator property, which names it (its path may or may not end with it). */
    private static final Pattern MISSING = Pattern.compile("Missing (?:required )?creator property '([^']+)'");

    private final Codec<T, ?> codec;
    private final String store;
    private final List<StoreMigration> steps;
    private final int first;
    private final int writes;

    private StoreFormat(Codec<T, ?> codec, String store, List<StoreMigration> steps, int first, int writes) {
        this.codec = codec;
        this.store = store;
        this.steps = steps;
        this.first = first;
        this.writes = writes;
    }

    /**
     * A format for the values of {@code store}, stored as {@code stored} records.
     *
     * @param store    the store's name (it names the changelog too)
     * @param stored   the stored record type: no field named {@value #VERSION_FIELD}
     * @param toStored the domain value as a stored record
     * @param toValue  a stored record as the domain value; an exception it throws (a violated invariant) makes the
     *                 value unreadable
     */
    public static <T, S extends Record> Builder<T> of(String store, Class<S> stored, Function<T, S> toStored, Function<S, T> toValue) {
        if (Arrays.stream(stored.getRecordComponents()).anyMatch(c -> c.getName().equals(VERSION_FIELD))) {
            throw new IllegalArgumentException(stored.getName() + " has a field named '" + VERSION_FIELD + "': the format writes it");
        }
        return new Builder<>(new Codec<>(stored, toStored, toValue), store);
    }

    /** The name of the store whose values this format holds. */
    public String store() {
        return store;
    }

    /** The newest version: the one it reads everything as, and writes unless told otherwise. */
    public int version() {
        return first + steps.size();
    }

    /** The oldest version it reads: 0 if its store's values were first written without a version, else 1. */
    public int oldest() {
        return first;
    }

    /** The version it writes: {@link #version()}, or an older one ({@link #writing(int)}). */
    public int writes() {
        return writes;
    }

    /** The steps, from {@link #oldest()} up. */
    public List<StoreMigration> steps() {
        return steps;
    }

    /**
     * The same format writing {@code version}: every step from it up to {@link #version()} must be able to go down.
     * During a rolling upgrade to a release with a new version, that release writes the previous one until no
     * instance of the previous release is left, so that those can read what it writes.
     *
     * @throws IllegalArgumentException naming the store and the step, for a version it cannot write
     */
    public StoreFormat<T> writing(int version) {
        if (version < first || version > version()) {
            throw new IllegalArgumentException(store + ": cannot write version " + version + "; it writes versions " + first + " to "
                    + version());
        }
        for (StoreMigration step : steps.subList(version - first, steps.size())) {
            if (step.down().isEmpty()) {
                throw new IllegalArgumentException(store + ": cannot write version " + version + ": the step from " + step.from()
                        + " to " + step.to() + " (" + step.description() + ") cannot be taken back");
            }
        }
        return new StoreFormat<>(codec, store, steps, first, version);
    }

    /**
     * The same format writing the version {@code versions} gives its store ({@code tether.stores.write-version.<store>}),
     * or the current one if it gives none.
     */
    public StoreFormat<T> writing(Map<String, Integer> versions) {
        Integer version = versions.get(store);
        return version == null ? this : writing(version);
    }

    /**
     * Refuses versions for stores none of {@code formats} hold: a misspelt store name would otherwise be ignored, and a
     * rolling upgrade would write the newer version after all.
     *
     * @throws IllegalArgumentException naming the unknown stores and the known ones
     */
    public static void requireKnown(Map<String, Integer> versions, List<StoreFormat<?>> formats) {
        var known = formats.stream().map(StoreFormat::store).collect(Collectors.toCollection(java.util.TreeSet::new));
        var unknown = versions.keySet().stream().filter(s -> !known.contains(s)).sorted().toList();
        if (!unknown.isEmpty()) {
            throw new IllegalArgumentException("tether.stores.write-version names stores this service does not have: " + unknown
                    + " (its stores with a versioned format: " + known + ")");
        }
    }

    /**
     * Each of {@code formats} writing the version {@code versions} gives its store, as a service logs them at start.
     *
     * @throws IllegalArgumentException as {@link #requireKnown} and {@link #writing(int)}
     */
    public static List<StoreFormat<?>> writingAll(List<StoreFormat<?>> formats, Map<String, Integer> versions) {
        requireKnown(versions, formats);
        return formats.stream().<StoreFormat<?>>map(f -> f.writing(versions)).toList();
    }

    @Override
    public byte[] serialize(String topic, T value) {
        if (value == null) {
            return null;
        }
        Object stored = codec.stored(value);
        if (writes == version() && writes > 0) {
            return withVersionFirst(stored);
        }
        ObjectNode fields = MAPPER.valueToTree(stored);
        for (int v = version(); v > writes; v--) {
            fields = steps.get(v - 1 - first).down().orElseThrow().apply(fields);
        }
        ObjectNode out = MAPPER.createObjectNode();
        if (writes > 0) {
            out.put(VERSION_FIELD, writes);
        }
        out.setAll(fields);
        try {
            return MAPPER.writeValueAsBytes(out);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(store + ": cannot write a value as JSON", e);
        }
    }

    /**
     * The value {@code data} holds, carried up to the current version.
     *
     * @throws StoreFormatException for a newer version, a value a step cannot carry over, or bytes that are no value
     */
    @Override
    public T deserialize(String topic, byte[] data) {
        if (data == null) {
            return null;
        }
        T current = readCurrent(data);
        if (current != null) {
            return current;
        }
        JsonNode tree;
        try {
            tree = MAPPER.readTree(data);
        } catch (IOException e) {
            throw StoreFormatException.unreadable(store, "not a JSON document", e);
        }
        if (!(tree instanceof ObjectNode value)) {
            throw StoreFormatException.unreadable(store, "not a JSON object", null);
        }
        int version = versionOf(value);
        if (version > version()) {
            throw StoreFormatException.newer(store, version, version());
        }
        ObjectNode fields = value;
        for (StoreMigration step : steps.subList(version - first, steps.size())) {
            try {
                fields = step.up().apply(fields);
            } catch (StoreFormatException e) {
                throw e;
            } catch (RuntimeException e) {
                throw StoreFormatException.unmigratable(store, step.from(), "the step (" + step.description() + ") failed ("
                        + e.getClass().getSimpleName() + ")");
            }
        }
        return codec.value(store, version, version(), fields);
    }

    /**
     * The current version written straight from the stored record, without the tree the older versions' steps need: the
     * record's JSON object with the version field put first. The same bytes as through the tree ({@code StoreFormatTest}).
     */
    private byte[] withVersionFirst(Object stored) {
        byte[] fields;
        try {
            fields = MAPPER.writeValueAsBytes(stored);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(store + ": cannot write a value as JSON", e);
        }
        byte[] version = ("{\"" + VERSION_FIELD + "\":" + writes + (fields.length > 2 ? "," : "")).getBytes(StandardCharsets.UTF_8);
        byte[] out = Arrays.copyOf(version, version.length + fields.length - 1);
        System.arraycopy(fields, 1, out, version.length, fields.length - 1); // the record's fields and its closing brace
        return out;
    }

    /**
     * A value of the current version, with its version field first (as this format writes it), read straight into the
     * stored record, without the tree that carrying older versions up needs; {@code null} for any other value, or for
     * one this reading fails on: the tree's reading then takes it and names what is wrong, as it always did.
     */
    private T readCurrent(byte[] data) {
        try (JsonParser parser = MAPPER.createParser(data)) {
            parser.enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION); // as FAIL_ON_READING_DUP_TREE_KEY does for the tree
            if (parser.nextToken() != JsonToken.START_OBJECT || parser.nextToken() != JsonToken.FIELD_NAME
                    || !VERSION_FIELD.equals(parser.currentName()) || parser.nextToken() != JsonToken.VALUE_NUMBER_INT
                    || parser.getNumberType() != JsonParser.NumberType.INT || parser.getIntValue() != version()) {
                return null;
            }
            if (parser.nextToken() != JsonToken.FIELD_NAME) {
                return null; // a value without fields: rare enough for the tree
            }
            return codec.read(parser);
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    /** The value's version, removing its field; a value without one is of version 0, if the store had such values. */
    private int versionOf(ObjectNode value) {
        JsonNode version = value.remove(VERSION_FIELD);
        if (version == null) {
            if (first == 0) {
                return 0;
            }
            throw StoreFormatException.unreadable(store, "no '" + VERSION_FIELD + "' field (values of this store always have one)", null);
        }
        if (!version.isInt() || version.intValue() < Math.max(first, 1)) {
            throw StoreFormatException.unreadable(store, "its '" + VERSION_FIELD + "' is not a version this store has (a whole number from "
                    + Math.max(first, 1) + "; version 0 is written without the field)", null);
        }
        return version.intValue();
    }

    @Override
    public void configure(Map<String, ?> configs, boolean isKey) {}

    @Override
    public void close() {}

    @Override
    public Serializer<T> serializer() {
        return this;
    }

    @Override
    public Deserializer<T> deserializer() {
        return this;
    }

    @Override
    public String toString() {
        return "StoreFormat[" + store + ", version " + version() + (writes == version() ? "" : ", writing " + writes)
                + (first == 0 ? ", reads unversioned values as 0" : "") + "]";
    }

    /** How a {@link StoreFormat} is put together. */
    public static final class Builder<T> {
        private final Codec<T, ?> codec;
        private final String store;
        private final List<StoreMigration> chain = new ArrayList<>();
        private int first = 1;

        private Builder(Codec<T, ?> codec, String store) {
            this.codec = Objects.requireNonNull(codec);
            this.store = Objects.requireNonNull(store);
        }

        /**
         * The store's values were first written without a version (version 0), and {@code step} (from 0:
         * {@link StoreMigration#fromUnversioned}) reads them as version 1. Without this, a value without a version is
         * unreadable.
         */
        public Builder<T> fromUnversioned(StoreMigration step) {
            if (step.from() != 0 || !chain.isEmpty()) {
                throw new IllegalArgumentException(store + ": the step from unversioned values goes from version 0, first; got one from "
                        + step.from());
            }
            chain.add(step);
            first = 0;
            return this;
        }

        /** The format with {@code steps} after those given so far: the steps from 1 to 2, 2 to 3, and so on, in order. */
        public StoreFormat<T> steps(StoreMigration... steps) {
            var all = new ArrayList<>(chain);
            all.addAll(List.of(steps));
            for (int i = 0; i < all.size(); i++) {
                if (all.get(i).from() != first + i) {
                    throw new IllegalArgumentException(store + ": step " + (i + 1) + " of the chain goes from version " + all.get(i).from()
                            + "; the steps must go from " + first + ", " + (first + 1) + "... in order, without gaps");
                }
            }
            return new StoreFormat<>(codec, store, List.copyOf(all), first, first + all.size());
        }

        /** The format without further steps. */
        public StoreFormat<T> build() {
            return steps();
        }
    }

    /** The stored type and its mapping, kept together so their type parameter matches. */
    private record Codec<T, S extends Record>(Class<S> type, Function<T, S> toStored, Function<S, T> toValue) {

        Object stored(T value) {
            return toStored.apply(value);
        }

        /** The value the rest of the object {@code parser} is in (at its first field) holds. */
        T read(JsonParser parser) throws IOException {
            return toValue.apply(MAPPER.readValue(parser, type));
        }

        /** The value {@code fields} (of {@code version}, carried up to {@code current}) hold. */
        T value(String store, int version, int current, ObjectNode fields) {
            S stored;
            try {
                stored = MAPPER.treeToValue(fields, type);
            } catch (UnrecognizedPropertyException e) {
                throw StoreFormatException.unknownField(store, version, current, path(e), e);
            } catch (InvalidNullException e) {
                throw StoreFormatException.badField(store, version, current, path(e), "null, for a field that cannot be empty", e);
            } catch (InvalidFormatException e) {
                throw StoreFormatException.badField(store, version, current, path(e), "not one of its values", e);
            } catch (MismatchedInputException e) {
                Matcher missing = MISSING.matcher(e.getOriginalMessage());
                if (missing.find()) {
                    String path = path(e);
                    String field = missing.group(1);
                    if (!path.equals(field) && !path.endsWith("." + field)) {
                        path = path.isEmpty() ? field : path + "." + field;
                    }
                    throw StoreFormatException.missingField(store, version, current, path, e);
                }
                throw StoreFormatException.badField(store, version, current, path(e), "not of its kind", e);
            } catch (JsonProcessingException e) {
                throw StoreFormatException.invalid(store, version, current, "not a value of " + type.getSimpleName(), e);
            } catch (IllegalArgumentException e) {
                throw StoreFormatException.invalid(store, version, current, "not a value of " + type.getSimpleName(), e);
            }
            try {
                return toValue.apply(stored);
            } catch (RuntimeException e) {
                throw StoreFormatException.invalid(store, version, current, "its fields break a rule of the value ("
                        + e.getClass().getSimpleName() + ")", e);
            }
        }

        /** Where in the value a mapping failed, by field names, map keys and indexes (never the content). */
        private static String path(JsonMappingException e) {
            return e.getPath().stream()
                    .map(r -> r.getFieldName() != null ? r.getFieldName() : r.getIndex() >= 0 ? Integer.toString(r.getIndex()) : "?")
                    .collect(Collectors.joining("."));
        }
    }
}
