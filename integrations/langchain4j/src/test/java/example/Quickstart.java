package example;

import dev.langchain4j.agent.tool.Tool;
import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.ToolExecutionResultMessage;
import dev.langchain4j.invocation.InvocationParameters;
import dev.langchain4j.memory.chat.MessageWindowChatMemory;
import dev.langchain4j.model.chat.ChatModel;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.model.chat.response.ChatResponse;
import dev.langchain4j.service.AiServices;
import dev.langchain4j.service.MemoryId;
import dev.langchain4j.service.UserMessage;
import dev.tether.client.ContextFormat;
import dev.tether.client.TetherClient;
import dev.tether.client.TetherOptions;
import dev.tether.langchain4j.MemorySession;
import dev.tether.langchain4j.TetherChatMemoryStore;
import dev.tether.langchain4j.TetherTools;
import java.net.URI;
import java.util.List;

public class Quickstart {

    interface Assistant {
        String chat(@MemoryId String memoryId, @UserMessage String message);
    }

    static class OrderTools {
        @Tool("Looks an order up")
        String lookup_order(String order, InvocationParameters parameters) {
            // the key Tether derived for this call: pass it to systems that change things, so they apply it once
            System.out.println("looking up " + order + " (key " + TetherTools.idempotencyKey(parameters).orElseThrow() + ")");
            return "order " + order + ": shipped";
        }
    }

    public static void main(String[] args) {
        var options = TetherOptions.of(URI.create(env("TETHER_SESSIONS_URL", "http://127.0.0.1:8080")),
                URI.create(env("TETHER_PROJECTOR_URL", "http://127.0.0.1:8081")),
                URI.create(env("TETHER_APPROVALS_URL", "http://127.0.0.1:8082")))
                .withToken("dev-acme-agent"); // an agent's token: the store sees its tenant's memories only
        try (TetherClient tether = TetherClient.create(options)) {
            TetherChatMemoryStore store = TetherChatMemoryStore.builder(tether)
                    .tools(new OrderTools()) // run through Tether: authorized, recorded, run once; other tools are recorded only
                    .session(memoryId -> MemorySession.of("Answer questions about orders").withModelId("gpt-4.1"))
                    .build();

            // your model here; this one answers from a script so that the example runs without a network
            ChatModel model = new ChatModel() {
                @Override
                public ChatResponse doChat(ChatRequest request) {
                    List<ChatMessage> messages = request.messages();
                    if (messages.get(messages.size() - 1) instanceof ToolExecutionResultMessage result) {
                        return ChatResponse.builder().aiMessage(AiMessage.from("Your " + result.text())).build();
                    }
                    long calls = messages.stream().filter(m -> m instanceof ToolExecutionResultMessage).count();
                    return ChatResponse.builder().aiMessage(AiMessage.from(ToolExecutionRequest.builder()
                            .id("call-" + (calls + 1)).name("lookup_order").arguments("{\"order\":\"A-17\"}").build())).build();
                }
            };

            Assistant assistant = AiServices.builder(Assistant.class)
                    .chatModel(model)
                    .chatMemoryProvider(id -> MessageWindowChatMemory.builder().id(id).maxMessages(20).chatMemoryStore(store).build())
                    .toolProvider(store.tools())
                    .toolExecutionErrorHandler(TetherTools.errorHandler())
                    .registerListeners(store.usageListener())
                    .build();

            String memoryId = env("MEMORY_ID", "order-help-1");
            store.tools().resume(memoryId); // after a crash: finish the calls a dead process left, before going on
            System.out.println(assistant.chat(memoryId, "Where is my order A-17?"));

            // the same memory in Tether: its log, and the model context Tether renders from it
            String sessionId = store.sessionIdOf(memoryId);
            tether.allEvents(sessionId).orElseThrow().forEach(e -> System.out.println(e.seq() + " " + e.type()));
            System.out.println(tether.context(sessionId, ContextFormat.OPENAI).orElseThrow().tokens() + " tokens in the model context");
        }
    }

    private static String env(String name, String fallback) {
        String value = System.getenv(name);
        return value == null ? fallback : value;
    }
}
