package dev.tether.projector.context;

import dev.tether.core.blob.BlobRef;

/**
 * The text a model sees of an event's content. Content offloaded to the blob store is shown as the
 * preview the event carries, followed by a marker naming the full content:
 * {@code [full content: blob://sha256/<sha256>, <size> bytes]}. The marker is made of the blob's
 * content address and size only, so it is as stable as the content itself. Pure and thread-safe.
 */
final class ContentText {

    private ContentText() {}

    /**
     * The content as the model sees it.
     *
     * @param content the inline content, or the preview when {@code ref} is set
     * @param ref     where the full content is, or null when {@code content} is all of it
     */
    static String of(String content, BlobRef ref) {
        if (ref == null) {
            return content;
        }
        return joinLines(content, "[full content: " + ref.uri() + ", " + ref.size() + " bytes]");
    }

    /**
     * The text of a turn that was cut short: its partial text, then {@code [interrupted: <reason>]}, or
     * {@code [interrupted]} without a reason.
     */
    static String interrupted(String partialText, String reason) {
        return joinLines(partialText, reason.isBlank() ? "[interrupted]" : "[interrupted: " + reason + "]");
    }

    /** {@code first} and {@code second} on separate lines, or the other one alone when one is empty. */
    static String joinLines(String first, String second) {
        if (first.isEmpty()) {
            return second;
        }
        return second.isEmpty() ? first : first + "\n" + second;
    }
}
