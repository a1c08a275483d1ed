package dev.tether.tools;

import dev.tether.core.blob.BlobRef;
import java.util.Objects;

/**
 * The result of a call, ready for a {@code tool_result}: made by {@link ToolContext#output}, which redacts and
 * offloads the content.
 *
 * @param status     how the call ended, never null
 * @param content    what the model sees, redacted; the preview of the artifact when the content was offloaded;
 *                   never null
 * @param artifact   the full content, when it was too large to inline; else null
 * @param beforeHash for a file tool, the SHA-256 (lower-case hex) of the file before, {@code ""} if absent; else null
 * @param afterHash  for a file tool, the SHA-256 of the file after; else null
 */
public record ToolOutput(Status status, String content, BlobRef artifact, String beforeHash, String afterHash) {

    /** How a call ended. */
    public enum Status {
        /** It did its work. */
        OK,
        /** It ran and failed: a non-zero exit, a timeout, an HTTP error status; the content says how. */
        ERROR,
        /** Cancelled while running; its effect may be partial. */
        CANCELLED
    }

    public ToolOutput {
        Objects.requireNonNull(status, "status");
        Objects.requireNonNull(content, "content");
    }
}
