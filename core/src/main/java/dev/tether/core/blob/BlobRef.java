package dev.tether.core.blob;

import java.util.Objects;
import java.util.regex.Pattern;

/**
 * What an event carries in place of content too large to inline: where the bytes are, their
 * SHA-256, their size and a preview of their beginning. The {@code uri} names the content only,
 * not its tenant: the reader's authenticated tenant selects where it is looked up.
 *
 * @param uri     {@code blob://sha256/<sha256>} for refs made by {@link #of}, never null
 * @param sha256  the SHA-256 of the content, 64 lower-case hex digits
 * @param size    the content's size in bytes, {@code >= 0}
 * @param preview the beginning of the content as text, possibly empty, never null
 */
public record BlobRef(String uri, String sha256, long size, String preview) {

    /** The prefix of the uri of every ref made by {@link #of}; the sha256 follows it. */
    public static final String URI_PREFIX = "blob://sha256/";

    private static final Pattern SHA256 = Pattern.compile("[0-9a-f]{64}");

    public BlobRef {
        Objects.requireNonNull(uri, "uri");
        Objects.requireNonNull(sha256, "sha256");
        Objects.requireNonNull(preview, "preview");
        if (!isSha256(sha256)) {
            throw new IllegalArgumentException("sha256 must be 64 lower-case hex digits, got " + sha256);
        }
        if (size < 0) {
            throw new IllegalArgumentException("size must be >= 0, got " + size);
        }
    }

    /** A ref with the canonical uri {@code blob://sha256/<sha256>}. */
    public static BlobRef of(String sha256, long size, String preview) {
        return new BlobRef(URI_PREFIX + sha256, sha256, size, preview);
    }

    /** Whether {@code s} is a SHA-256 as refs spell it: exactly 64 lower-case hex digits; false for null. */
    public static boolean isSha256(String s) {
        return s != null && SHA256.matcher(s).matches();
    }

    /** This ref with another preview. */
    public BlobRef withPreview(String preview) {
        return new BlobRef(uri, sha256, size, preview);
    }
}
