package dev.tether.kit.kafka;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serializer;

/**
 * The tiny binary form of a {@link SessionEventKey}: a format byte ({@code 0x01}), the length of
 * the sessionId's UTF-8 bytes (2 bytes, big-endian), those bytes, then the seq (8 bytes,
 * big-endian).
 *
 * <p>The layout makes the bytes of one session's keys sort by seq and share a prefix, so a state
 * store keyed by it serves "events of session S from seq N" as one range scan:
 * {@code range(key(S, N), key(S, Long.MAX_VALUE))}. Stateless and thread-safe.
 */
public final class SessionEventKeySerde implements Serde<SessionEventKey>, Serializer<SessionEventKey>, Deserializer<SessionEventKey> {

    static final byte FORMAT_V1 = 1;
    /** Longest sessionId, in UTF-8 bytes, a key can hold. */
    public static final int MAX_SESSION_ID_BYTES = 0xFFFF;

    @Override
    public byte[] serialize(String topic, SessionEventKey key) {
        if (key == null) {
            return null;
        }
        byte[] id = key.sessionId().getBytes(StandardCharsets.UTF_8);
        if (id.length > MAX_SESSION_ID_BYTES) {
            throw new SerializationException("sessionId longer than " + MAX_SESSION_ID_BYTES + " bytes");
        }
        return ByteBuffer.allocate(1 + Short.BYTES + id.length + Long.BYTES)
                .put(FORMAT_V1).putShort((short) id.length).put(id).putLong(key.seq()).array();
    }

    @Override
    public SessionEventKey deserialize(String topic, byte[] data) {
        if (data == null) {
            return null;
        }
        ByteBuffer buffer = ByteBuffer.wrap(data);
        if (data.length < 1 + Short.BYTES + Long.BYTES || buffer.get() != FORMAT_V1) {
            throw notAKey(topic, data);
        }
        int idLength = Short.toUnsignedInt(buffer.getShort());
        if (buffer.remaining() != idLength + Long.BYTES) {
            throw notAKey(topic, data);
        }
        String sessionId = new String(data, buffer.position(), idLength, StandardCharsets.UTF_8);
        buffer.position(buffer.position() + idLength);
        return new SessionEventKey(sessionId, buffer.getLong());
    }

    private static SerializationException notAKey(String topic, byte[] data) {
        return new SerializationException("not a session-events key (" + data.length + " bytes, format "
                + (data.length > 0 ? data[0] : -1) + ") in " + topic);
    }

    @Override
    public void configure(Map<String, ?> configs, boolean isKey) {}

    @Override
    public void close() {}

    @Override
    public Serializer<SessionEventKey> serializer() {
        return this;
    }

    @Override
    public Deserializer<SessionEventKey> deserializer() {
        return this;
    }
}
