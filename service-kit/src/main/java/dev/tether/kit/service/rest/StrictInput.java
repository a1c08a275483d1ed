package dev.tether.kit.service.rest;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tether.core.event.WellFormedText;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * Request bodies and query parameters as the resources read them, strictly: a JSON body is UTF-8 text (RFC 8259), so
 * bytes that are not UTF-8 are refused rather than turned into U+FFFD and stored; a numeric query parameter that is
 * not a number is refused naming it (JAX-RS would answer a bare 404).
 */
public final class StrictInput {

    private StrictInput() {}

    /** The body as text; 400 {@code malformed_json} when it is not UTF-8. An absent body is the empty string. */
    public static String utf8(byte[] body) {
        if (body == null) {
            return "";
        }
        try {
            return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(body)).toString();
        } catch (CharacterCodingException e) {
            throw new ApiException(400, "malformed_json", "the body is not valid UTF-8");
        }
    }

    /**
     * Refuses a JSON tree with a lone UTF-16 surrogate in a text or a field name (valid JSON, {@code "\\ud800"}, but no
     * Unicode character): every text is stored as UTF-8, which has no encoding for it, so it would be stored as {@code ?},
     * not as sent, and two distinct ids could become one. 400 names the field, as {@code events[0].content}.
     */
    public static JsonNode wellFormedText(JsonNode tree) {
        String bad = loneSurrogateAt(tree, "");
        if (bad != null) {
            throw ApiException.badRequest(bad.isEmpty() ? "(the body)" : bad, "holds a lone UTF-16 surrogate, which is no Unicode"
                    + " character");
        }
        return tree;
    }

    private static String loneSurrogateAt(JsonNode node, String path) {
        if (node.isTextual()) {
            return WellFormedText.isWellFormed(node.textValue()) ? null : path;
        }
        if (node.isArray()) {
            for (int i = 0; i < node.size(); i++) {
                String bad = loneSurrogateAt(node.get(i), path + "[" + i + "]");
                if (bad != null) {
                    return bad;
                }
            }
        } else if (node.isObject()) {
            for (var fields = node.fields(); fields.hasNext(); ) {
                var field = fields.next();
                String at = path.isEmpty() ? field.getKey() : path + "." + field.getKey();
                if (!WellFormedText.isWellFormed(field.getKey())) {
                    return at;
                }
                String bad = loneSurrogateAt(field.getValue(), at);
                if (bad != null) {
                    return bad;
                }
            }
        }
        return null;
    }

    /** {@code value} of query parameter {@code name} as a whole number; null when absent or empty. */
    public static Long longParam(String value, String name) {
        if (value == null || value.isEmpty()) {
            return null;
        }
        try {
            return Long.parseLong(value);
        } catch (NumberFormatException e) {
            throw ApiException.badRequest(name, "must be a whole number");
        }
    }

    /** {@code value} of query parameter {@code name} as a whole number that fits an int; null when absent or empty. */
    public static Integer intParam(String value, String name) {
        Long n = longParam(value, name);
        if (n == null) {
            return null;
        }
        if (n < Integer.MIN_VALUE || n > Integer.MAX_VALUE) {
            throw ApiException.badRequest(name, "is out of range");
        }
        return n.intValue();
    }
}
