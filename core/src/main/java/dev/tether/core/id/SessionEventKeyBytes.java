package dev.tether.core.id;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Objects;

/**
 * The bytes of a {@code session-events} key, one per event: a format byte ({@value #FORMAT_V1}), the length of the
 * sessionId's UTF-8 bytes (2 bytes, big-endian), those bytes, then the seq (8 bytes, big-endian). The services' serde
 * and the SDK's reader for agents that follow the topic straight from Kafka both use this, so they cannot drift.
 *
 * <p>The layout makes the bytes of one session's keys sort by seq and share a prefix, so a state store keyed by it
 * serves "events of session S from seq N" as one range scan, {@code range(key(S, N), key(S, Long.MAX_VALUE))}. The
 * bytes are in the topic and in stores restored from it, so they never change. Stateless and thread-safe.
 */
public final class SessionEventKeyBytes {

    /** The format these bytes are in. */
    public static final byte FORMAT_V1 = 1;
    /** Longest sessionId, in UTF-8 bytes, a key can hold. */
    public static final int MAX_SESSION_ID_BYTES = 0xFFFF;

    private SessionEventKeyBytes() {}

    /**
     * A decoded key.
     *
     * @param sessionId the session, never null
     * @param seq       the event's seq, as the bytes hold it
     */
    public record Decoded(String sessionId, long seq) {
        public Decoded {
            Objects.requireNonNull(sessionId, "sessionId");
        }
    }

    /**
     * The key of event {@code seq} of {@code sessionId}.
     *
     * @throws IllegalArgumentException if the sessionId is longer than {@value #MAX_SESSION_ID_BYTES} UTF-8 bytes
     */
    public static byte[] encode(String sessionId, long seq) {
        byte[] id = sessionId.getBytes(StandardCharsets.UTF_8);
        if (id.length > MAX_SESSION_ID_BYTES) {
            throw new IllegalArgumentException("sessionId longer than " + MAX_SESSION_ID_BYTES + " bytes");
        }
        return ByteBuffer.allocate(1 + Short.BYTES + id.length + Long.BYTES)
                .put(FORMAT_V1).putShort((short) id.length).put(id).putLong(seq).array();
    }

    /**
     * The key in {@code bytes}.
     *
     * @throws IllegalArgumentException if the bytes are not a {@code session-events} key of a known format
     */
    public static Decoded decode(byte[] bytes) {
        Objects.requireNonNull(bytes, "bytes");
        if (bytes.length < 1 + Short.BYTES + Long.BYTES || bytes[0] != FORMAT_V1) {
            throw new IllegalArgumentException("not a session-events key (" + bytes.length + " bytes, format "
                    + (bytes.length > 0 ? bytes[0] : -1) + ")");
        }
        ByteBuffer buffer = ByteBuffer.wrap(bytes, 1, bytes.length - 1);
        int length = Short.toUnsignedInt(buffer.getShort());
        if (buffer.remaining() != length + Long.BYTES) {
            throw new IllegalArgumentException("not a session-events key: the sessionId's length " + length + " does not fit "
                    + bytes.length + " bytes");
        }
        String sessionId = new String(bytes, buffer.position(), length, StandardCharsets.UTF_8);
        buffer.position(buffer.position() + length);
        return new Decoded(sessionId, buffer.getLong());
    }
}
