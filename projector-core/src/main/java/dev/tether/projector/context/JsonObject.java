package dev.tether.projector.context;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Builds the JSON-ready maps of a {@link ModelContext}: keys keep the order they were put in, so
 * a message always serializes to the same bytes. Mutable until {@link #build()}; not thread-safe.
 */
final class JsonObject {

    private final Map<String, Object> fields = new LinkedHashMap<>();

    private JsonObject() {}

    static JsonObject create() {
        return new JsonObject();
    }

    /** Sets {@code key}; a null value becomes JSON {@code null}. */
    JsonObject put(String key, Object value) {
        fields.put(key, value);
        return this;
    }

    /** An unmodifiable copy of the fields, in the order they were put. */
    Map<String, Object> build() {
        return Collections.unmodifiableMap(new LinkedHashMap<>(fields));
    }
}
