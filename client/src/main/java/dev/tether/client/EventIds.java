package dev.tether.client;

import dev.tether.core.id.DerivedIds;
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
 *
 * <p>Computed by Tether's one derivation of ids, {@link DerivedIds#ofClient}.
 */
public final class EventIds {

    /** The namespace of Tether's eventIds. Never changes: ids computed by older clients must match. */
    public static final UUID NAMESPACE = DerivedIds.CLIENT_NAMESPACE;

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
        return DerivedIds.ofClient(sessionId, stepKey, Integer.toString(index));
    }

    /** A version-3 (MD5, name-based) UUID of {@code name} in {@code namespace}, as RFC 4122 §4.3 defines it. */
    public static UUID nameBased(UUID namespace, String name) {
        return DerivedIds.nameBased(namespace, name);
    }
}
