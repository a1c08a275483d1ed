package dev.tether.projector.context;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The {@code input} object of an Anthropic {@code tool_use} block, parsed from a call's
 * {@code argumentsJson}: the JSON object itself, its keys in their order, or
 * {@code {"_raw": <the text>}} when the text is not exactly one JSON object. Numbers with a fraction
 * are kept as decimals, so they are written back as they were read. Pure and thread-safe.
 */
final class ToolInput {

    /** The key under which arguments that are not a JSON object are passed on as text. */
    static final String RAW_KEY = "_raw";

    private static final ObjectMapper JSON = JsonMapper.builder()
            .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .build();

    private ToolInput() {}

    /** The input object of {@code argumentsJson}; unmodifiable all the way down. */
    static Map<String, Object> of(String argumentsJson) {
        try {
            Object parsed = JSON.readValue(argumentsJson, Object.class);
            if (parsed instanceof Map<?, ?> object) {
                return frozenObject(object);
            }
        } catch (JsonProcessingException notJson) {
            // passed on as text, below
        }
        return JsonObject.create().put(RAW_KEY, argumentsJson).build();
    }

    private static Map<String, Object> frozenObject(Map<?, ?> object) {
        var copy = new LinkedHashMap<String, Object>();
        object.forEach((key, value) -> copy.put((String) key, frozen(value)));
        return Collections.unmodifiableMap(copy);
    }

    private static Object frozen(Object value) {
        if (value instanceof Map<?, ?> object) {
            return frozenObject(object);
        }
        if (value instanceof List<?> array) {
            return array.stream().map(ToolInput::frozen).toList();
        }
        return value;
    }
}
