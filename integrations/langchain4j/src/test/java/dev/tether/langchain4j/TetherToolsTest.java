package dev.tether.langchain4j;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.langchain4j.agent.tool.P;
import dev.langchain4j.agent.tool.Tool;
import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.ToolExecutionResultMessage;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.invocation.InvocationParameters;
import dev.langchain4j.memory.chat.MessageWindowChatMemory;
import dev.langchain4j.model.chat.ChatModel;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.model.chat.response.ChatResponse;
import dev.langchain4j.service.AiServices;
import dev.langchain4j.service.MemoryId;
import dev.tether.client.AppendBatch;
import dev.tether.client.Claimed;
import dev.tether.client.NewEvent;
import dev.tether.client.Reconciliation;
import dev.tether.client.SessionEvent;
import dev.tether.client.ToolOutput;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/**
 * The tool bridge with LangChain4j's own AI Services against an in-memory session-service ({@link FakeTether}) that
 * authorizes {@code lookup_order} by policy and asks an approver for {@code refund_order}, as Tether's approval-service
 * does by default for a read-only and a mutating harness tool.
 */
class TetherToolsTest {

    interface Assistant {
        String chat(@MemoryId String memoryId, @dev.langchain4j.service.UserMessage String message);
    }

    /** The external systems the tools change and read, counting their calls. */
    static final class OrderTools {
        final List<String> lookups = new CopyOnWriteArrayList<>();
        final List<String> refunds = new CopyOnWriteArrayList<>();

        @Tool("Looks an order up")
        String lookup_order(@P("the order") String order, InvocationParameters parameters) {
            lookups.add(TetherTools.idempotencyKey(parameters).orElse("no key"));
            return "order " + order + ": shipped";
        }

        @Tool("Refunds an order")
        String refund_order(@P("the order") String order, InvocationParameters parameters) {
            refunds.add(TetherTools.idempotencyKey(parameters).orElseThrow());
            return "refunded " + order;
        }

        Reconciliation reconcile(dev.tether.client.ToolInvocation attempt) {
            return refunds.contains(attempt.idempotencyKey()) ? Reconciliation.tookEffect(ToolOutput.ok("refunded (found by its key)"))
                    : Reconciliation.noEffect("no refund under " + attempt.idempotencyKey());
        }
    }

    /** Asks for {@code tool} on the user's first message, answers with the tool's result once it has one. */
    static ChatModel model(String tool) {
        return new ChatModel() {
            @Override
            public ChatResponse doChat(ChatRequest request) {
                List<ChatMessage> messages = request.messages();
                ChatMessage last = messages.get(messages.size() - 1);
                if (last instanceof ToolExecutionResultMessage result) {
                    return ChatResponse.builder().aiMessage(AiMessage.from("done: " + result.text())).build();
                }
                if (messages.stream().anyMatch(m -> m instanceof ToolExecutionResultMessage)) {
                    return ChatResponse.builder().aiMessage(AiMessage.from("nothing more to do")).build();
                }
                return ChatResponse.builder().aiMessage(AiMessage.from(ToolExecutionRequest.builder().id("call-1").name(tool)
                        .arguments("{\"order\":\"A-17\"}").build())).build();
            }
        };
    }

    private final FakeTether tether = new FakeTether();
    private final OrderTools orders = new OrderTools();

    TetherToolsTest() {
        tether.afterAppend(e -> {
            if (!e.type().equals("assistant_message")) {
                return;
            }
            for (var call : e.field("toolCalls").orElseThrow()) {
                String callId = call.path("callId").asText();
                if (call.path("tool").asText().equals("refund_order")) {
                    tether.serviceAppends(e.sessionId(), "SYSTEM", NewEvent.of("approval_requested", Map.of("callId", callId, "tool", "refund_order",
                            "shown", "refund_order " + call.path("argumentsJson").asText())));
                } else {
                    tether.serviceAppends(e.sessionId(), "SYSTEM", authorization(callId));
                }
            }
        });
    }

    private static NewEvent authorization(String callId) {
        return NewEvent.of("tool_call_authorized", Map.of("callId", callId, "basis", Map.of("kind", "POLICY")));
    }

    private TetherChatMemoryStore store(String worker, Duration authorizationTimeout) {
        return TetherChatMemoryStore.builder(tether).workerId(worker).tools(orders).mutating("refund_order", orders::reconcile)
                .authorizationTimeout(authorizationTimeout).build();
    }

