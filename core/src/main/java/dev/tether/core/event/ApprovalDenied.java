package dev.tether.core.event;

/** {@code approval_denied}: An approver refused a gated call. */
public record ApprovalDenied(String callId, ApprovalScope scope, String tool, String pathGlob, String approver, String reason) implements EventPayload {

    public static final String TYPE = "approval_denied";

    public ApprovalDenied {
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
