package dev.tether.langchain4j;

import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.agent.tool.ToolSpecification;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.Content;
import dev.langchain4j.data.message.TextContent;
import dev.langchain4j.data.message.ToolExecutionResultMessage;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.exception.ToolArgumentsException;
import dev.langchain4j.exception.ToolExecutionException;
import dev.langchain4j.invocation.InvocationContext;
import dev.langchain4j.invocation.InvocationParameters;
import dev.langchain4j.service.tool.AiServiceTool;
import dev.langchain4j.service.tool.ToolErrorHandlerResult;
import dev.langchain4j.service.tool.ToolExecutionErrorHandler;
import dev.langchain4j.service.tool.ToolExecutionResult;
import dev.langchain4j.service.tool.ToolExecutor;
import dev.langchain4j.service.tool.ToolProvider;
import dev.langchain4j.service.tool.ToolProviderRequest;
import dev.langchain4j.service.tool.ToolProviderResult;
import dev.langchain4j.service.tool.ToolService;
import dev.tether.client.Claimed;
import dev.tether.client.Fenced;
import dev.tether.client.HarnessRunResult;
import dev.tether.client.HarnessTool;
import dev.tether.client.HarnessToolRunner;
import dev.tether.client.NotFound;
import dev.tether.client.NotYetAuthorized;
import dev.tether.client.Reconciliation;
import dev.tether.client.Rejected;
import dev.tether.client.ToolCancelled;
import dev.tether.client.ToolCompleted;
import dev.tether.client.ToolDenied;
import dev.tether.client.ToolInvocation;
import dev.tether.client.ToolOutcomeUnknown;
import dev.tether.client.ToolOutput;
import dev.tether.client.ToolReconciler;
import dev.tether.client.ToolResolvedByPerson;
import dev.tether.client.ToolStatus;
import dev.tether.langchain4j.MemoryLog.Runner;
import dev.tether.langchain4j.TetherChatMemoryStore.CallView;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;

/**
 * An AI Service's {@code @Tool} methods run as Tether harness-run tools (docs/ARCHITECTURE.md §6): each call waits for
 * its authorization (the tenant's policy, or an approver), is recorded as started, runs with the idempotency key Tether
 * derived from the AI message that asked for it, and has its result appended — once. Get it from
 * {@link TetherChatMemoryStore#tools()} and give it to the AI Service:
 *
 * <pre>{@code
 * TetherChatMemoryStore store = TetherChatMemoryStore.builder(tether)
 *         .tools(new OrderTools(orders))
 *         .mutating("refund_order", orders::reconcile)   // gated; the hook finds an attempt's effect by its key
 *         .build();
 * Assistant assistant = AiServices.builder(Assistant.class)
 *         .chatModel(model)
 *         .chatMemoryProvider(id -> MessageWindowChatMemory.builder().id(id).maxMessages(50).chatMemoryStore(store).build())
 *         .toolProvider(store.tools())
 *         .toolExecutionErrorHandler(TetherTools.errorHandler())
 *         .build();
 * }</pre>
 *
 * <ul>
 *   <li><b>The key.</b> A tool method that takes {@code InvocationParameters} finds the attempt's key with
 *       {@link #idempotencyKey(InvocationParameters)}: pass it to the system it changes, which then applies the call at
 *       most once.</li>
 *   <li><b>Read-only tools</b> (every method not named {@code mutating}) are run again after a crash that left an
 *       attempt without a result: a read changes nothing. <b>Mutating</b> ones are gated (an approver decides each call
 *       by default) and are never run again blindly: their hook says whether the attempt took effect (its result) or
 *       provably did not (it runs once more under a new key), or an approver decides.</li>
 *   <li><b>Waiting.</b> A call waits for its authorization up to the builder's {@code authorizationTimeout}; then the
 *       invocation stops with {@link ToolCallPendingException} (so does a call whose outcome is unknown). Nothing ran.
 *       Once a person decided, {@link #resume} takes it from there.</li>
 *   <li><b>After a crash</b>, a new process calls {@link #resume} for the memory before it goes on: it finishes the
 *       calls of the memory's last AI message that have no result — reconciles a started one, runs an authorized one,
 *       reports what Tether recorded — puts their results into the memory, and says whether the model should be called
 *       next (then call the AI Service again, e.g. with "Continue.").</li>
 * </ul>
 *
 * <p>Thread-safe; tools may run concurrently ({@code executeToolsConcurrently}).
 */
public final class TetherTools implements ToolProvider {