    private static Assistant assistant(TetherChatMemoryStore store, String tool) {
        return AiServices.builder(Assistant.class).chatModel(model(tool))
                .chatMemoryProvider(id -> MessageWindowChatMemory.builder().id(id).maxMessages(50).chatMemoryStore(store).build())
                .toolProvider(store.tools()).toolExecutionErrorHandler(TetherTools.errorHandler()).build();
    }

    private List<SessionEvent> log(TetherChatMemoryStore store, String memoryId) {
        return tether.log(store.sessionIdOf(memoryId));
    }

    @Test
    void anAiServicesToolCall_runsThroughTether_onceWithTheKeyTetherDerived_andTheMemoryRefersToItsResult() {
        TetherChatMemoryStore store = store("worker-a", Duration.ofSeconds(10));

        String answer = assistant(store, "lookup_order").chat("m1", "Where is A-17?");

        assertThat(answer).isEqualTo("done: order A-17: shipped");
        List<SessionEvent> log = log(store, "m1");
        long ask = log.stream().filter(e -> e.type().equals("assistant_message")).findFirst().orElseThrow().seq();
        String key = store.sessionIdOf("m1") + "/" + ask + "/call-1";
        assertThat(orders.lookups).as("the key with the session's start, which a session made again under the id does not repeat")
                .containsExactly(key + "~" + log.get(0).occurredAt().toEpochMilli());
        assertThat(log).filteredOn(e -> e.text("callId").equals(Optional.of("call-1"))).extracting(SessionEvent::type)
                .containsExactly("tool_call_authorized", "tool_call_started", "tool_result");
        assertThat(log).filteredOn(e -> e.type().equals("tool_result")).singleElement().satisfies(r -> {
            assertThat(r.text("idempotencyKey")).contains(key);
            assertThat(r.text("content")).contains("order A-17: shipped");
        });
        // the memory's result message refers to the runner's tool_result: no record of its own
        assertThat(log).noneMatch(e -> e.text("kind").equals(Optional.of("message")));
        assertThat(log.get(0).field("harnessTools").orElseThrow().toString()).contains(
                "{\"name\":\"refund_order\",\"mutating\":true,\"canReconcile\":true,\"recordedOnly\":false}");
        assertThat(TetherChatMemoryStore.builder(tether).build().getMessages("m1")).containsExactlyElementsOf(store.getMessages("m1"));
    }

    @Test
    void aCallNoApproverDecidedInTime_stopsTheInvocation_withoutRunning_andResumeRunsItOnceGranted() {
        TetherChatMemoryStore store = store("worker-a", Duration.ofMillis(300));
        Assistant assistant = assistant(store, "refund_order");

        assertThatThrownBy(() -> assistant.chat("m2", "Refund A-17")).isInstanceOfSatisfying(ToolCallPendingException.class, p -> {
            assertThat(p.reason()).isEqualTo(ToolCallPendingException.Reason.AWAITING_APPROVAL);
            assertThat(p.callId()).isEqualTo("call-1");
            assertThat(p.approvalId()).hasValueSatisfying(id -> assertThat(id).startsWith(store.sessionIdOf("m2") + "~"));
        });
        assertThat(orders.refunds).isEmpty();
        assertThat(store.getMessages("m2")).last().isInstanceOf(AiMessage.class); // no result in the memory
        assertThat(store.tools().resume("m2").next()).isEqualTo(Resumed.Next.PERSON);

        tether.serviceAppends(store.sessionIdOf("m2"), "SYSTEM", authorization("call-1")); // an approver granted it
        Resumed resumed = store.tools().resume("m2");

        assertThat(resumed.next()).isEqualTo(Resumed.Next.MODEL);
        assertThat(resumed.results()).singleElement().satisfies(r -> assertThat(r.text()).isEqualTo("refunded A-17"));
        assertThat(orders.refunds).hasSize(1);
        assertThat(assistant.chat("m2", "Continue.")).isEqualTo("nothing more to do");
        assertThat(orders.refunds).hasSize(1);
    }

    @Test
    void withoutTheErrorHandler_aPendingCallStillNeverReachesTheMemory_theStoreRefusesItsMadeUpResult() {
        TetherChatMemoryStore store = store("worker-a", Duration.ofMillis(300));
        Assistant plain = AiServices.builder(Assistant.class).chatModel(model("refund_order"))
                .chatMemoryProvider(id -> MessageWindowChatMemory.builder().id(id).maxMessages(50).chatMemoryStore(store).build())
                .toolProvider(store.tools()).build();

        assertThatThrownBy(() -> plain.chat("m3", "Refund A-17")).isInstanceOf(TetherMemoryException.class).hasMessageContaining("resume");
        assertThat(store.getMessages("m3")).noneMatch(m -> m instanceof ToolExecutionResultMessage);
        assertThat(log(store, "m3")).noneMatch(e -> e.type().equals("tool_result") || e.text("kind").equals(Optional.of("message")));
    }

