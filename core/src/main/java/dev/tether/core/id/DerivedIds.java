package dev.tether.core.id;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Objects;
import java.util.UUID;

/**
 * Event (and command) ids derived from what caused them, so that the same cause sent again is the same id and the
 * sequencer, which answers a re-sent eventId with its original seq, appends nothing twice. Every derived id in Tether is
 * computed here.
 *
 * <p>One scheme: a name-based UUID, version 3 (RFC 4122 §4.3, MD5), of a name made of the cause's parts. Three shapes of
 * name are in use, each kept exactly as it is because ids already in logs are compared with freshly derived ones:
 *
 * <ul>
 *   <li>{@link #of(String, String) of(basis, type)}: {@code <basis>/<type>}, no namespace ({@link UUID#nameUUIDFromBytes}).
 *       The shape for an event a service writes on behalf of one cause: the sequencer's claim, resume, migrate and
 *       sub-agent events and the commands it sends on, the executor's {@code tool_result}. The type is a wire name
 *       (no {@code /}) and comes last, so distinct (basis, type) pairs give distinct names. Kept because the sequencer
 *       recognizes a retried command by it and the executor re-reports an ended call under it.
 *   <li>{@link #ofParts(String...) ofParts(parts…)}: the parts joined by NUL, no namespace. For a cause of several
 *       parts of free text (an approver's reason, a path glob), where a {@code /} could make two causes alike (ids
 *       and path globs never hold a NUL; only the last part, the reason, might). The approval-service's ids. Kept because its expiry denials already in logs are
 *       recognized by their id ({@code ApprovalMachine.expiredId}), and a decision retried across an upgrade must stay
 *       the same event.
 *   <li>{@link #ofClient(String...) ofClient(parts…)}: the parts joined by {@code /}, in the namespace
 *       {@link #CLIENT_NAMESPACE}. The ids agent clients derive (the SDK's {@code EventIds}): a public, cross-language
 *       contract (Python: {@code uuid.uuid3(NAMESPACE, "/".join(parts))}), so it never changes.
 * </ul>
 *
 * <p>A new id takes {@link #of(String, String)} if its cause is one value and its type, else {@link #ofParts}. Stateless
 * and thread-safe.
 */
public final class DerivedIds {

    /** The namespace of the ids clients derive. Never changes: ids computed by older clients must match. */
    public static final UUID CLIENT_NAMESPACE = UUID.fromString("f1751fa4-a4aa-4442-957a-3b9dab6319a5");

    private static final String PART_SEPARATOR = "\u0000";

    private DerivedIds() {}

    /**
     * The id of the event of wire type {@code type} that {@code basis} caused: the v3 UUID of {@code <basis>/<type>}.
     *
     * @param basis what caused it (a command id, an idempotency key, a session id); not null
     * @param type  the event's wire type, or another fixed word naming what is derived ({@code "command"}); not null
     */
    public static String of(String basis, String type) {
        return nameBased(basis + "/" + type).toString();
    }

    /** The id of a cause of several parts: the v3 UUID of the parts joined by NUL. No part may be null. */
    public static String ofParts(String... parts) {
        return nameBased(String.join(PART_SEPARATOR, parts)).toString();
    }

    /** A client's id: the v3 UUID, in {@link #CLIENT_NAMESPACE}, of the parts joined by {@code /}. No part may be null. */
    public static String ofClient(String... parts) {
        return nameBased(CLIENT_NAMESPACE, String.join("/", parts)).toString();
    }

    /**
     * The version-3 UUID of {@code name} in {@code namespace}, as RFC 4122 §4.3 defines it: MD5 over the namespace's 16
     * bytes then the name's UTF-8 bytes.
     */
    public static UUID nameBased(UUID namespace, String name) {
        Objects.requireNonNull(namespace, "namespace");
        Objects.requireNonNull(name, "name");
        byte[] prefix = ByteBuffer.allocate(16).putLong(namespace.getMostSignificantBits())
                .putLong(namespace.getLeastSignificantBits()).array();
        return v3(prefix, name);
    }

    /** The version-3 UUID of {@code name}'s UTF-8 with no namespace: what {@link UUID#nameUUIDFromBytes} gives. */
    static UUID nameBased(String name) {
        return v3(new byte[0], name);
    }

    private static UUID v3(byte[] namespace, String name) {
        MessageDigest md5;
        try {
            md5 = MessageDigest.getInstance("MD5");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java platform has MD5", e);
        }
        md5.update(namespace);
        byte[] hash = md5.digest(name.getBytes(StandardCharsets.UTF_8));
        hash[6] = (byte) ((hash[6] & 0x0f) | 0x30); // version 3
        hash[8] = (byte) ((hash[8] & 0x3f) | 0x80); // the RFC 4122 variant
        ByteBuffer bytes = ByteBuffer.wrap(hash);
        return new UUID(bytes.getLong(), bytes.getLong());
    }
}
