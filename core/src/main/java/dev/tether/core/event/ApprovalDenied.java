package dev.tether.core.event;

/**
 * {@code approval_denied}: An approver refused a gated call, or the approval-service did, in its own name, because no
 * approver decided in time.
 *
 * @param expired true for the approval-service's expiry of an approval nobody decided in time, false for an approver's
 *                denial; null only in an event written before the field existed (schema v2 and older), which says
 *                neither: a reader that must tell them apart falls back to what it knew then (the approval-service
 *                recognises its expiry by the eventId it derives for it). Only the approval-service's expiry sets it
 *                to true: a client cannot send it, and the sequencer refuses it from anyone but a service.
 */
public record ApprovalDenied(String callId, ApprovalScope scope, String tool, String pathGlob, String approver, String reason,
                             Boolean expired) implements EventPayload {

    public static final String TYPE = "approval_denied";

    public ApprovalDenied {
        Fields.nonBlank(callId, "callId");
        Fields.required(scope, "scope");
        Fields.nonBlank(approver, "approver");
        reason = reason == null ? "" : reason;
    }

    /** An approver's denial. */
    public static ApprovalDenied byApprover(String callId, ApprovalScope scope, String tool, String pathGlob, String approver,
                                            String reason) {
        return new ApprovalDenied(callId, scope, tool, pathGlob, approver, reason, false);
    }

    /** The denial of an approval nobody decided in time, in the name of {@code service}, which expired it. */
    public static ApprovalDenied expiry(String callId, String service, String reason) {
        return new ApprovalDenied(callId, ApprovalScope.ONCE, null, null, service, reason, true);
    }

    @Override
    public String type() {
        return TYPE;
    }
}
