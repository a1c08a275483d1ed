package dev.tether.core.event;

import dev.tether.core.blob.BlobRef;
import java.util.List;

/** {@code assistant_message}: A model turn: its text, the tool calls it asked for, and the tokens it used. */
public record AssistantMessage(String content, BlobRef contentRef, List<ToolCall> toolCalls, TokenUsage usage) implements EventPayload {

    public static final String TYPE = "assistant_message";

    public AssistantMessage {
        Fields.text(content, "content");
        toolCalls = Fields.list(toolCalls, "toolCalls");
        usage = usage == null ? TokenUsage.NONE : usage;
        var ids = new java.util.HashSet<String>();
        for (int i = 0; i < toolCalls.size(); i++) {
            if (!ids.add(toolCalls.get(i).callId())) {
                throw new InvalidEventException("toolCalls[" + i + "].callId", "appears twice in the same message");
            }
        }
    }

    @Override
    public String type() {
        return TYPE;
    }
}
