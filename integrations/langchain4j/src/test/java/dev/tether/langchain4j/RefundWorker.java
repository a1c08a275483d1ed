package dev.tether.langchain4j;

import dev.langchain4j.agent.tool.P;
import dev.langchain4j.agent.tool.Tool;
import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.ChatMessageSerializer;
import dev.langchain4j.data.message.ToolExecutionResultMessage;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.invocation.InvocationParameters;
import dev.langchain4j.memory.chat.MessageWindowChatMemory;
import dev.langchain4j.model.chat.ChatModel;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.model.chat.response.ChatResponse;
import dev.langchain4j.model.output.TokenUsage;
import dev.langchain4j.service.AiServices;
import dev.langchain4j.service.MemoryId;
import dev.tether.client.Reconciliation;
import dev.tether.client.RetryPolicy;
import dev.tether.client.TetherClient;
import dev.tether.client.TetherOptions;
import dev.tether.client.ToolInvocation;
import dev.tether.client.ToolOutput;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A LangChain4j agent in a process of its own for {@link LangChain4jIT}: an AI Service on {@link TetherChatMemoryStore}
 * with two {@code @Tool} methods run through Tether — {@code lookup_order} (read-only) and {@code refund_order}
 * (mutating: gated by an approver, reconciled by its key) — and a scripted {@link ChatModel} (no network). It resumes the
 * memory ({@link TetherTools#resume}), goes on with the model if the memory waits for it, then sends each task of
 * {@link #TASKS} the memory has not had yet. At a kill point it prints {@code PAUSED <point>} and blocks, so the test
 * SIGKILLs it there; without one it prints {@code MEMORY <digest>} and {@code DONE} and exits 0.
 *
 * <p>Arguments: sessions-url projector-url approvals-url token memory-id refunds-dir kill-point ({@code NONE},
 * {@code AFTER_EFFECT:<order>}, {@code BEFORE_EFFECT:<order>}, {@code MODEL_FINAL_2}).
 */
public final class RefundWorker {

    static final List<String> TASKS = List.of("Refund orders A-17 and B-9.", "What is the status of order A-17?");
    static final String CONTINUE = "Continue.";
    static final int WINDOW = 14;

    interface Agent {
        String chat(@MemoryId String memoryId, @dev.langchain4j.service.UserMessage String message);
    }

    private RefundWorker() {}

    public static void main(String[] args) throws Exception {
        var options = TetherOptions.of(URI.create(args[0]), URI.create(args[1]), URI.create(args[2])).withToken(args[3])
                .withTimeout(Duration.ofSeconds(30)).withRetry(RetryPolicy.of(12, Duration.ofMillis(250), Duration.ofSeconds(5)));
        String memoryId = args[4];
        var refunds = new Refunds(Path.of(args[5]));
        String killPoint = args[6];
        try (TetherClient tether = TetherClient.create(options)) {
            var desk = new Desk(refunds, killPoint);
            TetherChatMemoryStore store = TetherChatMemoryStore.builder(tether)
                    .tools(desk)
                    .mutating("refund_order", refunds::reconcile)
                    .session(id -> MemorySession.of("Refund the customer's orders and report").withModelId("scripted-1"))
                    .authorizationTimeout(Duration.ofMinutes(2))
                    .build();
            Agent agent = AiServices.builder(Agent.class).chatModel(new ScriptedModel(killPoint))
                    .chatMemoryProvider(id -> MessageWindowChatMemory.builder().id(id).maxMessages(WINDOW).chatMemoryStore(store).build())
                    .toolProvider(store.tools())
                    .toolExecutionErrorHandler(TetherTools.errorHandler())
                    .registerListeners(store.usageListener())
                    .build();

            Resumed resumed = store.tools().resume(memoryId);
            System.out.println("RESUMED " + resumed.next() + " " + resumed.results().size());
            if (resumed.next() == Resumed.Next.PERSON) {
                System.out.println("PENDING " + resumed.pending());
                System.exit(3);
            }
            if (resumed.next() == Resumed.Next.MODEL) {
                System.out.println("ANSWER " + agent.chat(memoryId, CONTINUE));
            }
            for (int t = 0; t < TASKS.size(); t++) {
                if (!hadTask(store.getMessages(memoryId), t)) {
                    System.out.println("ANSWER " + agent.chat(memoryId, TASKS.get(t)));
                }
            }
            System.out.println("MEMORY " + digest(store.getMessages(memoryId)));
            System.out.println("DONE");
        }
    }

    /** Whether the memory has had task {@code t}: it holds it or a later one (a window may have evicted it since). */
    static boolean hadTask(List<ChatMessage> memory, int t) {
        return memory.stream().anyMatch(m -> m instanceof UserMessage u && TASKS.indexOf(u.singleText()) >= t);
    }

    static String digest(List<ChatMessage> messages) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256")
                    .digest(ChatMessageSerializer.messagesToJson(messages).getBytes(StandardCharsets.UTF_8)));
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    static void pauseAt(String point, String killPoint) {
        if (point.equals(killPoint)) {
            System.out.println("PAUSED " + point);
            System.out.flush();
            try {
                Thread.sleep(Long.MAX_VALUE); // until the test SIGKILLs this process
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted at " + point, e);
            }
        }
    }

    /** The agent's tools: an order lookup, and refunds through the counting external system. */
    public static final class Desk {
        private final Refunds refunds;
        private final String killPoint;

        Desk(Refunds refunds, String killPoint) {
            this.refunds = refunds;
            this.killPoint = killPoint;
        }

        @Tool("Looks an order up")
        public String lookup_order(@P("the order") String order) {
            return "order " + order + ": 42.00 EUR, " + (refunds.refunded(order) ? "refunded" : "paid");
        }

        @Tool("Refunds an order in full")
        public String refund_order(@P("the order") String order, InvocationParameters parameters) throws IOException {
            String key = TetherTools.idempotencyKey(parameters).orElseThrow();
            pauseAt("BEFORE_EFFECT:" + order, killPoint);
            refunds.record(key, order);
            pauseAt("AFTER_EFFECT:" + order, killPoint);
            return "refunded " + order + " under " + key;
        }
    }

    /**
     * The counting external system: every request is a line of {@code requests.log} ({@code key order}), and a refund is
     * applied at most once per idempotency key (a file {@code applied/<key>} created exclusively, holding the order).
     */
    record Refunds(Path dir) {

        void record(String key, String order) throws IOException {
            Files.createDirectories(dir.resolve("applied"));
            Files.writeString(dir.resolve("requests.log"), key + " " + order + "\n", StandardOpenOption.CREATE, StandardOpenOption.APPEND,
                    StandardOpenOption.SYNC);
            try {
                Files.writeString(applied(key), order, StandardOpenOption.CREATE_NEW, StandardOpenOption.SYNC);
            } catch (FileAlreadyExistsException duplicate) {
                // the same key again: applied once already
            }
        }

        Reconciliation reconcile(ToolInvocation attempt) {
            return Files.exists(applied(attempt.idempotencyKey()))
                    ? Reconciliation.tookEffect(ToolOutput.ok("refunded under " + attempt.idempotencyKey() + " (found by reconciliation)"))
                    : Reconciliation.noEffect("no refund under " + attempt.idempotencyKey());
        }

        boolean refunded(String order) {
            try {
                return requests().stream().anyMatch(l -> l.endsWith(" " + order));
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
        }

        Path applied(String key) {
            return dir.resolve("applied").resolve(URLEncoder.encode(key, StandardCharsets.UTF_8));
        }

        List<String> requests() throws IOException {
            Path log = dir.resolve("requests.log");
            return Files.exists(log) ? Files.readAllLines(log) : List.of();
        }

        long appliedCount() throws IOException {
            Path applied = dir.resolve("applied");
            if (!Files.exists(applied)) {
                return 0;
            }
            try (var files = Files.list(applied)) {
                return files.count();
            }
        }
    }

    /**
     * A model that answers from what it sees, so a new process goes on where a dead one stopped: for the last task (the
     * last user message that is not {@value #CONTINUE}), it looks every order of a refund task up at once, then refunds
     * them one by one, then reports; for a status task it looks the order up, then reports. Call ids are derived from the
     * task and the order, so each call is asked for once in the session.
     */
    static final class ScriptedModel implements ChatModel {
        private static final Pattern ORDER = Pattern.compile("[A-Z]-\\d+");
        private final String killPoint;

        ScriptedModel(String killPoint) {
            this.killPoint = killPoint;
        }

        @Override
        public ChatResponse doChat(ChatRequest request) {
            List<ChatMessage> messages = request.messages();
            int at = -1;
            for (int i = messages.size() - 1; i >= 0 && at < 0; i--) {
                if (messages.get(i) instanceof UserMessage u && TASKS.contains(u.singleText())) {
                    at = i;
                }
            }
            if (at < 0) {
                return answer(AiMessage.from("What should I do?"));
            }
            int task = TASKS.indexOf(((UserMessage) messages.get(at)).singleText()) + 1;
            Set<String> done = new LinkedHashSet<>();
            String lastLookup = null;
            for (ChatMessage m : messages.subList(at + 1, messages.size())) {
                if (m instanceof ToolExecutionResultMessage r) {
                    done.add(r.id());
                    if (r.toolName().equals("lookup_order")) {
                        lastLookup = r.text();
                    }
                }
            }
            List<String> orders = new ArrayList<>();
            Matcher m = ORDER.matcher(TASKS.get(task - 1));
            while (m.find()) {
                orders.add(m.group());
            }
            List<ToolExecutionRequest> lookups = new ArrayList<>();
            for (String order : orders) {
                if (!done.contains(id(task, "lookup", order))) {
                    lookups.add(call(task, "lookup_order", order));
                }
            }
            if (!lookups.isEmpty()) {
                return answer(AiMessage.from(lookups));
            }
            if (task == 1) {
                for (String order : orders) {
                    if (!done.contains(id(task, "refund", order))) {
                        return answer(AiMessage.from("Refunding " + order + ".", List.of(call(task, "refund_order", order))));
                    }
                }
                return answer(AiMessage.from("Refunded " + String.join(" and ", orders) + "."));
            }
            pauseAt("MODEL_FINAL_2", killPoint);
            return answer(AiMessage.from("Status: " + lastLookup));
        }

        private static String id(int task, String verb, String order) {
            return "t" + task + "-" + verb + "-" + order;
        }

        private static ToolExecutionRequest call(int task, String tool, String order) {
            return ToolExecutionRequest.builder().id(id(task, tool.substring(0, tool.indexOf('_')), order)).name(tool)
                    .arguments("{\"order\":\"" + order + "\"}").build();
        }

        private static ChatResponse answer(AiMessage message) {
            return ChatResponse.builder().aiMessage(message).tokenUsage(new TokenUsage(100, 10)).build();
        }
    }
}
