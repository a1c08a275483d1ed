package dev.tether.session.rest;

import com.fasterxml.jackson.core.JsonFactoryBuilder;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.SerializableString;
import com.fasterxml.jackson.core.io.CharacterEscapes;
import com.fasterxml.jackson.core.io.SerializedString;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import dev.tether.core.event.JsonSyntax;
import dev.tether.core.secrets.Scrubbed;
import dev.tether.core.secrets.SecretScrubber;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Secret scrubbing of a client string that holds JSON text (a {@code framework_state}'s content, a tool call's
 * {@code argumentsJson}) such that it stays JSON. It is scrubbed as text, like every client string, which catches a
 * secret by its shape or by the name it is assigned to ({@code "password":"…"}, {@code "api_key": ["…"]}). Where
 * that redacted a value JSON does not quote ({@code "api_key": 1234}), the text would no longer
 * parse; such a text is scrubbed value by value instead: every member name and string scrubbed as text, every member
 * whose {@code "name": value} the scrubber finds a secret in given the redaction marker as its value, a string, and
 * every array or object under a secret name scrubbed as text under it once its own members are (the strings in it
 * redacted as they are in text). A string that is JSON text itself (a tool call's {@code arguments} in a framework's
 * record, a tool's JSON output kept in a message) is JSON text to whoever reads it: the text is scrubbed value by value
 * too when plain scrubbing left the outer text JSON but such a string not ({@code "{\"api_key\": 1234}"}), and every
 * string that opens as JSON is scrubbed so, recursively. That text is written anew (compact, numbers exact, a member
 * named twice kept once, as Jackson keeps it): only the rare text whose plain scrubbing broke it is rewritten.
 *
 * <p>A text with Unicode escapes (<code>&#92;u0041</code>) or escaped slashes ({@code \/}), which hide a secret's shape
 * or name from scrubbing as text (Gson writes {@code =} as <code>&#92;u003d</code>, PHP {@code /} as {@code \/}), is
 * scrubbed as Jackson writes it anew, without those escapes; if nothing is redacted, it stays as it was.
 * Thread-safe.
 */
final class JsonTextScrubbing {

    private static final Pattern MARKER = Pattern.compile("\\[REDACTED:[a-z0-9-]+]");
    /** An escape that hides text from scrubbing as text. */
    private static final Pattern HIDING_ESCAPE = Pattern.compile("\\\\(?:u[0-9A-Fa-f]{4}|/)");

    /**
     * Reads numbers exactly, so writing the tree back changes none; writes every surrogate char as an escape, so that a
     * lone one (JSON text holds it as <code>&#92;ud800</code>, no character) stays one rather than become a raw char, which is
     * stored as {@code ?}.
     */
    private static final JsonMapper MAPPER = JsonMapper.builder(new JsonFactoryBuilder().characterEscapes(new SurrogateEscapes()).build())
            .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .nodeFactory(JsonNodeFactory.withExactBigDecimals(true))
            .build();

    private JsonTextScrubbing() {}

    /** {@code json} with its secrets redacted; JSON text still if it was JSON text (and not nested beyond Jackson's limit). */
    static Scrubbed scrub(SecretScrubber scrubber, String json) {
        String readable = HIDING_ESCAPE.matcher(json).find() ? withoutEscapes(json) : json;
        Scrubbed asText = scrubber.scrub(readable);
        if (!asText.redactedAny()) {
            return new Scrubbed(json, 0, Map.of());
        }
        if (!JsonSyntax.isValue(readable)) {
            return asText; // never was JSON: scrubbed as the text it is
        }
        JsonNode tree;
        try {
            tree = MAPPER.readTree(readable);
            if (JsonSyntax.isValue(asText.text()) && !brokeNestedJson(tree, MAPPER.readTree(asText.text()))) {
                return asText; // still JSON, and so is every string in it that was
            }
        } catch (JsonProcessingException e) {
            return asText; // deeper than Jackson reads: the event's check refuses what scrubbing broke, naming content
        }
        var tally = new Tally(scrubber);
        JsonNode scrubbed = tally.value(tree);
        try {
            return new Scrubbed(MAPPER.writeValueAsString(scrubbed), tally.redactions, tally.byKind);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("a JSON tree read from text could not be written back", e);
        }
    }

    /**
     * Whether a string of {@code original} that is JSON text itself (a tool call's {@code arguments} inside a framework's
     * record, a tool's JSON output kept in a message) is no longer JSON in {@code scrubbed}, the same tree scrubbed as
     * text: {@code "{\"api_key\": 1234}"} inside a string stays a valid string of the outer text once redacted, but is
     * no JSON to whoever reads it. Scrubbing as text changes strings and member names, never the tree's shape.
     */
    private static boolean brokeNestedJson(JsonNode original, JsonNode scrubbed) {
        if (original.isTextual()) {
            String text = original.textValue();
            return looksLikeJson(text) && scrubbed.isTextual() && !JsonSyntax.isValue(scrubbed.textValue()) && JsonSyntax.isValue(text);
        }
        if (original.size() != scrubbed.size() || original.isObject() != scrubbed.isObject()) {
            return false; // a member name scrubbed into another's: the walk value by value decides
        }
        Iterator<JsonNode> a = original.elements();
        Iterator<JsonNode> b = scrubbed.elements();
        while (a.hasNext() && b.hasNext()) {
            if (brokeNestedJson(a.next(), b.next())) {
                return true;
            }
        }
        return false;
    }

    /** Whether {@code text} opens as a JSON object or array would: the strings worth reading as JSON. */
    private static boolean looksLikeJson(String text) {
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (!Character.isWhitespace(c)) {
                return c == '{' || c == '[';
            }
        }
        return false;
    }

    /** {@code json} as Jackson writes it, which escapes only what JSON must; {@code json} itself if it is no JSON. */
    private static String withoutEscapes(String json) {
        try {
            return MAPPER.writeValueAsString(MAPPER.readTree(json));
        } catch (JsonProcessingException e) {
            return json;
        }
    }

    /** JSON's escapes, and every surrogate char as <code>&#92;uXXXX</code>: a pair as two, the same string. */
    private static final class SurrogateEscapes extends CharacterEscapes {
        private final int[] ascii = CharacterEscapes.standardAsciiEscapesForJSON();

        @Override
        public int[] getEscapeCodesForAscii() {
            return ascii;
        }

        @Override
        public SerializableString getEscapeSequence(int ch) {
            return Character.isSurrogate((char) ch) ? new SerializedString(String.format("\\u%04x", ch)) : null;
        }
    }

    /** Walks a tree, counting what it redacts. */
    private static final class Tally {
        private final SecretScrubber scrubber;
        private final Map<String, Integer> byKind = new LinkedHashMap<>();
        private int redactions;

        Tally(SecretScrubber scrubber) {
            this.scrubber = scrubber;
        }

        JsonNode value(JsonNode node) {
            if (node instanceof ObjectNode object) {
                return object(object);
            }
            if (node instanceof ArrayNode array) {
                ArrayNode copy = MAPPER.createArrayNode();
                array.forEach(element -> copy.add(value(element)));
                return copy;
            }
            return node.isTextual() ? TextNode.valueOf(text(node.asText())) : node;
        }

        private ObjectNode object(ObjectNode object) {
            ObjectNode copy = MAPPER.createObjectNode();
            for (Iterator<Map.Entry<String, JsonNode>> it = object.fields(); it.hasNext(); ) {
                var member = it.next();
                String name = text(member.getKey());
                JsonNode value = member.getValue();
                if (value.isContainerNode()) {
                    copy.set(name, underItsName(name, value(value)));
                    continue;
                }
                // the value alone first (a token by its shape), then as assigned to its name (a password by its name)
                String alone = value.isTextual() ? text(value.asText()) : null;
                boolean changed = alone != null && !alone.equals(value.asText());
                Scrubbed assigned = changed ? null : scrubber.scrub(quoted(name) + ":" + value);
                if (assigned != null && assigned.redactedAny()) {
                    count(assigned);
                    Matcher marker = MARKER.matcher(assigned.text());
                    copy.put(name, marker.find() ? marker.group() : "[REDACTED:secret-assignment]");
                } else {
                    copy.set(name, alone != null ? TextNode.valueOf(alone) : value);
                }
            }
            return copy;
        }

        /**
         * An array or object, its members scrubbed already, as the scrubber has it under its name, which may say that
         * every string in it is a secret ({@code "api_key": ["…"]}): written as text under the name and scrubbed so.
         * Itself if the name says nothing of the kind, or if that text would no longer parse.
         */
        private JsonNode underItsName(String name, JsonNode walked) {
            if (!scrubber.scrub(quoted(name) + ":[\"x\"]").redactedAny()) {
                return walked; // most names: nothing written
            }
            try {
                Scrubbed member = scrubber.scrub("{" + quoted(name) + ":" + MAPPER.writeValueAsString(walked) + "}");
                JsonNode scrubbed = member.redactedAny() ? MAPPER.readTree(member.text()).get(name) : null;
                if (scrubbed == null) {
                    return walked;
                }
                count(member);
                return scrubbed;
            } catch (JsonProcessingException e) {
                return walked;
            }
        }

        /** A string scrubbed, as JSON text when it opens as JSON (which then stays JSON), else as text. */
        private String text(String text) {
            Scrubbed s = looksLikeJson(text) ? scrub(scrubber, text) : scrubber.scrub(text);
            count(s);
            return s.text();
        }

        private void count(Scrubbed s) {
            redactions += s.redactions();
            s.byKind().forEach((kind, n) -> byKind.merge(kind, n, Integer::sum));
        }

        private static String quoted(String name) {
            return TextNode.valueOf(name).toString();
        }
    }
}