    /** The default wait for a call's authorization. */
    public static final Duration DEFAULT_AUTHORIZATION_TIMEOUT = Duration.ofMinutes(5);
    /** The {@code InvocationParameters} key of the attempt's idempotency key ({@code sessionId/seq/callId}). */
    public static final String IDEMPOTENCY_KEY = "tether.idempotencyKey";
    /** The {@code InvocationParameters} key of the attempt's number (1, then one more after each retry). */
    public static final String ATTEMPT = "tether.attempt";

    /** How long a denied or cancelled call's result (Tether's, the approval-service's) is waited for. */
    private static final Duration RESULT_WAIT = Duration.ofSeconds(30);
    /** A read changes nothing: an attempt that started and has no result runs again. */
    private static final ToolReconciler READ_AGAIN = attempt -> Reconciliation.noEffect("a read-only tool: reading again changes nothing");

    private record Tool(HarnessTool declaration, AiServiceTool original, ToolReconciler reconciler) {}

    private final TetherChatMemoryStore store;
    private final Map<String, Tool> tools = new LinkedHashMap<>();
    private final List<AiServiceTool> wrapped = new ArrayList<>();
    private final Duration authorizationTimeout;

    TetherTools(TetherChatMemoryStore store, List<Object> objectsWithTools, Map<String, ToolReconciler> mutating, Duration authorizationTimeout) {
        this.store = store;
        this.authorizationTimeout = authorizationTimeout;
        for (Object object : objectsWithTools) {
            for (AiServiceTool tool : ToolService.findTools(object)) {
                String name = tool.name();
                HarnessTool declaration;
                ToolReconciler reconciler;
                if (mutating.containsKey(name)) {
                    reconciler = mutating.get(name);
                    declaration = reconciler == null ? HarnessTool.mutating(name) : HarnessTool.mutating(name).reconcilable();
                } else {
                    reconciler = READ_AGAIN;
                    declaration = HarnessTool.readOnly(name).reconcilable();
                }
                if (tools.putIfAbsent(name, new Tool(declaration, tool, reconciler)) != null) {
                    throw new IllegalArgumentException("two @Tool methods are named '" + name + "'");
                }
                wrapped.add(AiServiceTool.builder().toolSpecification(tool.toolSpecification()).toolExecutor(new Executor(tools.get(name)))
                        .returnBehavior(tool.returnBehavior()).build());
            }
        }
        Set<String> unknown = new HashSet<>(mutating.keySet());
        unknown.removeAll(tools.keySet());
        if (!unknown.isEmpty()) {
            throw new IllegalArgumentException("mutating tools " + unknown + " are no @Tool method of the objects given (there are " + tools.keySet()
                    + ")");
        }
    }

    /** The wrapped tools, for {@code AiServices.tools(List<AiServiceTool>)}. */
    public List<AiServiceTool> aiServiceTools() {
        return List.copyOf(wrapped);
    }

    /** The wrapped tools, for {@code AiServices.toolProvider(...)}. */
    @Override
    public ToolProviderResult provideTools(ToolProviderRequest request) {
        return new ToolProviderResult(aiServiceTools());
    }

    /** The tools as the memories' sessions declare them ({@code harnessTools}; every other tool is declared recorded-only). */
    public List<HarnessTool> declarations() {
        return tools.values().stream().map(Tool::declaration).toList();
    }

    /** The tools' specifications, as the model sees them. */
    public List<ToolSpecification> specifications() {
        return wrapped.stream().map(AiServiceTool::toolSpecification).toList();
    }

    /**
     * The idempotency key of the attempt a tool method runs in, from its {@code InvocationParameters}; empty outside Tether.
     * It is the key to hand other systems ({@link ToolInvocation#idempotencyKey()}: the call's key, {@code ~} and the
     * session's start), which a session made again under an erased session's id does not repeat.
     */
    public static Optional<String> idempotencyKey(InvocationParameters parameters) {
        Object key = parameters == null ? null : parameters.asMap().get(IDEMPOTENCY_KEY);
        return key instanceof String s ? Optional.of(s) : Optional.empty();
    }

    /**
     * A {@code ToolExecutionErrorHandler} for {@code AiServices.toolExecutionErrorHandler(...)}: Tether's own stops — a
     * call waiting for a person ({@link ToolCallPendingException}), a memory another process took over
     * ({@link MemoryTakenOverException}) — end the invocation at once; any other error is told to the model, as
     * LangChain4j does by default. Without it, such a stop reaches the model as an error text first, and the invocation
     * ends when its result would go into the memory (the store refuses a result Tether does not have).
     */
    public static ToolExecutionErrorHandler errorHandler() {
        return (error, context) -> {
            if (error instanceof TetherMemoryException stop) {
                throw stop;
            }
            return ToolErrorHandlerResult.text(error.getMessage() != null ? error.getMessage() : error.getClass().getSimpleName());
        };
    }

