package dev.tether.common.kafka;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serializer;

/**
 * The tiny binary form of a {@link SessionEventKey}: a format byte ({@code 0x01}), the seq as 8
 * bytes big-endian, then the sessionId in UTF-8. Stateless and thread-safe.
 */
public final class SessionEventKeySerde implements Serde<SessionEventKey>, Serializer<SessionEventKey>, Deserializer<SessionEventKey> {

    static final byte FORMAT_V1 = 1;

    @Override
    public byte[] serialize(String topic, SessionEventKey key) {
        if (key == null) {
            return null;
        }
        byte[] id = key.sessionId().getBytes(StandardCharsets.UTF_8);
        return ByteBuffer.allocate(1 + Long.BYTES + id.length).put(FORMAT_V1).putLong(key.seq()).put(id).array();
    }

    @Override
    public SessionEventKey deserialize(String topic, byte[] data) {
        if (data == null) {
            return null;
        }
        if (data.length < 1 + Long.BYTES || data[0] != FORMAT_V1) {
            throw new SerializationException("not a session-events key (" + data.length + " bytes, format "
                    + (data.length > 0 ? data[0] : -1) + ") in " + topic);
        }
        ByteBuffer buffer = ByteBuffer.wrap(data);
        buffer.get();
        long seq = buffer.getLong();
        String sessionId = new String(data, buffer.position(), buffer.remaining(), StandardCharsets.UTF_8);
        return new SessionEventKey(sessionId, seq);
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
