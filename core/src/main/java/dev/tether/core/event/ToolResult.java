package dev.tether.core.event;

import dev.tether.core.blob.BlobRef;

/** {@code tool_result}: The outcome of a tool call, reported once per call. */
public record ToolResult(String callId, String idempotencyKey, ToolStatus status, String content, BlobRef artifact) implements EventPayload {

    public static final String TYPE = "tool_result";

    public ToolResult {
        Fields.nonBlank(callId, "callId");
        idempotencyKey = idempotencyKey == null ? "" : idempotencyKey;
        Fields.required(status, "status");
        content = content == null ? "" : content;
    }

    @Override
    public String type() {
        return TYPE;
    }
}
