package dev.tether.core.event;

import dev.tether.core.blob.BlobRef;

/** {@code approval_requested}: A gated tool call waits for a human decision; {@code shown} is exactly what the approver sees. */
public record ApprovalRequested(String callId, String tool, String shown, BlobRef shownRef) implements EventPayload {

    public static final String TYPE = "approval_requested";

    public ApprovalRequested {
        Fields.nonBlank(callId, "callId");
        Fields.nonBlank(tool, "tool");
        Fields.text(shown, "shown");
    }

    @Override
    public String type() {
        return TYPE;
    }
}