    /** A payment system that times out: whether the charge went through is not known. */
    static final class PaymentTools {
        final List<String> charges = new CopyOnWriteArrayList<>();

        @Tool("Charges a card")
        String charge_card(@P("the order") String order, InvocationParameters parameters) {
            charges.add(TetherTools.idempotencyKey(parameters).orElseThrow());
            throw new IllegalStateException("the payment gateway timed out");
        }
    }

    /**
     * A mutating tool without a hook that throws after its start ends UNKNOWN in Tether (a person decides). The error
     * LangChain4j's default handler makes of it is no result of the call: the store refuses it as it refuses one of a
     * call waiting for an approver, so the memory never says the call is answered, and resume takes it up once decided.
     */
    @Test
    void withoutTheErrorHandler_aCallWhoseOutcomeIsUnknown_neverGetsAMadeUpResult_andResumeFinishesItOnceAPersonDecided() {
        var payments = new PaymentTools();
        TetherChatMemoryStore store = TetherChatMemoryStore.builder(tether).workerId("worker-a").tools(payments).mutating("charge_card")
                .authorizationTimeout(Duration.ofSeconds(5)).build();
        Assistant plain = AiServices.builder(Assistant.class).chatModel(model("charge_card"))
                .chatMemoryProvider(id -> MessageWindowChatMemory.builder().id(id).maxMessages(50).chatMemoryStore(store).build())
                .toolProvider(store.tools()).build();

        assertThatThrownBy(() -> plain.chat("m7", "Charge A-17")).isInstanceOf(TetherMemoryException.class).hasMessageContaining("resume");
        assertThat(payments.charges).hasSize(1);
        assertThat(store.getMessages("m7")).noneMatch(m -> m instanceof ToolExecutionResultMessage);
        assertThat(log(store, "m7")).filteredOn(e -> e.type().equals("tool_result")).singleElement()
                .satisfies(r -> assertThat(r.text("status")).contains("UNKNOWN"));
        Resumed waiting = store.tools().resume("m7");
        assertThat(waiting.next()).isEqualTo(Resumed.Next.PERSON);
        assertThat(waiting.pending()).singleElement()
                .satisfies(p -> assertThat(p.reason()).isEqualTo(ToolCallPendingException.Reason.OUTCOME_UNKNOWN));

        tether.serviceAppends(store.sessionIdOf("m7"), "USER", NewEvent.toolOutcomeResolved("call-1", "MARK_DONE", "ops-ann",
                "the gateway shows the charge"));
        Resumed resumed = store.tools().resume("m7");

        assertThat(resumed.next()).isEqualTo(Resumed.Next.MODEL);
        assertThat(resumed.results()).singleElement().satisfies(r -> assertThat(r.text()).contains("ops-ann", "the gateway shows the charge"));
        assertThat(payments.charges).hasSize(1); // never run again
        assertThat(TetherChatMemoryStore.builder(tether).build().getMessages("m7")).last().isInstanceOf(ToolExecutionResultMessage.class);
    }

