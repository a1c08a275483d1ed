package dev.tether.core.blob;

import static java.nio.charset.StandardCharsets.UTF_8;

import java.util.Objects;

/**
 * Keeps events small: text whose UTF-8 encoding is larger than a threshold goes to a
 * {@link BlobStore}, and the event carries a preview of it and its {@link BlobRef} instead.
 *
 * <p>The preview is a pure prefix of the text, with no ellipsis or other marker appended: the
 * first {@code previewChars} chars, one fewer where the cut would split a surrogate pair. Whether
 * text was cut is told by {@link Offloaded#offloaded()}, not by the text. Text with an unpaired
 * surrogate is stored as its UTF-8 encoding, in which that surrogate becomes {@code ?}.
 *
 * <p>Thread-safe if its store is.
 */
public final class BlobOffloader {

    /** Text larger than this, in UTF-8 bytes, is offloaded by default: 64 KiB. */
    public static final int DEFAULT_THRESHOLD_BYTES = 64 * 1024;

    /** The default length of a preview, in chars. */
    public static final int DEFAULT_PREVIEW_CHARS = 512;

    /** The smallest threshold accepted: 1 KiB. */
    public static final int MIN_THRESHOLD_BYTES = 1024;

    private final BlobStore store;
    private final int thresholdBytes;
    private final int previewChars;

    /** An offloader with the default threshold and preview length. */
    public BlobOffloader(BlobStore store) {
        this(store, DEFAULT_THRESHOLD_BYTES, DEFAULT_PREVIEW_CHARS);
    }

    /**
     * @param store          where offloaded text goes, never null
     * @param thresholdBytes the largest UTF-8 size kept inline, at least {@value #MIN_THRESHOLD_BYTES}
     * @param previewChars   the preview's length in chars, from 0 to {@code thresholdBytes}
     */
    public BlobOffloader(BlobStore store, int thresholdBytes, int previewChars) {
        this.store = Objects.requireNonNull(store, "store");
        if (thresholdBytes < MIN_THRESHOLD_BYTES) {
            throw new IllegalArgumentException(
                    "threshold must be at least " + MIN_THRESHOLD_BYTES + " bytes, got " + thresholdBytes);
        }
        if (previewChars < 0 || previewChars > thresholdBytes) {
            throw new IllegalArgumentException(
                    "preview must be 0 to " + thresholdBytes + " chars (the threshold), got " + previewChars);
        }
        this.thresholdBytes = thresholdBytes;
        this.previewChars = previewChars;
    }

    /**
     * Offloads {@code text} if its UTF-8 encoding is larger than the threshold.
     *
     * @param tenantId whose blob it becomes, never null
     * @param text     the content, never null
     * @return the text itself and no ref, if it is at most the threshold; otherwise its preview and
     *     the ref of the stored text, whose {@link BlobRef#preview()} is the same preview
     */
    public Offloaded offload(String tenantId, String text) {
        Objects.requireNonNull(tenantId, "tenantId");
        Objects.requireNonNull(text, "text");
        byte[] utf8 = text.getBytes(UTF_8);
        if (utf8.length <= thresholdBytes) {
            return new Offloaded(text, null);
        }
        String preview = preview(text);
        return new Offloaded(preview, store.put(tenantId, utf8).withPreview(preview));
    }

    private String preview(String text) {
        int end = Math.min(previewChars, text.length());
        if (end > 0 && end < text.length() && Character.isSurrogatePair(text.charAt(end - 1), text.charAt(end))) {
            end--;
        }
        return text.substring(0, end);
    }

    /**
     * The result of {@link #offload}: what the event carries.
     *
     * @param text the text itself, or its preview when offloaded; never null
     * @param ref  the stored text, or null when it stayed inline
     */
    public record Offloaded(String text, BlobRef ref) {

        public Offloaded {
            Objects.requireNonNull(text, "text");
        }

        /** Whether the text was stored as a blob, so {@link #text()} is only its preview. */
        public boolean offloaded() {
            return ref != null;
        }
    }
}
