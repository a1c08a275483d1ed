package dev.tether.core.id;

import java.util.List;

/**
 * Composite string keys of the services' state stores: the parts joined by NUL (U+0000), e.g.
 * {@code sessionId NUL callId}. Serialized as UTF-8 (a {@code StringSerializer}), NUL is the byte {@code 0x00}, below
 * every other, so in the stores' byte order:
 *
 * <ul>
 *   <li>the keys that start with the same parts are one contiguous run that starts at {@link #prefix}: a prefix scan
 *       of {@code prefix(sessionId)} finds exactly that session's keys, never those of a session whose id merely
 *       starts with the same characters ({@code s1} vs {@code s10});
 *   <li>keys with equal leading parts sort by the next part, and {@link #sortable} numbers sort numerically.
 * </ul>
 *
 * <p>Every part but the last must not contain NUL (Tether's ids never do; the last part may hold anything). The bytes
 * are what stores restored from changelogs hold, so they never change. Stateless and thread-safe.
 */
public final class StoreKey {

    /** Separates the parts of a key. */
    public static final char SEPARATOR = '\u0000';

    private static final String SEPARATOR_TEXT = String.valueOf(SEPARATOR);

    private StoreKey() {}

    /** The key of {@code parts}, joined by {@link #SEPARATOR}; no part may be null. */
    public static String of(String... parts) {
        return String.join(SEPARATOR_TEXT, parts);
    }

    /** The prefix every key whose leading parts are {@code parts} starts with: each part followed by the separator. */
    public static String prefix(String... parts) {
        return of(parts) + SEPARATOR;
    }

    /** The parts of {@code key}, as {@link #of} joined them (empty parts included). */
    public static List<String> parts(String key) {
        return List.of(key.split(SEPARATOR_TEXT, -1));
    }

    /**
     * {@code n} as a key part that sorts as numbers do: zero-padded to 19 digits, the length of {@link Long#MAX_VALUE}.
     *
     * @param n a number, {@code >= 0} for the order to hold
     */
    public static String sortable(long n) {
        return String.format("%019d", n);
    }
}
