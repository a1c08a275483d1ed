package dev.tether.kit.service.rest;

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
