package dev.tether.client.kafka;

import dev.tether.core.id.SessionEventKeyBytes;
import java.util.Objects;

/**
 * Reads the keys of the {@code session-events} topic, for agents that follow a session straight
 * from Kafka (see the client's README): a format byte ({@code 0x01}), the sessionId's UTF-8 length
 * (2 bytes, big-endian), its bytes, then the seq (8 bytes, big-endian). Plain Java, so the SDK
 * stays free of Kafka: hand it the {@code byte[]} a {@code ByteArrayDeserializer} gives. The bytes are the
 * services' own ({@link SessionEventKeyBytes}, in tether-core).
 *
 * <p>Stateless and thread-safe.
 */
public final class SessionEventKeys {

    /** The key format this class reads. */
    public static final byte FORMAT_V1 = SessionEventKeyBytes.FORMAT_V1;

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
        SessionEventKeyBytes.Decoded key = SessionEventKeyBytes.decode(bytes);
        return new Key(key.sessionId(), key.seq());
    }

    /** The key of event {@code seq} of {@code sessionId}, as the sequencer writes it (e.g. to seek or to compare). */
    public static byte[] encode(String sessionId, long seq) {
        return SessionEventKeyBytes.encode(sessionId, seq);
    }
}
