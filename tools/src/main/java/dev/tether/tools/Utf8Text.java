package dev.tether.tools;

import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CoderResult;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Optional;

/**
 * Decides whether file bytes are text, and decodes them. Text is valid UTF-8 without a NUL character: what the file
 * tools read, edit and diff. Anything else is binary.
 */
final class Utf8Text {

    private Utf8Text() {}

    /** The bytes as text, or empty if they are binary. */
    static Optional<String> decode(byte[] bytes) {
        return decode(bytes, false);
    }

    /**
     * The beginning of a text cut after {@code bytes}: like {@link #decode(byte[])}, but a character cut in two at the
     * end is left out rather than taken for binary.
     */
    static Optional<String> decodePrefix(byte[] bytes) {
        return decode(bytes, true);
    }

    private static Optional<String> decode(byte[] bytes, boolean cut) {
        CharsetDecoder decoder = StandardCharsets.UTF_8.newDecoder()
                .onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT);
        ByteBuffer in = ByteBuffer.wrap(bytes);
        CharBuffer out = CharBuffer.allocate(bytes.length);
        CoderResult result = decoder.decode(in, out, !cut);
        if (result.isError() || !cut && decoder.flush(out).isError()) {
            return Optional.empty();
        }
        out.flip();
        String text = out.toString();
        return text.indexOf('\0') >= 0 ? Optional.empty() : Optional.of(text);
    }

    /** Whether the bytes look like text, from their first 8 KiB: no NUL byte there. Cheap; for skipping files. */
    static boolean looksLikeText(byte[] bytes) {
        int end = Math.min(bytes.length, 8192);
        for (int i = 0; i < end; i++) {
            if (bytes[i] == 0) {
                return false;
            }
        }
        return true;
    }
}
