package dev.tether.projector.context;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tether.core.event.ToolResult;
import dev.tether.core.event.ToolStatus;
import java.util.LinkedHashMap;

/**
 * The text a model sees as the result of a tool call. Pure and thread-safe.
 *
 * <ul>
 *   <li>{@code OK}: the content (with the marker of {@link ContentText} when offloaded), or {@value #NO_OUTPUT} when
 *       it is empty or only whitespace (a command that printed nothing): Anthropic refuses a {@code tool_result} whose
 *       content is empty as one missing, and a text that is only whitespace;
 *   <li>{@code ERROR} and {@code UNKNOWN}: {@code {"error":<content>,"status":"ERROR"}} or
 *       {@code {"error":<content>,"status":"UNKNOWN"}}, the content as a JSON string;
 *   <li>{@code CANCELLED}, and every call that has no result: {@value #CANCELLED}, whatever the
 *       result's content, so that a real cancellation renders byte for byte as the stand-in one.
 * </ul>
 */
final class ToolResultText {

    /** The result of a call that was cancelled or never answered. */
    static final String CANCELLED = "{\"error\":\"cancelled_by_user\"}";

    /** The result of a call that succeeded with no output. */
    static final String NO_OUTPUT = "(no output)";

    private static final ObjectMapper JSON = new ObjectMapper();

    private ToolResultText() {}

    /** The text of {@code result}. */
    static String of(ToolResult result) {
        String content = ContentText.of(result.content(), result.artifact());
        return switch (result.status()) {
            case OK -> content.isBlank() ? NO_OUTPUT : content;
            case ERROR, UNKNOWN -> failure(content, result.status());
            case CANCELLED -> CANCELLED;
        };
    }

    /** Whether the model is to treat {@code result} as a failure (Anthropic's {@code is_error}). */
    static boolean isError(ToolResult result) {
        return result.status() != ToolStatus.OK;
    }

    private static String failure(String content, ToolStatus status) {
        var object = new LinkedHashMap<String, String>();
        object.put("error", content);
        object.put("status", status.name());
        try {
            return JSON.writeValueAsString(object);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("a map of strings always serializes", e);
        }
    }
}