    @Test
    void resume_afterACrashBetweenARefundAndItsResult_reconcilesItByItsKey_andNeverRunsItAgain() {
        TetherChatMemoryStore dead = store("worker-dead", Duration.ofSeconds(5));
        var ask = AiMessage.from(ToolExecutionRequest.builder().id("call-7").name("refund_order").arguments("{\"order\":\"B-9\"}").build());
        dead.updateMessages("m4", List.of(UserMessage.from("Refund B-9"), ask));
        String sessionId = dead.sessionIdOf("m4");
        tether.serviceAppends(sessionId, "SYSTEM", authorization("call-7"));
        long askSeq = log(dead, "m4").stream().filter(e -> e.type().equals("assistant_message")).findFirst().orElseThrow().seq();
        String key = sessionId + "/" + askSeq + "/call-7";
        // the dead worker started the call and applied the refund, then died before its result
        Claimed claim = dead.claimFor("m4");
        tether.append(sessionId, AppendBatch.forStep("harness/" + key + "/start", NewEvent.toolCallStarted("call-7", key, claim.epoch(), 1))
                .withEpoch(claim.epoch()));
        orders.refunds.add(key);

        TetherChatMemoryStore fresh = store("worker-new", Duration.ofSeconds(5));
        Resumed resumed = fresh.tools().resume("m4");

        assertThat(resumed.next()).isEqualTo(Resumed.Next.MODEL);
        assertThat(orders.refunds).containsExactly(key); // not run again
        assertThat(fresh.getMessages("m4")).last().isInstanceOfSatisfying(ToolExecutionResultMessage.class, r -> {
            assertThat(r.id()).isEqualTo("call-7");
            assertThat(r.text()).isEqualTo("refunded (found by its key)");
        });
        assertThat(log(fresh, "m4")).filteredOn(e -> e.type().equals("tool_result")).singleElement()
                .satisfies(r -> assertThat(r.text("idempotencyKey")).contains(key));
        assertThatThrownBy(() -> dead.updateMessages("m4", List.of(UserMessage.from("late")))).isInstanceOf(MemoryTakenOverException.class);
    }

    /**
     * A memory moves between workers: this one wrote it, another took it over (and stopped), and it comes back here.
     * resume takes it over again — a new claim, fencing whoever still works on it — whether this store knew it had lost
     * the memory or not; without resume the store's writes stay refused.
     */
    @Test
    void resume_takesBackAMemoryAnotherWorkerTookOver_withANewClaim_andTheMemoryGoesOnHere() {
        TetherChatMemoryStore here = store("worker-a", Duration.ofSeconds(5));
        TetherChatMemoryStore other = store("worker-b", Duration.ofSeconds(5));
        here.updateMessages("m8", List.of(UserMessage.from("q1"), AiMessage.from("a1")));
        other.updateMessages("m8", List.of(UserMessage.from("q1"), AiMessage.from("a1"), UserMessage.from("q2"), AiMessage.from("a2")));

        assertThat(here.tools().resume("m8").next()).isEqualTo(Resumed.Next.NOTHING);
        here.updateMessages("m8", List.of(UserMessage.from("q1"), AiMessage.from("a1"), UserMessage.from("q2"), AiMessage.from("a2"),
                UserMessage.from("q3")));

        assertThat(log(here, "m8")).filteredOn(e -> e.type().equals("session_claimed")).extracting(e -> e.text("workerId").orElseThrow())
                .containsExactly("worker-a", "worker-b", "worker-a");
        assertThatThrownBy(() -> other.updateMessages("m8", List.of(UserMessage.from("late")))).isInstanceOf(MemoryTakenOverException.class);
        // and once more, this store having been refused: resume takes it back again
        assertThat(other.tools().resume("m8").next()).isEqualTo(Resumed.Next.MODEL);
        other.updateMessages("m8", List.of(UserMessage.from("q1"), AiMessage.from("a1"), UserMessage.from("q2"), AiMessage.from("a2"),
                UserMessage.from("q3"), AiMessage.from("a3")));
        assertThat(TetherChatMemoryStore.builder(tether).build().getMessages("m8")).last().isEqualTo(AiMessage.from("a3"));
    }

    /**
     * A worker of another harness version than the memory's session is pinned to never claims it: not to write, not
     * through resume, not to run a call of it.
     */
    @Test
    void aStoreOfAnotherHarnessVersion_claimsAsItsOwnVersion_soItIsRefused_andRunsNothing() {
        var ask = AiMessage.from(ToolExecutionRequest.builder().id("call-9").name("lookup_order").arguments("{\"order\":\"D-1\"}").build());
        store("worker-a", Duration.ofSeconds(5)).updateMessages("m9", List.of(UserMessage.from("q1"), ask));
        TetherChatMemoryStore v2 = TetherChatMemoryStore.builder(tether).workerId("worker-v2").harnessVersion("v2").tools(orders).build();
        int events = tether.log(v2.sessionIdOf("m9")).size();

        assertThatThrownBy(() -> v2.tools().aiServiceTools().stream().filter(t -> t.name().equals("lookup_order")).findFirst().orElseThrow()
                .toolExecutor().executeWithContext(ask.toolExecutionRequests().get(0),
                dev.langchain4j.invocation.InvocationContext.builder().chatMemoryId("m9").build()))
                .isInstanceOf(TetherMemoryException.class).hasMessageContaining("pinned");
        assertThat(orders.lookups).isEmpty();
        assertThatThrownBy(() -> v2.tools().resume("m9")).isInstanceOf(TetherMemoryException.class).hasMessageContaining("pinned");
        assertThatThrownBy(() -> v2.updateMessages("m9", List.of(UserMessage.from("q1"), UserMessage.from("q2"))))
                .isInstanceOf(TetherMemoryException.class).hasMessageContaining("pinned");
        assertThat(tether.log(v2.sessionIdOf("m9"))).hasSize(events);
    }

