package dev.tether.kit.kafka;

import dev.tether.core.id.SessionEventKeyBytes;
import java.util.Map;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serializer;

/**
 * The tiny binary form of a {@link SessionEventKey}, {@link SessionEventKeyBytes}: a format byte ({@code 0x01}), the
 * length of the sessionId's UTF-8 bytes (2 bytes, big-endian), those bytes, then the seq (8 bytes, big-endian).
 *
 * <p>The layout makes the bytes of one session's keys sort by seq and share a prefix, so a state
 * store keyed by it serves "events of session S from seq N" as one range scan:
 * {@code range(key(S, N), key(S, Long.MAX_VALUE))}. Stateless and thread-safe.
 */
public final class SessionEventKeySerde implements Serde<SessionEventKey>, Serializer<SessionEventKey>, Deserializer<SessionEventKey> {

    static final byte FORMAT_V1 = SessionEventKeyBytes.FORMAT_V1;
    /** Longest sessionId, in UTF-8 bytes, a key can hold. */
    public static final int MAX_SESSION_ID_BYTES = SessionEventKeyBytes.MAX_SESSION_ID_BYTES;

    @Override
    public byte[] serialize(String topic, SessionEventKey key) {
        if (key == null) {
            return null;
        }
        try {
            return SessionEventKeyBytes.encode(key.sessionId(), key.seq());
        } catch (IllegalArgumentException e) {
            throw new SerializationException(e.getMessage());
        }
    }

    @Override
    public SessionEventKey deserialize(String topic, byte[] data) {
        if (data == null) {
            return null;
        }
        SessionEventKeyBytes.Decoded key;
        try {
            key = SessionEventKeyBytes.decode(data);
        } catch (IllegalArgumentException e) {
            throw notAKey(topic, data);
        }
        return new SessionEventKey(key.sessionId(), key.seq());
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
