package dev.tether.core.event;

/** One tool call a model asked for. */
public record ToolCall(String callId, String tool, String argumentsJson) {
    public ToolCall {
        Fields.nonBlank(callId, "callId");
        Fields.nonBlank(tool, "tool");
        argumentsJson = argumentsJson == null ? "{}" : argumentsJson;
    }
}
