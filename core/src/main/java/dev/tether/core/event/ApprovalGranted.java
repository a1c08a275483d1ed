package dev.tether.core.event;

/** {@code approval_granted}: An approver allowed a gated call (and, with scope SESSION, later matching calls). */
public record ApprovalGranted(String callId, ApprovalScope scope, String tool, String pathGlob, String approver, String reason) implements EventPayload {

    public static final String TYPE = "approval_granted";

    public ApprovalGranted {
        Fields.nonBlank(callId, "callId");
        Fields.required(scope, "scope");
        Fields.nonBlank(approver, "approver");
        reason = reason == null ? "" : reason;
    }

    @Override
    public String type() {
        return TYPE;
    }
}
