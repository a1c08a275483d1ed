package dev.tether.langchain4j;

import static org.assertj.core.api.Assertions.assertThat;

import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.AudioContent;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.ChatMessageType;
import dev.langchain4j.data.message.CustomMessage;
import dev.langchain4j.data.message.ImageContent;
import dev.langchain4j.data.message.PdfFileContent;
import dev.langchain4j.data.message.SystemMessage;
import dev.langchain4j.data.message.TextContent;
import dev.langchain4j.data.message.ToolExecutionResultMessage;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.data.message.VideoContent;
import dev.tether.client.SessionEvent;
import dev.tether.langchain4j.MemoryRecords.Ref;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The message mapping: every {@link ChatMessage} type LangChain4j 1.19 has, in the shapes its AI Services and models
 * write, goes into the log as the typed event that fits it (or whole, as a record) and comes back equal — from the same
 * store, and from a fresh store that reads the log alone.
 */
class MessageMappingTest {

    private static final String SECRET_FREE = "no secrets here";

    /** One of each type and shape, in an order a conversation could have. */
    static List<ChatMessage> everyKind() {
        return List.of(
                SystemMessage.from("You are a careful assistant."),
                UserMessage.from("Refund order A-17."),
                UserMessage.from("bob", "I am Bob."),
                UserMessage.builder().contents(List.of(TextContent.from("What is on this receipt?"), ImageContent.from("https://example.com/r.png"),
                        AudioContent.from("https://example.com/a.mp3"), VideoContent.from("https://example.com/v.mp4"),
                        PdfFileContent.from("https://example.com/r.pdf"))).build(),
                UserMessage.builder().contents(List.of(TextContent.from("with attributes"))).attributes(Map.of("channel", "web")).build(),
                AiMessage.from("Looking it up."),
                AiMessage.from(ToolExecutionRequest.builder().id("call-1").name("search").arguments("{\"q\":\"A-17\"}").build()),
                ToolExecutionResultMessage.builder().id("call-1").toolName("search").text("order A-17: 42 EUR").isError(false)
                        .attributes(Map.of()).build(),
                AiMessage.builder().text("Two at once.").thinking("both are independent").attributes(Map.of("provider", "x"))
                        .toolExecutionRequests(List.of(
                                ToolExecutionRequest.builder().id("call-2").name("search").arguments("{\"q\":\"B-9\"}").build(),
                                ToolExecutionRequest.builder().id("call-3").name("search").build()))
                        .build(),
                ToolExecutionResultMessage.builder().id("call-2").toolName("search").text("no such order").isError(true).build(),
                ToolExecutionResultMessage.from("call-3", "search", "null arguments read as none"),
                ToolExecutionResultMessage.builder().id("call-9").toolName("search").text("a result of a call nobody asked for").build(),
                AiMessage.from(ToolExecutionRequest.builder().name("search").arguments("{}").build()),
                AiMessage.from(""),
                SystemMessage.from("A second system message, later."),
                CustomMessage.from(Map.of("kind", "note", "count", 3)),
                ToolExecutionResultMessage.builder().id("call-1").toolName("search").contents(List.of(TextContent.from("text"),
                        ImageContent.from("https://example.com/chart.png"))).isError(false).attributes(Map.of("k", "v")).build(),
                UserMessage.from(SECRET_FREE));
    }

    @Test
    void everyMessageTypeOfLangChain4j_isAmongTheCases() {
        Set<ChatMessageType> covered = everyKind().stream().map(ChatMessage::type).collect(Collectors.toSet());
        assertThat(covered).containsExactlyInAnyOrderElementsOf(Arrays.asList(ChatMessageType.values()));
    }

    @Test
    void everyKindOfMessage_roundTripsEqual_fromTheStoreThatWroteIt_andFromTheLogAlone() {
        var tether = new FakeTether();
        TetherChatMemoryStore store = TetherChatMemoryStore.builder(tether).build();
        List<ChatMessage> written = new ArrayList<>();
        for (ChatMessage message : everyKind()) {
            written.add(message);
            store.updateMessages("m1", written); // as a memory does: the whole list at every add
        }

        assertThat(store.getMessages("m1")).containsExactlyElementsOf(written);
        assertThat(TetherChatMemoryStore.builder(tether).build().getMessages("m1")).containsExactlyElementsOf(written);
    }