    @Test
    void resume_runsAgainAReadOnlyCallThatStartedWithoutAResult_underANewKey() {
        TetherChatMemoryStore dead = store("worker-dead", Duration.ofSeconds(5));
        var ask = AiMessage.from(ToolExecutionRequest.builder().id("call-8").name("lookup_order").arguments("{\"order\":\"C-3\"}").build());
        dead.updateMessages("m5", List.of(UserMessage.from("Where is C-3?"), ask));
        String sessionId = dead.sessionIdOf("m5");
        long askSeq = log(dead, "m5").stream().filter(e -> e.type().equals("assistant_message")).findFirst().orElseThrow().seq();
        String first = sessionId + "/" + askSeq + "/call-8";
        Claimed claim = dead.claimFor("m5");
        tether.append(sessionId, AppendBatch.forStep("start", NewEvent.toolCallStarted("call-8", first, claim.epoch(), 1)).withEpoch(claim.epoch()));

        TetherChatMemoryStore fresh = store("worker-new", Duration.ofSeconds(5));
        Resumed resumed = fresh.tools().resume("m5");

        SessionEvent retry = log(fresh, "m5").stream().filter(e -> e.type().equals("tool_outcome_resolved")).findFirst().orElseThrow();
        assertThat(retry.text("resolution")).contains("RETRY");
        assertThat(orders.lookups).containsExactly(sessionId + "/" + retry.seq() + "/call-8~"
                + log(fresh, "m5").get(0).occurredAt().toEpochMilli());
        assertThat(resumed.results()).singleElement().satisfies(r -> assertThat(r.text()).isEqualTo("order C-3: shipped"));
        assertThat(fresh.tools().resume("m5").results()).isEmpty(); // done: nothing to do a second time
        assertThat(orders.lookups).hasSize(1);
    }

    /**
     * The process ran the call and Tether recorded its result, then it died before the memory update. Tether offloaded the
     * large result (the event keeps a preview): resume puts the whole result into the memory, not the preview.
     */
    @Test
    void resume_afterACrashBetweenAResultAndTheMemoryUpdate_putsTheWholeResultIntoTheMemory_evenWhenTetherOffloadedIt() {
        tether.offloadingOver(200);
        String order = "A-" + "7".repeat(400);
        TetherChatMemoryStore dead = store("worker-dead", Duration.ofSeconds(5));
        var request = ToolExecutionRequest.builder().id("call-5").name("lookup_order").arguments("{\"order\":\"" + order + "\"}").build();
        dead.updateMessages("m10", List.of(UserMessage.from("Where is it?"), AiMessage.from(request)));
        String ran = dead.tools().aiServiceTools().stream().filter(t -> t.name().equals("lookup_order")).findFirst().orElseThrow()
                .toolExecutor().executeWithContext(request, dev.langchain4j.invocation.InvocationContext.builder().chatMemoryId("m10").build())
                .resultText();
        assertThat(ran).isEqualTo("order " + order + ": shipped");
        assertThat(log(dead, "m10")).filteredOn(e -> e.type().equals("tool_result")).singleElement()
                .satisfies(r -> assertThat(r.field("artifact")).isPresent()); // offloaded: the event keeps a preview
        // ...and the process died here, before the AI Service put the result into the memory

        TetherChatMemoryStore fresh = store("worker-new", Duration.ofSeconds(5));
        Resumed resumed = fresh.tools().resume("m10");

        assertThat(orders.lookups).hasSize(1); // not run again
        assertThat(resumed.results()).singleElement().satisfies(r -> assertThat(r.text()).isEqualTo("order " + order + ": shipped"));
        assertThat(TetherChatMemoryStore.builder(tether).build().getMessages("m10")).last()
                .isInstanceOfSatisfying(ToolExecutionResultMessage.class, r -> assertThat(r.text()).isEqualTo("order " + order + ": shipped"));
    }

