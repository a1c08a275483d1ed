package dev.tether.kit.service.rest;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonStreamContext;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tether.core.event.InvalidEventException;
import dev.tether.core.event.WellFormedText;
import dev.tether.core.secrets.SecretScrubber;
import dev.tether.kit.json.EventJson;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayDeque;

/**
 * Request bodies and query parameters as the resources read them, strictly: a JSON body is UTF-8 text (RFC 8259), so
 * bytes that are not UTF-8 are refused rather than turned into U+FFFD and stored; it is one JSON value whose objects
 * name each member once; a numeric query parameter that is not a number is refused naming it (JAX-RS would answer a
 * bare 404).
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
     * The body as one JSON value; null when it is blank. Refused with a 400 of ours (a JSON body; Jackson's own mapper
     * answers a bare 400):
     * <ul>
     * <li>bytes that are not UTF-8 ({@link #utf8}), text that is not JSON, or more than one value
     *     ({@code {"decision":"DENY"}{"decision":"GRANT_ONCE"}}): {@code malformed_json}, with the line and column;</li>
     * <li>an object naming a member twice: {@code invalid_field} naming it as the API names fields
     *     ({@code events[1].content}). {@code {"toolMode":"READ_ONLY","toolMode":"WRITE"}} reads as READ_ONLY to whatever
     *     takes the first member (a proxy, a policy check, a person reading a log) and Jackson would take the last, so the
     *     body is refused rather than guessed at. A member's name is client text too: it is scrubbed of secrets;</li>
     * <li>a lone UTF-16 surrogate ({@link #wellFormedText}).</li>
     * </ul>
     */
    public static JsonNode json(ObjectMapper mapper, byte[] bytes) {
        String body = utf8(bytes);
        if (body.isBlank()) {
            return null;
        }
        JsonNode tree;
        try {
            tree = mapper.reader().with(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
                    .with(StreamReadFeature.STRICT_DUPLICATE_DETECTION).readTree(body);
        } catch (JsonProcessingException e) {
            if (e.getProcessor() instanceof JsonParser parser && e.getOriginalMessage().startsWith("Duplicate field")) {
                String field = SecretScrubber.standard().scrub(fieldAt(parser.getParsingContext())).text();
                throw ApiException.badRequest(field, "is named twice; name each member once");
            }
            var location = e.getLocation();
            throw new ApiException(400, "malformed_json", "the body is not one valid JSON value"
                    + (location == null ? "" : " at line " + location.getLineNr() + ", column " + location.getColumnNr()));
        }
        return wellFormedText(tree);
    }

    /** The member a parser is at, named as the API names fields: {@code events[0].content}; {@code (body)} at the top. */
    private static String fieldAt(JsonStreamContext context) {
        var steps = new ArrayDeque<String>();
        for (JsonStreamContext c = context; c != null && !c.inRoot(); c = c.getParent()) {
            steps.addFirst(c.inArray() ? "[" + Math.max(0, c.getCurrentIndex()) + "]" : "." + c.getCurrentName());
        }
        String path = String.join("", steps);
        return path.isEmpty() ? InvalidEventException.WHOLE : path.startsWith(".") ? path.substring(1) : path;
    }

    /**
     * Refuses a JSON tree with a lone UTF-16 surrogate in a text or a field name (valid JSON, {@code "\\ud800"}, but no
     * Unicode character): every text is stored as UTF-8, which has no encoding for it, so it would be stored as {@code ?},
     * not as sent, and two distinct ids could become one. 400 names the field, as {@code events[0].content}; the
     * members' names in it are client text, scrubbed of secrets as in the refusal of a member named twice.
     */
    public static JsonNode wellFormedText(JsonNode tree) {
        String bad = loneSurrogateAt(tree, "");
        if (bad != null) {
            throw ApiException.badRequest(bad.isEmpty() ? InvalidEventException.WHOLE : SecretScrubber.standard().scrub(bad).text(),
                    "holds a lone UTF-16 surrogate, which is no Unicode character");
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

    /**
     * {@code value} of query parameter {@code name} as an instant (ISO-8601, as the services write them, e.g.
     * {@code 2026-12-06T12:00:00.123Z}); null when absent or empty.
     */
    public static Instant instantParam(String value, String name) {
        if (value == null || value.isEmpty()) {
            return null;
        }
        Instant instant = EventJson.instant(value);
        if (instant == null) {
            throw ApiException.badRequest(name, "must be an instant, as the services write them (2026-12-06T12:00:00.123Z)");
        }
        return instant;
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