    @Test
    void eachMessageGoesIntoTheLogOnce_asTheTypedEventThatFitsIt_orWholeAsARecord() {
        var tether = new FakeTether();
        TetherChatMemoryStore store = TetherChatMemoryStore.builder(tether).build();
        List<ChatMessage> written = new ArrayList<>();
        for (ChatMessage message : everyKind()) {
            written.add(message);
            store.updateMessages("m1", written);
        }
        List<SessionEvent> log = tether.log(store.sessionIdOf("m1"));

        assertThat(log.get(0).type()).isEqualTo("session_started");
        assertThat(log.get(0).text("systemPrompt")).contains("You are a careful assistant.");
        List<String> typed = log.stream().filter(e -> !e.type().startsWith("session_") && !e.type().equals("framework_state"))
                .map(e -> e.type() + ":" + e.text("content").orElse("")).toList();
        assertThat(typed).containsExactly(
                "user_message:Refund order A-17.",
                "user_message:I am Bob.",
                "user_message:What is on this receipt?",
                "user_message:with attributes",
                "assistant_message:Looking it up.",
                "assistant_message:",
                "tool_result:order A-17: 42 EUR",
                "assistant_message:Two at once.",
                "tool_result:no such order",
                "tool_result:null arguments read as none",
                "assistant_message:",
                "user_message:" + SECRET_FREE);
        // the second result of call-1 (another message for a call answered already) refers to its result: no event of its own
        List<String> records = log.stream().filter(e -> e.type().equals("framework_state") && e.text("kind").equals(java.util.Optional.of("message")))
                .map(e -> e.text("key").orElseThrow()).toList();
        assertThat(records).containsExactly("TOOL_EXECUTION_RESULT", "AI", "SYSTEM", "CUSTOM");
        assertThat(log.stream().filter(e -> e.type().equals("framework_state") && e.text("kind").equals(java.util.Optional.of("memory"))))
                .hasSize(everyKind().size());
        SessionEvent twoCalls = log.stream().filter(e -> e.text("content").equals(java.util.Optional.of("Two at once."))).findFirst().orElseThrow();
        assertThat(twoCalls.field("toolCalls").orElseThrow().toString())
                .isEqualTo("[{\"callId\":\"call-2\",\"tool\":\"search\",\"argumentsJson\":\"{\\\"q\\\":\\\"B-9\\\"}\"},"
                        + "{\"callId\":\"call-3\",\"tool\":\"search\",\"argumentsJson\":\"{}\"}]");
        SessionEvent recorded = log.stream().filter(e -> e.type().equals("tool_result")).findFirst().orElseThrow();
        assertThat(recorded.text("idempotencyKey")).contains(store.sessionIdOf("m1") + "/" + (seqOf(log, "call-1")) + "/call-1");
        assertThat(recorded.text("status")).contains("OK");
        assertThat(log.stream().filter(e -> e.type().equals("tool_result")).map(e -> e.text("status").orElseThrow()))
                .containsExactly("OK", "ERROR", "OK");
    }

    @Test
    void aMessageTheEventsDefaultIs_isAReferenceAlone_andAnyOtherKeepsWhatTheEventDoesNotHold() {
        var fields = MessageMapping.JSON.createObjectNode().put("content", "hello");
        Ref plain = MessageMapping.refTo(5, UserMessage.from("hello"), "user_message", fields, "hello", id -> null);
        assertThat(plain.residual()).isNull();

        Ref named = MessageMapping.refTo(5, UserMessage.from("bob", "hello"), "user_message", fields, "hello", id -> null);
        assertThat(named.textFromEvent()).isTrue();
        assertThat(named.residual().toString()).doesNotContain("hello").contains("\"name\":\"bob\"");
        assertThat(MessageMapping.restore(named, "user_message", fields, "hello", id -> null)).isEqualTo(UserMessage.from("bob", "hello"));

        // the event's text was scrubbed: the residual keeps no text of its own, the message comes back as the log holds it
        Ref scrubbed = MessageMapping.refTo(5, UserMessage.from("bob", "hello"), "user_message", fields, "hello", id -> null);
        assertThat(MessageMapping.restore(scrubbed, "user_message", fields, "[REDACTED:x]", id -> null))
                .isEqualTo(UserMessage.from("bob", "[REDACTED:x]"));
    }

    @Test
    void anAiMessageWithNoTextButCalls_andOneWithEmptyTextAndCalls_comeBackAsTheyWere() {
        var request = ToolExecutionRequest.builder().id("c1").name("search").arguments("{}").build();
        var fields = MessageMapping.JSON.createObjectNode().put("content", "");
        fields.putArray("toolCalls").addObject().put("callId", "c1").put("tool", "search").put("argumentsJson", "{}");
        AiMessage none = AiMessage.from(request);
        AiMessage empty = AiMessage.builder().text("").toolExecutionRequests(List.of(request)).build();
        assertThat(none).isNotEqualTo(empty);

        Ref toNone = MessageMapping.refTo(3, none, "assistant_message", fields, "", id -> null);
        Ref toEmpty = MessageMapping.refTo(3, empty, "assistant_message", fields, "", id -> null);

        assertThat(toNone.residual()).isNull(); // what the event says by default
        assertThat(MessageMapping.restore(toNone, "assistant_message", fields, "", id -> null)).isEqualTo(none);
        assertThat(MessageMapping.restore(toEmpty, "assistant_message", fields, "", id -> null)).isEqualTo(empty);
    }

    private static long seqOf(List<SessionEvent> log, String callId) {
        return log.stream().filter(e -> e.type().equals("assistant_message") && e.field("toolCalls").orElseThrow().toString().contains(callId))
                .findFirst().orElseThrow().seq();
    }
}