    /**
     * resume fences a process that may still run: what that process wrote up to the new claim is the memory resume goes on
     * from. Here the old worker finishes its turn (the call's result and the model's answer) just before the new worker's
     * claim lands: resume must neither drop that answer from the memory nor ask for the model again.
     */
    @Test
    void resume_goesOnFromTheMemoryAsItIsWhenItsClaimLands_notAsItWasReadBefore() {
        TetherChatMemoryStore old = store("worker-old", Duration.ofSeconds(5));
        var request = ToolExecutionRequest.builder().id("call-3").name("lookup_order").arguments("{\"order\":\"E-5\"}").build();
        var ask = AiMessage.from(request);
        old.updateMessages("m11", List.of(UserMessage.from("Where is E-5?"), ask));
        old.tools().aiServiceTools().stream().filter(t -> t.name().equals("lookup_order")).findFirst().orElseThrow()
                .toolExecutor().executeWithContext(request, dev.langchain4j.invocation.InvocationContext.builder().chatMemoryId("m11").build());
        List<ChatMessage> finished = List.of(UserMessage.from("Where is E-5?"), ask,
                ToolExecutionResultMessage.builder().id("call-3").toolName("lookup_order").text("order E-5: shipped").isError(false).build(),
                AiMessage.from("E-5 has shipped."));
        // the old worker's last update gets in just before the new worker's claim
        var beforeClaim = new java.util.concurrent.atomic.AtomicBoolean(true);
        var racing = (dev.tether.client.TetherClient) java.lang.reflect.Proxy.newProxyInstance(getClass().getClassLoader(),
                new Class<?>[] {dev.tether.client.TetherClient.class}, (proxy, method, args) -> {
                    if (method.getName().equals("claim") && beforeClaim.getAndSet(false)) {
                        old.updateMessages("m11", finished);
                    }
                    try {
                        return method.invoke(tether, args);
                    } catch (java.lang.reflect.InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
        TetherChatMemoryStore fresh = TetherChatMemoryStore.builder(racing).workerId("worker-new").tools(orders)
                .mutating("refund_order", orders::reconcile).build();

        Resumed resumed = fresh.tools().resume("m11");

        assertThat(beforeClaim).isFalse();
        assertThat(fresh.getMessages("m11")).containsExactlyElementsOf(finished);
        assertThat(resumed.next()).isEqualTo(Resumed.Next.NOTHING);
        assertThat(orders.lookups).hasSize(1);
    }

    @Test
    void aCallIdTheModelUsedBefore_isNeverAnsweredWithTheEarlierCallsResult_theBridgeRefusesToRunIt() {
        TetherChatMemoryStore store = store("worker-a", Duration.ofSeconds(10));
        // a model that numbers its calls per turn, as some providers do: every turn's first call is call_0
        ChatModel model = new ChatModel() {
            @Override
            public ChatResponse doChat(ChatRequest request) {
                List<ChatMessage> messages = request.messages();
                ChatMessage last = messages.get(messages.size() - 1);
                if (last instanceof ToolExecutionResultMessage result) {
                    return ChatResponse.builder().aiMessage(AiMessage.from("done: " + result.text())).build();
                }
                return ChatResponse.builder().aiMessage(AiMessage.from(ToolExecutionRequest.builder().id("call_0").name("lookup_order")
                        .arguments("{\"order\":\"" + ((UserMessage) last).singleText() + "\"}").build())).build();
            }
        };
        Assistant assistant = AiServices.builder(Assistant.class).chatModel(model)
                .chatMemoryProvider(id -> MessageWindowChatMemory.builder().id(id).maxMessages(50).chatMemoryStore(store).build())
                .toolProvider(store.tools()).toolExecutionErrorHandler(TetherTools.errorHandler()).build();
        assertThat(assistant.chat("m6", "A-17")).isEqualTo("done: order A-17: shipped");

        assertThatThrownBy(() -> assistant.chat("m6", "B-9")).isInstanceOf(TetherMemoryException.class)
                .hasMessageContaining("call_0").hasMessageContaining("used before");
        assertThat(orders.lookups).hasSize(1);
        assertThat(store.getMessages("m6")).filteredOn(m -> m instanceof ToolExecutionResultMessage)
                .extracting(m -> ((ToolExecutionResultMessage) m).text())
                .containsExactly("order A-17: shipped"); // B-9 never got A-17's answer
        Resumed resumed = store.tools().resume("m6");
        assertThat(resumed.results()).singleElement().satisfies(r -> {
            assertThat(r.isError()).isTrue();
            assertThat(r.text()).doesNotContain("A-17").contains("not run");
        });
        assertThat(orders.lookups).hasSize(1);
    }
}
