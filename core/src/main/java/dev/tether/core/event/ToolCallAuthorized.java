package dev.tether.core.event;

/** {@code tool_call_authorized}: A tool call may run. Written only by the approval-service. */
public record ToolCallAuthorized(String callId, AuthorizationBasis basis) implements EventPayload {

    public static final String TYPE = "tool_call_authorized";

    public ToolCallAuthorized {
        Fields.nonBlank(callId, "callId");
        Fields.required(basis, "basis");
    }

    @Override
    public String type() {
        return TYPE;
    }
}
