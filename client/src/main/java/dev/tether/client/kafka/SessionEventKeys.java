package dev.tether.client.kafka;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Objects;

/**
 * Reads the keys of the {@code session-events} topic, for agents that follow a session straight
 * from Kafka (see the client's README): a format byte ({@code 0x01}), the sessionId's UTF-8 length
 * (2 bytes, big-endian), its bytes, then the seq (8 bytes, big-endian). Plain Java, so the SDK
 * stays free of Kafka: hand it the {@code byte[]} a {@code ByteArrayDeserializer} gives.
 *
 * <p>Stateless and thread-safe.
 */
public final class SessionEventKeys {

    /** The key format this class reads. */
    public static final byte FORMAT_V1 = 1;

    private SessionEventKeys() {}

    /**
     * A decoded key.
     *
     * @param sessionId the session, never null
     * @param seq       the event's seq, from 1
     */
    public record Key(String sessionId, long seq) {
        public Key {
            Objects.requireNonNull(sessionId, "sessionId");
        }
    }

    /**
     * The key in {@code bytes}.
     *
     * @throws IllegalArgumentException if the bytes are not a {@code session-events} key of a known format
     */
    public static Key decode(byte[] bytes) {
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
        return new Key(sessionId, buffer.getLong());
    }

    /** The key of event {@code seq} of {@code sessionId}, as the sequencer writes it (e.g. to seek or to compare). */
    public static byte[] encode(String sessionId, long seq) {
        byte[] id = sessionId.getBytes(StandardCharsets.UTF_8);
        if (id.length > 0xFFFF) {
            throw new IllegalArgumentException("sessionId longer than 65535 bytes");
        }
        return ByteBuffer.allocate(1 + Short.BYTES + id.length + Long.BYTES).put(FORMAT_V1).putShort((short) id.length).put(id).putLong(seq)
                .array();
    }
}
