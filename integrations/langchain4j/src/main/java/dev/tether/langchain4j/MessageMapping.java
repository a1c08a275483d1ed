package dev.tether.langchain4j;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.ChatMessageDeserializer;
import dev.langchain4j.data.message.ChatMessageSerializer;
import dev.langchain4j.data.message.Content;
import dev.langchain4j.data.message.SystemMessage;
import dev.langchain4j.data.message.TextContent;
import dev.langchain4j.data.message.ToolExecutionResultMessage;
import dev.langchain4j.data.message.UserMessage;
import dev.tether.langchain4j.MemoryRecords.Ref;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * How LangChain4j's messages and Tether's typed events map onto each other. A message goes into the log once, as the
 * typed event that fits it — a {@link UserMessage} as {@code user_message}, an {@link AiMessage} as
 * {@code assistant_message} with its tool execution requests as Tether's tool calls, a
 * {@link ToolExecutionResultMessage} as its call's {@code tool_result}, the session's first {@link SystemMessage} as
 * the system prompt of {@code session_started} (of {@code session_forked} in a fork) — and each typed event has a
 * default message ({@link #fromEvent}). A reference to the event keeps what the default does not say of the message
 * (its residual, {@link #refTo}), so {@link #restore} gives back exactly the message LangChain4j wrote. Messages are
 * (de)serialized with LangChain4j's own {@link ChatMessageSerializer} and {@link ChatMessageDeserializer}.
 */
final class MessageMapping {

    static final ObjectMapper JSON = new ObjectMapper();

    private MessageMapping() {}

    /**
     * The text a typed event holds of {@code message}: a system message's, a user message's single text (its text
     * contents joined by a line break when it has others), an AI message's (empty when it has none), a tool result's.
     */
    static String textOf(ChatMessage message) {
        if (message instanceof SystemMessage s) {
            return s.text();
        } else if (message instanceof UserMessage u) {
            return u.hasSingleText() ? u.singleText() : texts(u.contents());
        } else if (message instanceof AiMessage a) {
            return a.text() == null ? "" : a.text();
        } else if (message instanceof ToolExecutionResultMessage t) {
            return t.hasSingleText() ? t.text() : texts(t.contents());
        }
        return "";
    }

    private static String texts(List<Content> contents) {
        return contents.stream().filter(c -> c instanceof TextContent).map(c -> ((TextContent) c).text()).collect(Collectors.joining("\n"));
    }

    /**
     * The message a typed event stands for by default, or null for a type that stands for none by itself
     * ({@code context_compacted}: a summary's class is in its reference).
     *
     * @param type   the event's type
     * @param fields its payload fields
     * @param text   its whole text (content, summary or system prompt; read from its artifact when it was offloaded)
     * @param toolOf the tool of a call, by its id (a tool result message names its tool)
     */
    static ChatMessage fromEvent(String type, JsonNode fields, String text, Function<String, String> toolOf) {
        switch (type) {
            case "user_message":
                return UserMessage.from(text);
            case "assistant_message": {
                var requests = new ArrayList<ToolExecutionRequest>();
                for (JsonNode call : fields.path("toolCalls")) {
                    requests.add(ToolExecutionRequest.builder().id(call.path("callId").asText()).name(call.path("tool").asText())
                            .arguments(call.path("argumentsJson").asText()).build());
                }
                return requests.isEmpty() ? AiMessage.from(text)
                        : AiMessage.builder().text(text.isEmpty() ? null : text).toolExecutionRequests(requests).build();
            }
            case "tool_result": {
                String callId = fields.path("callId").asText();
                return ToolExecutionResultMessage.builder().id(callId).toolName(toolOf.apply(callId)).text(text)
                        .isError(!"OK".equals(fields.path("status").asText())).build();
            }
            case "session_started", "session_forked": // a fork's first event carries its system prompt too
                return SystemMessage.from(text);
            default:
                return null;
        }
    }

    /**
     * A reference to the event at {@code seq} (of {@code type}, with {@code fields} and whole text {@code text}) as
     * holding {@code message}: just the seq when the event's default message is it, else with the message's residual.
     */
    static Ref refTo(long seq, ChatMessage message, String type, JsonNode fields, String text, Function<String, String> toolOf) {
        ChatMessage standard = fromEvent(type, fields, text, toolOf);
        if (message.equals(standard)) {
            return Ref.to(seq);
        }
        ObjectNode json = toJson(message);
        ObjectNode slot = textSlot(json);
        if (slot != null && slot.path("text").isTextual() && slot.get("text").asText().equals(text)) {
            slot.remove("text");
            return new Ref(seq, json, true);
        }
        return new Ref(seq, json, false);
    }

    /** The message {@code ref} stands for, given its event (of {@code type}, with {@code fields} and whole text {@code text}). */
    static ChatMessage restore(Ref ref, String type, JsonNode fields, String text, Function<String, String> toolOf) {
        if (ref.residual() == null) {
            ChatMessage standard = fromEvent(type, fields, text, toolOf);
            if (standard == null) {
                throw new TetherMemoryException("the reference to event " + ref.seq() + " (" + type + ") has no residual to say what message it is");
            }
            return standard;
        }
        ObjectNode json = ref.residual().deepCopy();
        if (ref.textFromEvent()) {
            ObjectNode slot = textSlot(json);
            if (slot == null) {
                throw new TetherMemoryException("the residual of the reference to event " + ref.seq() + " has no place for its text");
            }
            slot.put("text", text);
        }
        return fromJson(json);
    }

    /**
     * Where a message's JSON holds its text: the object itself (a system or AI message), or its one content when that is
     * a text (a user or tool result message); null for none.
     */
    private static ObjectNode textSlot(ObjectNode json) {
        String type = json.path("type").asText();
        if (type.equals("SYSTEM") || type.equals("AI")) {
            return json;
        }
        if ((type.equals("USER") || type.equals("TOOL_EXECUTION_RESULT")) && json.path("contents").size() == 1
                && json.path("contents").get(0).path("type").asText().equals("TEXT")) {
            return (ObjectNode) json.get("contents").get(0);
        }
        return null;
    }

    static ObjectNode toJson(ChatMessage message) {
        try {
            return (ObjectNode) JSON.readTree(ChatMessageSerializer.messageToJson(message));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("LangChain4j serialized a message to JSON that does not parse", e);
        }
    }

    static ChatMessage fromJson(JsonNode json) {
        try {
            return ChatMessageDeserializer.messageFromJson(JSON.writeValueAsString(json));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        } catch (RuntimeException e) {
            throw new TetherMemoryException("a stored message does not read back as a LangChain4j message: " + e.getMessage(), e);
        }
    }
}