    /**
     * After a crash (or once a person decided a call that waited), takes the memory's last AI message's calls that have
     * no result in the memory as far as they go: a call that started and has no result is reconciled (a read-only one
     * runs again; a mutating one through its hook, or it waits for a person), an authorized one runs, one waiting for
     * its authorization waits up to the authorization timeout, and one with a result in Tether reports it. When every
     * such call has its result, they go into the memory, in the AI message's order. Claims the memory's session first,
     * so a process that still works on it is fenced: anew unless this store's claim is the session's latest, so a memory
     * another process took over from this store comes back to it here (until then the store's writes to it are refused).
     *
     * @return what the memory needs next: {@link Resumed.Next#MODEL} (call the AI Service again), {@link Resumed.Next#NOTHING}
     *         (its last turn is complete, or it is empty), {@link Resumed.Next#PERSON} (calls wait for an approver)
     * @throws MemoryTakenOverException if another process claimed the memory while this resumed it
     */
    public Resumed resume(Object memoryId) {
        List<ChatMessage> messages = store.getMessages(memoryId);
        if (messages.isEmpty()) {
            return new Resumed(Resumed.Next.NOTHING, List.of(), List.of());
        }
        store.takeOver(memoryId);
        // the memory as it is once the claim landed: a process it fenced may have written to it since the read above
        messages = store.getMessages(memoryId);
        if (messages.isEmpty()) {
            return new Resumed(Resumed.Next.NOTHING, List.of(), List.of());
        }
        var results = new ArrayList<ToolExecutionResultMessage>();
        var pending = new ArrayList<ToolCallPendingException>();
        int last = lastAiMessage(messages);
        if (last >= 0 && ((AiMessage) messages.get(last)).hasToolExecutionRequests()) {
            Set<String> answered = messages.subList(last + 1, messages.size()).stream()
                    .filter(m -> m instanceof ToolExecutionResultMessage).map(m -> ((ToolExecutionResultMessage) m).id()).collect(Collectors.toSet());
            for (ToolExecutionRequest request : ((AiMessage) messages.get(last)).toolExecutionRequests()) {
                if (request.id() != null && answered.contains(request.id())) {
                    continue;
                }
                Outcome outcome = finish(memoryId, request);
                if (outcome instanceof Pending p) {
                    pending.add(p.exception());
                } else {
                    results.add(((Finished) outcome).message());
                }
            }
            if (pending.isEmpty() && !results.isEmpty()) {
                var next = new ArrayList<>(messages);
                next.addAll(results);
                store.updateMessages(memoryId, next);
                messages = next;
            }
        }
        if (!pending.isEmpty()) {
            return new Resumed(Resumed.Next.PERSON, List.of(), pending);
        }
        ChatMessage end = messages.get(messages.size() - 1);
        boolean model = end instanceof UserMessage || end instanceof ToolExecutionResultMessage;
        return new Resumed(model ? Resumed.Next.MODEL : Resumed.Next.NOTHING, results, List.of());
    }

    @Override
    public String toString() {
        return "TetherTools" + tools.keySet();
    }

    // --- running a call -----------------------------------------------------------------------------------------------

    /** How a call ended for the AI Service, or why it cannot go on yet. */
    private sealed interface Outcome permits Ran, Finished, Pending {}

    /** Its result, as the tool (or Tether) gave it. */
    private record Ran(ToolExecutionResult result) implements Outcome {}

    /** Its result message, as Tether recorded it. */
    private record Finished(ToolExecutionResultMessage message) implements Outcome {}

    private record Pending(ToolCallPendingException exception) implements Outcome {}

    /** One tool of the AI Service, run through Tether. */
    private final class Executor implements ToolExecutor {

        private final Tool tool;

        Executor(Tool tool) {
            this.tool = tool;
        }

        @Override
        public String execute(ToolExecutionRequest request, Object memoryId) {
            return executeWithContext(request, InvocationContext.builder().chatMemoryId(memoryId).build()).resultText();
        }

        @Override
        public ToolExecutionResult executeWithContext(ToolExecutionRequest request, InvocationContext context) {
            Object memoryId = context == null ? null : context.chatMemoryId();
            Outcome outcome = run(tool, request, context, memoryId);
            if (outcome instanceof Pending p) {
                throw p.exception();
            }
            return ((Ran) outcome).result();
        }
    }

