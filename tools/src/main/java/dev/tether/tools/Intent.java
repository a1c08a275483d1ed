package dev.tether.tools;

/**
 * What a call is going to change, as {@link Tool#intent} computes it before the call runs.
 *
 * @param beforeHash        for a file tool, the SHA-256 (lower-case hex) of the file now, {@code ""} if it does not
 *                          exist; null for other tools
 * @param expectedAfterHash for a file tool, the SHA-256 the file will have after the call; null for other tools
 */
public record Intent(String beforeHash, String expectedAfterHash) {

    /** No checkable effect. */
    public static final Intent NONE = new Intent(null, null);
}
