package dev.tether.core.id;

import java.util.regex.Pattern;

/**
 * The ids a client chooses (session ids, eventIds, worker ids): 1-128 letters, digits, {@code .}, {@code _} or
 * {@code -}, starting with a letter or digit. So an id never holds NUL (store keys join parts with it), a {@code /} (an
 * idempotency key's separator) or a {@code ~} (a list cursor's). Stateless and thread-safe.
 */
public final class ClientIds {

    public static final Pattern PATTERN = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,127}");

    private ClientIds() {}

    /** Whether {@code id} is such an id; false for null. */
    public static boolean isValid(String id) {
        return id != null && PATTERN.matcher(id).matches();
    }
}
