package dev.tether.approval.domain;

import dev.tether.core.blob.BlobRef;
import java.util.Objects;

/**
 * What the approval-service learned about one tool call before asking a human about it.
 *
 * @param shown    exactly what an approver is shown: the command line, the unified diff, the URL; or the call as
 *                 written and why no preview could be made. Its preview when {@code shownRef} is set
 * @param shownRef the full text in the blob store when it is too large for an event; null otherwise
 * @param target   the path the call acts on, for matching session-scope grants
 * @param shownSha256 the SHA-256 of what the tool worked out to show ({@code Tool.shownSha256}), before it was offloaded;
 *                 null when the call is shown as written (no tool's preview), which nothing can work out again
 */
public record Inspection(String shown, BlobRef shownRef, CallTarget target, String shownSha256) {

    public Inspection {
        Objects.requireNonNull(shown, "shown");
        Objects.requireNonNull(target, "target");
    }
}
