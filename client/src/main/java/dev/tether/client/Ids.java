package dev.tether.client;

import java.util.Objects;
import java.util.regex.Pattern;

/** The rule for ids clients choose (session ids, versions, request ids): what the services accept, checked before a call. */
final class Ids {

    /** Letters, digits, {@code . _ -}, starting with a letter or digit, up to 128. */
    static final Pattern ID = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,127}");

    private Ids() {}

    static String require(String value, String name) {
        Objects.requireNonNull(value, name);
        if (!ID.matcher(value).matches()) {
            throw new IllegalArgumentException(name + " must be 1-128 letters, digits, '.', '_' or '-', starting with a letter or digit: "
                    + value);
        }
        return value;
    }

    static String requireText(String value, String name) {
        Objects.requireNonNull(value, name);
        if (value.isBlank()) {
            throw new IllegalArgumentException(name + " must not be blank");
        }
        return value;
    }
}
