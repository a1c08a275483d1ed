package dev.tether.core.event;

/**
 * {@code tool_outcome_resolved}: An approver decided what became of a call whose {@code tool_result} was
 * {@link ToolStatus#UNKNOWN}: mark it done, retry it, or abandon it. Only an approver writes it (through the
 * approval-service), for itself.
 */
public record ToolOutcomeResolved(String callId, OutcomeResolution resolution, String approver, String reason) implements EventPayload {

    public static final String TYPE = "tool_outcome_resolved";

    public ToolOutcomeResolved {
        Fields.nonBlank(callId, "callId");
        Fields.required(resolution, "resolution");
        Fields.nonBlank(approver, "approver");
        reason = reason == null ? "" : reason;
    }

    @Override
    public String type() {
        return TYPE;
    }
}
