package dev.tether.client;

/**
 * A tool call an assistant message asks for.
 *
 * @param callId        the call's id, unique in the session (the model's, e.g. {@code call_abc}), never blank
 * @param tool          the tool's name, e.g. {@code read_file}, never blank
 * @param argumentsJson its arguments as a JSON object's text, e.g. {@code {"path":"src/Foo.java"}}
 */
public record ToolCall(String callId, String tool, String argumentsJson) {

    public ToolCall {
        Ids.requireText(callId, "callId");
        Ids.requireText(tool, "tool");
        argumentsJson = argumentsJson == null ? "{}" : argumentsJson;
    }
}
