package dev.tether.core.event;

import dev.tether.core.blob.BlobRef;

/**
 * {@code approval_requested}: A gated tool call waits for a human decision; {@code shown} is exactly what the approver
 * sees.
 *
 * @param shownSha256 the SHA-256 (lower-case hex) of what the tool worked out to show ({@code Tool.shown}), before
 *                    anything was scrubbed or offloaded from it: the grant of this call carries it
 *                    ({@link AuthorizationBasis#shownSha256}), and the executor runs the call only if the tool shows the
 *                    same right before it starts. Null where the approval-service could work nothing out (a harness-run
 *                    call, a preview that failed) and from an approval-service before it
 */
public record ApprovalRequested(String callId, String tool, String shown, BlobRef shownRef, String shownSha256)
        implements EventPayload {

    public static final String TYPE = "approval_requested";

    public ApprovalRequested {
        Fields.nonBlank(callId, "callId");
        Fields.nonBlank(tool, "tool");
        Fields.text(shown, "shown");
        if (shownSha256 != null && !BlobRef.isSha256(shownSha256)) {
            throw new InvalidEventException("shownSha256", "is 64 lower-case hexadecimal digits");
        }
    }

    /** A request without {@code shownSha256}. */
    public ApprovalRequested(String callId, String tool, String shown, BlobRef shownRef) {
        this(callId, tool, shown, shownRef, null);
    }

    /** This request with {@code shown} and {@code shownRef} replaced (offloaded), its hash kept. */
    public ApprovalRequested withShown(String shown, BlobRef shownRef) {
        return new ApprovalRequested(callId, tool, shown, shownRef, shownSha256);
    }

    @Override
    public String type() {
        return TYPE;
    }
}