    /** A call of the memory's last AI message that has no result in the memory: its result, or why it has none yet. */
    private Outcome finish(Object memoryId, ToolExecutionRequest request) {
        if (request.id() == null || request.id().isBlank()) {
            return new Finished(error(request, "not run: the call has no id, so Tether could not track it"));
        }
        Optional<CallView> call = store.call(memoryId, request.id());
        if (call.isEmpty()) {
            return new Finished(error(request, "not run: Tether has no record of call " + request.id() + " (its AI message was not stored as a"
                    + " typed message)"));
        }
        Tool tool = tools.get(request.name());
        if (call.get().runner() == Runner.HARNESS && tool != null) {
            Outcome outcome = run(tool, request, InvocationContext.builder().chatMemoryId(memoryId).build(), memoryId);
            return outcome instanceof Ran r ? new Finished(ToolExecutionResultMessage.builder().id(request.id()).toolName(request.name())
                    .contents(r.result().resultContents()).isError(r.result().isError()).attributes(r.result().attributes()).build()) : outcome;
        }
        Optional<ToolExecutionResultMessage> recorded = store.resultMessage(memoryId, request.id());
        if (recorded.isPresent()) {
            return new Finished(recorded.get());
        }
        if (call.get().runner() == Runner.HARNESS) {
            throw new TetherMemoryException("call " + request.id() + " of tool " + request.name() + " runs through Tether's harness-run protocol,"
                    + " but this store has no tool of that name to run it with");
        }
        return new Finished(error(request, "interrupted: the process running this conversation stopped before call " + request.id() + " ("
                + request.name() + ") reported a result; whether it ran is not known (a tool not run through Tether has no exactly-once"
                + " guarantee)"));
    }

    private static ToolExecutionResultMessage error(ToolExecutionRequest request, String text) {
        return ToolExecutionResultMessage.builder().id(request.id()).toolName(request.name()).text(text).isError(true).build();
    }

    /** Runs call {@code request.id()} of the memory through Tether's harness-run protocol ({@link HarnessToolRunner}). */
    private Outcome run(Tool tool, ToolExecutionRequest request, InvocationContext context, Object memoryId) {
        String name = tool.declaration().name();
        if (memoryId == null) {
            throw new TetherMemoryException("tool " + name + " runs through Tether: give the AI Service a chat memory on the TetherChatMemoryStore");
        }
        if (request.id() == null || request.id().isBlank()) {
            throw new TetherMemoryException("tool " + name + " runs through Tether, which tracks a call by its id; the model gave this call none");
        }
        String callId = request.id();
        Claimed claim = store.claimFor(memoryId);
        CallView call = store.call(memoryId, callId).orElseThrow(() -> new TetherMemoryException("call " + callId + " of " + name
                + " is not in the log of session " + claim.sessionId() + ": its AI message was not stored as a typed message (a call id used"
                + " before in the session, or one longer than the 128 characters Tether takes?)"));
        if (call.runner() != Runner.HARNESS) {
            throw new TetherMemoryException("call " + callId + " of " + name + " is not declared as run by the harness in session "
                    + claim.sessionId() + " (it was created with other tools)");
        }
        var live = new AtomicReference<ToolExecutionResult>();
        var builder = HarnessToolRunner.builder(store.client(), claim).authorizationTimeout(authorizationTimeout);
        if (tool.declaration().canReconcile()) {
            builder.tool(tool.declaration(), invocation -> invoke(tool, request, context, invocation, live), tool.reconciler());
        } else {
            builder.tool(tool.declaration(), invocation -> invoke(tool, request, context, invocation, live));
        }
        HarnessRunResult result;
        try {
            result = builder.build().run(call.askSeq(), callId);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new TetherMemoryException("interrupted while running call " + callId + " of " + name, e);
        }
        if (result instanceof ToolCompleted c) {
            if (c.how() == ToolCompleted.How.RAN && live.get() != null) {
                return new Ran(live.get());
            }
            // the result as Tether recorded it: its whole text (the runner's content is the event's, a preview when it was offloaded)
            String text = store.resultMessage(memoryId, callId).map(MessageMapping::textOf).orElse(c.content().orElse(""));
            return new Ran(ToolExecutionResult.builder().resultText(text).isError(c.status() == ToolStatus.ERROR).build());
        } else if (result instanceof ToolDenied || result instanceof ToolCancelled) {
            // Tether writes the result of a call it denied or cancelled (the approval-service): the memory refers to it
            ToolExecutionResultMessage recorded = awaitResult(memoryId, callId);
            return new Ran(ToolExecutionResult.builder().resultText(MessageMapping.textOf(recorded)).isError(true).build());
        } else if (result instanceof ToolResolvedByPerson r) {
            boolean done = r.resolution().equals("MARK_DONE");
            return new Ran(ToolExecutionResult.builder().resultText((done ? "done (marked by " : "abandoned by ") + r.approver() + "): " + r.reason())
                    .isError(!done).build());
        } else if (result instanceof ToolOutcomeUnknown u) {
            return new Pending(new ToolCallPendingException(claim.sessionId(), callId, name, ToolCallPendingException.Reason.OUTCOME_UNKNOWN,
                    claim.sessionId() + "~" + u.seq()));
        } else if (result instanceof NotYetAuthorized n) {
            long item = store.call(memoryId, callId).map(CallView::itemSeq).orElse(0L);
            return new Pending(new ToolCallPendingException(claim.sessionId(), callId, name, n.awaitingApproval()
                    ? ToolCallPendingException.Reason.AWAITING_APPROVAL : ToolCallPendingException.Reason.AWAITING_AUTHORIZATION,
                    item > 0 ? claim.sessionId() + "~" + item : null));
        } else if (result instanceof Fenced f) {
            throw store.fenced(memoryId, f.currentEpoch());
        } else if (result instanceof NotFound nf) {
            throw new TetherMemoryException("call " + callId + " of " + name + ": " + nf.message());
        }
        Rejected r = (Rejected) result;
        throw new TetherMemoryException("Tether refused call " + callId + " of " + name + " (" + r.code() + r.field().map(f -> ", field " + f).orElse("")
                + "): " + r.message());
    }

