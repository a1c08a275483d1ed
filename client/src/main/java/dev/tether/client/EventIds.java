package dev.tether.client;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Objects;
import java.util.UUID;

/**
 * Deterministic eventIds: the same session, step and position always give the same id, so a worker
 * that crashed after sending a batch and sends it again after restarting appends nothing twice —
 * the sequencer answers a re-sent eventId with its original seq.
 *
 * <p>The id is a name-based UUID, version 3 (RFC 4122 §4.3: MD5 over the namespace's 16 bytes then
 * the name's UTF-8 bytes), in the namespace {@link #NAMESPACE}, of the name
 * {@code <sessionId>/<stepKey>/<index>}. Session ids never contain {@code /} and the index is the last
 * segment, so distinct (session, step, index) triples give distinct names. Any language can compute
 * the same ids, e.g. Python's {@code uuid.uuid3(NAMESPACE, f"{session}/{step}/{index}")}.
 *
 * <p>Choose step keys that name the work, not the attempt: {@code "turn-7"}, {@code "plan-2"},
 * {@code "call-42/result"} — never a timestamp or a random value. Stateless and thread-safe.
 */
public final class EventIds {

    /** The namespace of Tether's eventIds. Never changes: ids computed by older clients must match. */
    public static final UUID NAMESPACE = UUID.fromString("f1751fa4-a4aa-4442-957a-3b9dab6319a5");

    private EventIds() {}

    /**
     * The eventId of the {@code index}-th event (from 0) of step {@code stepKey} in {@code sessionId}.
     *
     * @throws IllegalArgumentException for a blank session id or step key, or a negative index
     */
    public static String of(String sessionId, String stepKey, int index) {
        Ids.requireText(sessionId, "sessionId");
        Ids.requireText(stepKey, "stepKey");
        if (sessionId.indexOf('/') >= 0) {
            throw new IllegalArgumentException("a session id never contains '/': " + sessionId);
        }
        if (index < 0) {
            throw new IllegalArgumentException("index must not be negative, not " + index);
        }
        return nameBased(NAMESPACE, sessionId + "/" + stepKey + "/" + index).toString();
    }

    /** A version-3 (MD5, name-based) UUID of {@code name} in {@code namespace}, as RFC 4122 §4.3 defines it. */
    public static UUID nameBased(UUID namespace, String name) {
        Objects.requireNonNull(namespace, "namespace");
        Objects.requireNonNull(name, "name");
        MessageDigest md5;
        try {
            md5 = MessageDigest.getInstance("MD5");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java platform has MD5", e);
        }
        md5.update(ByteBuffer.allocate(16).putLong(namespace.getMostSignificantBits()).putLong(namespace.getLeastSignificantBits()).array());
        byte[] hash = md5.digest(name.getBytes(StandardCharsets.UTF_8));
        hash[6] = (byte) ((hash[6] & 0x0f) | 0x30); // version 3
        hash[8] = (byte) ((hash[8] & 0x3f) | 0x80); // the RFC 4122 variant
        ByteBuffer bytes = ByteBuffer.wrap(hash);
        return new UUID(bytes.getLong(), bytes.getLong());
    }
}
