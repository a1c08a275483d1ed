package dev.tether.core.event;

/**
 * Whether a Java string is well-formed UTF-16: no half of a surrogate pair on its own. JSON lets a client send one
 * ({@code "\ud83d"}); it has no UTF-8 form (it would be stored as {@code ?}), and a text holding one can match half of a
 * character elsewhere. Stateless.
 */
public final class WellFormedText {

    private WellFormedText() {}

    /** True when every surrogate in {@code text} is half of a pair, high then low. */
    public static boolean isWellFormed(String text) {
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (Character.isHighSurrogate(c) && i + 1 < text.length() && Character.isLowSurrogate(text.charAt(i + 1))) {
                i++;
            } else if (Character.isSurrogate(c)) {
                return false;
            }
        }
        return true;
    }
}