    /** One attempt: the tool's method with the attempt's key in its invocation parameters. */
    private static ToolOutput invoke(Tool tool, ToolExecutionRequest request, InvocationContext context, ToolInvocation attempt,
                                     AtomicReference<ToolExecutionResult> live) throws Exception {
        var parameters = new HashMap<String, Object>();
        if (context != null && context.invocationParameters() != null) {
            parameters.putAll(context.invocationParameters().asMap());
        }
        parameters.put(IDEMPOTENCY_KEY, attempt.idempotencyKey());
        parameters.put(ATTEMPT, attempt.attempt());
        InvocationContext.Builder withKey = context == null ? InvocationContext.builder() : context.toBuilder();
        InvocationContext invocation = withKey.invocationParameters(InvocationParameters.from(parameters)).build();
        ToolExecutionResult result;
        try {
            result = tool.original().toolExecutor().executeWithContext(request, invocation);
        } catch (ToolArgumentsException e) {
            // the method never ran: the arguments do not fit it
            result = ToolExecutionResult.builder().isError(true).resultText("invalid arguments for " + tool.declaration().name() + ": "
                    + (e.getCause() != null ? e.getCause().getMessage() : e.getMessage())).build();
        } catch (ToolExecutionException e) {
            // the method threw: a read-only call ends ERROR; a mutating one may have taken effect (reconciled, or a person decides)
            throw e.getCause() instanceof Exception cause ? cause : e;
        }
        live.set(result);
        String text = textOf(result);
        return result.isError() ? ToolOutput.error(text) : ToolOutput.ok(text);
    }

    private static String textOf(ToolExecutionResult result) {
        List<Content> contents = result.resultContents();
        String texts = contents.stream().filter(c -> c instanceof TextContent).map(c -> ((TextContent) c).text()).collect(Collectors.joining("\n"));
        long others = contents.stream().filter(c -> !(c instanceof TextContent)).count();
        return others == 0 ? texts : texts + (texts.isEmpty() ? "" : "\n") + "[" + others + " non-text content(s)]";
    }

    /** The call's result message once Tether has recorded its result (a denial's or a cancellation's comes from Tether itself). */
    private ToolExecutionResultMessage awaitResult(Object memoryId, String callId) {
        Optional<ToolExecutionResultMessage> recorded = store.resultMessage(memoryId, callId);
        if (recorded.isPresent()) {
            return recorded.get();
        }
        long from = store.call(memoryId, callId).map(CallView::askSeq).orElse(1L);
        try {
            store.client().awaitEvent(store.sessionIdOf(memoryId), from, e -> e.type().equals("tool_result")
                    && e.text("callId").equals(Optional.of(callId)), RESULT_WAIT);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new TetherMemoryException("interrupted while waiting for the result of call " + callId, e);
        }
        return store.resultMessage(memoryId, callId).orElseThrow(() -> new TetherMemoryException("call " + callId
                + " was denied or cancelled, and Tether recorded no result of it within " + RESULT_WAIT));
    }

    private static int lastAiMessage(List<ChatMessage> messages) {
        for (int i = messages.size() - 1; i >= 0; i--) {
            if (messages.get(i) instanceof AiMessage) {
                return i;
            }
        }
        return -1;
    }
}
