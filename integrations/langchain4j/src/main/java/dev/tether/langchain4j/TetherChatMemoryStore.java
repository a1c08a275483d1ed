package dev.tether.langchain4j;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.SystemMessage;
import dev.langchain4j.data.message.ToolExecutionResultMessage;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.observability.api.listener.AiServiceResponseReceivedListener;
import dev.langchain4j.store.memory.chat.ChatMemoryStore;
import dev.tether.client.AppendBatch;
import dev.tether.client.AppendResult;
import dev.tether.client.Appended;
import dev.tether.client.ClaimRequest;
import dev.tether.client.ClaimResult;
import dev.tether.client.Claimed;
import dev.tether.client.Conflict;
import dev.tether.client.CreateResult;
import dev.tether.client.Created;
import dev.tether.client.EventPage;
import dev.tether.client.Fenced;
import dev.tether.client.HarnessTool;
import dev.tether.client.NewEvent;
import dev.tether.client.NewSession;
import dev.tether.client.NotFound;
import dev.tether.client.Rejected;
import dev.tether.client.SessionEvent;
import dev.tether.client.SessionInfo;
import dev.tether.client.TetherClient;
import dev.tether.client.TokenUsage;
import dev.tether.client.ToolCall;
import dev.tether.client.ToolReconciler;
import dev.tether.client.ToolStatus;
import dev.tether.core.id.IdempotencyKey;
import dev.tether.langchain4j.MemoryLog.Call;
import dev.tether.langchain4j.MemoryLog.Logged;
import dev.tether.langchain4j.MemoryLog.Runner;
import dev.tether.langchain4j.MemoryRecords.Added;
import dev.tether.langchain4j.MemoryRecords.Item;
import dev.tether.langchain4j.MemoryRecords.Kept;
import dev.tether.langchain4j.MemoryRecords.Memory;
import dev.tether.langchain4j.MemoryRecords.Ref;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.regex.Pattern;

/**
 * A LangChain4j {@link ChatMemoryStore} that keeps each chat memory in a Tether session: the memory id maps to a session
 * of the client's tenant ({@link #sessionIdOf}), created the first time the memory is written.
 *
 * <ul>
 *   <li><b>Messages once.</b> An update that extends the stored list appends only its new messages, each as the typed
 *       event that fits it ({@code user_message}, {@code assistant_message} with the AI message's tool execution
 *       requests as its tool calls and, with {@link #usageListener()}, its token usage, {@code tool_result}, the
 *       session's system prompt), plus a small {@code framework_state} record of the list as references. A message no
 *       typed event fits is stored whole as a record. Tether's model context, recovery report and secret scrubbing see
 *       the conversation (secrets come back redacted: Tether never stores them).</li>
 *   <li><b>Rewrites as compactions.</b> An update that drops the oldest messages (a window evicting, a summarizer) is
 *       recorded as a {@code context_compacted} whose originals stay in the log; the record keeps the rest by range,
 *       so storage stays linear in the conversation.</li>
 *   <li><b>Exactly what was written.</b> {@link #getMessages} returns the list the last update wrote, equal message for
 *       message (what a typed event does not hold of a message is kept beside its reference).</li>
 *   <li><b>One writer.</b> The store claims a memory's session the first time it writes to it and appends under that
 *       claim's epoch; once another process claims it, writes throw {@link MemoryTakenOverException}.</li>
 *   <li><b>Tools run once</b> through {@link #tools()}: see {@link TetherTools}.</li>
 * </ul>
 *
 * <p>Thread-safe: the work on one memory is serialised; one store per process is enough. Reads follow the log: each
 * call reads what was appended since the last one (one request when nothing was).
 */
public final class TetherChatMemoryStore implements ChatMemoryStore {

    /** Put before a memory id to make its session id, unless the builder says otherwise. */
    public static final String DEFAULT_PREFIX = "lc4j-";

    private static final Pattern SESSION_ID = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,127}");
    private static final int PAGE = 500;
    private static final int CONFLICT_RETRIES = 8;
    private static final int USAGE_ENTRIES = 256;
    private static final int ARTIFACT_ENTRIES = 32;
    /** The most memories whose logs a store keeps while no call uses them, unless the builder says otherwise. */
    public static final int DEFAULT_MAX_CACHED_MEMORIES = 256;
    /** The longest call id and tool name the sequencer takes in an {@code assistant_message}. */
    private static final int MAX_CALL_ID = 128;
    private static final int MAX_TOOL_NAME = dev.tether.core.event.HarnessTool.MAX_NAME;
    private static final Set<String> MESSAGE_EVENTS = Set.of("user_message", "assistant_message", "tool_result");

    private final TetherClient client;
    private final Function<Object, String> sessionIds;
    private final Function<Object, MemorySession> sessions;
    private final String workerId;
    private final String harnessVersion;
    private final List<HarnessTool> declarations;
    private final TetherTools tools;
    private final MemoryStates<State, Held> memories;
    /** The texts of offloaded messages read lately: a memory read again from its start finds them here. */
    private final Map<String, String> artifacts = java.util.Collections.synchronizedMap(new LinkedHashMap<>(16, 0.75f, true) {
        private static final long serialVersionUID = 1L;

        @Override
        protected boolean removeEldestEntry(Map.Entry<String, String> eldest) {
            return size() > ARTIFACT_ENTRIES;
        }
    });
    /** The usage of the latest responses, by their memory's session and AI message (two memories may get the same answer). */
    private final Map<UsageKey, TokenUsage> usage = java.util.Collections.synchronizedMap(new LinkedHashMap<>() {
        private static final long serialVersionUID = 1L;

        @Override
        protected boolean removeEldestEntry(Map.Entry<UsageKey, TokenUsage> eldest) {
            return size() > USAGE_ENTRIES;
        }
    });

    private TetherChatMemoryStore(Builder b) {
        this.client = b.client;
        this.sessionIds = b.sessionIds != null ? b.sessionIds : id -> defaultSessionId(b.prefix, id);
        this.sessions = b.sessions;
        this.workerId = b.workerId != null ? b.workerId : defaultWorkerId();
        this.harnessVersion = b.harnessVersion;
        this.memories = new MemoryStates<>(b.maxCachedMemories, State::held);
        // a store without tools has a TetherTools too, without tools: its resume takes back a memory another process took over
        this.tools = new TetherTools(this, b.tools, b.mutating, b.authorizationTimeout);
        var declared = new ArrayList<HarnessTool>(tools.declarations());
        declared.add(HarnessTool.recorded(HarnessTool.WILDCARD, false));
        this.declarations = List.copyOf(declared);
    }

    /** A store on {@code client}, whose token (an agent's) says the tenant the memories belong to. */
    public static Builder builder(TetherClient client) {
        return new Builder(client);
    }

    // --- ChatMemoryStore ----------------------------------------------------------------------------------------------

    /** The memory's messages as the last update wrote them; empty for a memory never written (or deleted). */
    @Override
    public List<ChatMessage> getMessages(Object memoryId) {
        return locked(memoryId, state -> {
            sync(state);
            return state.list.stream().map(Entry::message).toList();
        });
    }

    /**
     * Stores {@code messages} as the memory: appends its new messages as typed events (and a compaction when the oldest
     * ones were dropped), then the record of the list, in one append.
     *
     * @throws MemoryTakenOverException if another process claimed the memory's session
     * @throws TetherMemoryException    if Tether refused the write (nothing was appended)
     */
    @Override
    public void updateMessages(Object memoryId, List<ChatMessage> messages) {
        Objects.requireNonNull(messages, "messages");
        for (int i = 0; i < messages.size(); i++) {
            if (messages.get(i) == null) {
                throw new NullPointerException("messages[" + i + "] is null (memory " + memoryId + "): nothing was stored");
            }
        }
        List<ChatMessage> next = List.copyOf(messages);
        locked(memoryId, state -> {
            if (state.lost != null) {
                throw state.lost;
            }
            if (!state.read) {
                sync(state);
            }
            if (next.equals(state.messages())) {
                return null;
            }
            if (state.log.lastSeq() == 0 && next.isEmpty()) {
                return null;
            }
            writable(state, next);
            writeInParts(state, next);
            return null;
        });
    }

    /**
     * Erases the memory's session (every event of it; Tether's right-to-be-forgotten erasure). The next update starts a new
     * one. A store that wrote to the memory erases it as its writer: once another process has claimed the memory's session,
     * nothing is erased and this throws {@link MemoryTakenOverException}, as a write would.
     *
     * @throws MemoryTakenOverException if another process claimed the memory's session after this store did
     * @throws TetherMemoryException    if Tether refused the erasure (nothing was erased)
     */
    @Override
    public void deleteMessages(Object memoryId) {
        locked(memoryId, state -> {
            if (state.lost != null) {
                throw state.lost;
            }
            var erased = state.claim == null ? client.erase(state.sessionId) : client.erase(state.claim);
            if (erased instanceof Rejected r && r.code().equals("stale_epoch")) {
                sync(state); // the claim that took the memory over, for the exception to name
                throw fenced(memoryId, state.log.claimEpoch());
            }
            if (erased instanceof Rejected r) {
                throw new TetherMemoryException("cannot delete the memory of session " + state.sessionId + ": " + r.code() + " " + r.message());
            }
            state.reset();
            return null;
        });
    }

    // --- what else the store offers ------------------------------------------------------------------------------------

    /**
     * The session id of a memory: the prefix and the memory id's text, or the prefix and a hash when that is not a valid
     * session id (1-128 letters, digits, {@code . _ -}). Session ids are Tether's, across tenants: two tenants whose
     * stores use the same prefix and memory ids cannot both have the session (the second is refused); give each
     * application its prefix, or map ids with {@link Builder#sessionIds}.
     */
    public String sessionIdOf(Object memoryId) {
        String sessionId = sessionIds.apply(Objects.requireNonNull(memoryId, "memoryId"));
        if (sessionId == null || sessionId.isBlank()) {
            throw new TetherMemoryException("the store's sessionIds mapping gave memory " + memoryId + " no session id");
        }
        return sessionId;
    }

    /**
     * The tools given to the builder, wrapped to run through Tether: pass it to {@code AiServices.toolProvider(...)}
     * (or its {@link TetherTools#aiServiceTools()} to {@code AiServices.tools(...)}). A store built without tools has one
     * without tools, whose {@link TetherTools#resume} takes a memory back after another process took it over.
     */
    public TetherTools tools() {
        return tools;
    }

    /**
     * A listener for {@code AiServices.registerListeners(...)} that tells the store each response's token usage, so the
     * {@code assistant_message} of its AI message carries it (Tether counts it against the session's budget). Without
     * it, AI messages are appended with no usage.
     */
    public AiServiceResponseReceivedListener usageListener() {
        return event -> {
            var response = event.response();
            if (response != null && response.aiMessage() != null && response.tokenUsage() != null) {
                var u = response.tokenUsage();
                Object memoryId = event.invocationContext() == null ? null : event.invocationContext().chatMemoryId();
                usage.put(new UsageKey(usageSession(memoryId), response.aiMessage()),
                        new TokenUsage(nonNegative(u.inputTokenCount()), nonNegative(u.outputTokenCount())));
            }
        };
    }

    /** A response's usage is the AI message's of this memory's session (of any memory, when the response named none). */
    private record UsageKey(String sessionId, AiMessage message) {}

    private String usageSession(Object memoryId) {
        if (memoryId == null) {
            return "";
        }
        try {
            return sessionIdOf(memoryId);
        } catch (TetherMemoryException e) {
            return ""; // the update of that memory will say so; a listener must not fail the invocation
        }
    }

    /** The memories whose logs the store holds now (at most {@link Builder#maxCachedMemories} while none is in use). */
    int cachedMemories() {
        return memories.size();
    }

    /** The client this store appends with. */
    public TetherClient client() {
        return client;
    }

    @Override
    public String toString() {
        return "TetherChatMemoryStore[worker " + workerId + ", " + memories.size() + " memories in memory]";
    }

    // --- for TetherTools ----------------------------------------------------------------------------------------------

    /** The store's claim of the memory's session, claiming it first if it has none (the session must exist). */
    Claimed claimFor(Object memoryId) {
        return locked(memoryId, state -> {
            if (state.lost != null) {
                throw state.lost;
            }
            if (state.claim == null) {
                if (!sync(state)) {
                    throw new TetherMemoryException("memory " + memoryId + " has no session " + state.sessionId + " yet: nothing to run");
                }
                claim(state, harnessVersion);
            }
            return state.claim;
        });
    }

    /**
     * A claim of the memory's session that is its latest, for {@link TetherTools#resume}: this store's own when no one
     * claimed the session since, else a new one — resuming takes the memory over, fencing a process that still works on
     * it, whether this store claimed it before, lost it to another process since, or never had it.
     */
    Claimed takeOver(Object memoryId) {
        return locked(memoryId, state -> {
            if (!sync(state)) {
                throw new TetherMemoryException("memory " + memoryId + " has no session " + state.sessionId + " yet: nothing to resume");
            }
            if (state.lost != null || state.claim == null || state.claim.epoch() != state.log.claimEpoch()) {
                claim(state, harnessVersion);
                state.lost = null;
                if (!sync(state)) { // erased between the claim and the read
                    throw new TetherMemoryException("memory " + memoryId + ": its session " + state.sessionId + " is gone (erased?)");
                }
            }
            return state.claim;
        });
    }

    /** What the log says of call {@code callId} of the memory's session, read up to now. */
    Optional<CallView> call(Object memoryId, String callId) {
        return locked(memoryId, state -> {
            Optional<Call> known = state.log.call(callId);
            if (known.isEmpty() || known.get().resultSeq == 0) {
                sync(state);
                known = state.log.call(callId);
            }
            return known.filter(c -> askedByMemory(state, c))
                    .map(c -> new CallView(c.callId, c.tool, c.askSeq, c.runner, c.resultSeq, c.itemSeq));
        });
    }

    /**
     * Whether the memory's latest AI message that asks for {@code call}'s id is the {@code assistant_message} that asked
     * for it in the log. A model that uses a call id again in a later turn (some number their calls per turn) makes an AI
     * message the store keeps whole, as a record: its call is not the log's call of that id, and must never get that
     * call's result. True when the memory holds no AI message asking for the id.
     */
    private static boolean askedByMemory(State state, Call call) {
        for (int i = state.list.size() - 1; i >= 0; i--) {
            Entry entry = state.list.get(i);
            if (entry.message() instanceof AiMessage ai && ai.hasToolExecutionRequests()
                    && ai.toolExecutionRequests().stream().anyMatch(r -> call.callId.equals(r.id()))) {
                return entry.ref().seq() == call.askSeq;
            }
        }
        return true;
    }

    /**
     * The result message the call's {@code tool_result} stands for (the log read up to now); empty while it has none, or
     * only an UNKNOWN one that no person settled.
     */
    Optional<ToolExecutionResultMessage> resultMessage(Object memoryId, String callId) {
        return locked(memoryId, state -> {
            sync(state);
            Optional<Call> call = state.log.call(callId);
            if (call.isEmpty() || !call.get().answered()) {
                return Optional.empty();
            }
            Logged event = state.log.event(call.get().resultSeq);
            return Optional.of((ToolExecutionResultMessage) MessageMapping.fromEvent(event.type(), event.json(), fullText(event),
                    id -> state.log.call(id).map(c -> c.tool).orElse(null)));
        });
    }

    /** The store's claim of the memory was refused with {@code fenced}: later writes throw without trying. */
    MemoryTakenOverException fenced(Object memoryId, long currentEpoch) {
        return locked(memoryId, state -> {
            state.lost = new MemoryTakenOverException(state.sessionId, state.claim == null ? 0 : state.claim.epoch(), currentEpoch);
            return state.lost;
        });
    }

    /** A call as the tool bridge needs it: its tool, the event that asked for it, who runs it, its result and item. */
    record CallView(String callId, String tool, long askSeq, Runner runner, long resultSeq, long itemSeq) {}

    // --- the per-memory state -----------------------------------------------------------------------------------------

    /** One message of the memory as last written or read, and where it is in the log. */
    record Entry(ChatMessage message, Ref ref) {}

    private static final class State {
        final Object memoryId;
        final String sessionId;
        final ReentrantLock lock = new ReentrantLock();
        MemoryLog log;
        boolean read;
        Claimed claim;
        MemoryTakenOverException lost;
        /** The memory as the memory record at {@link #listRecord} holds it. */
        List<Entry> list = List.of();
        long listRecord;
        final Map<Long, ChatMessage> wholeMessages = new HashMap<>();

        /**
         * A memory evicted ({@link MemoryStates}) starts again with its claim and take-over: with the claim, a write
         * into a session another process took over meanwhile is fenced, and one into a session erased and made again
         * under its id is refused (not_found), as an update would have been had it stayed.
         */
        State(Object memoryId, String sessionId, Held held) {
            this.memoryId = memoryId;
            this.sessionId = sessionId;
            this.log = new MemoryLog(sessionId);
            if (held != null) {
                claim = held.claim();
                lost = held.lost();
            }
        }

        /** What this state leaves behind when it is evicted: its claim and take-over, if it has either. */
        Held held() {
            return claim == null && lost == null ? null : new Held(claim, lost);
        }

        <T> T locked(Supplier<T> work) {
            lock.lock();
            try {
                return work.get();
            } finally {
                lock.unlock();
            }
        }

        List<ChatMessage> messages() {
            return list.stream().map(Entry::message).toList();
        }

        void reset() {
            log = new MemoryLog(sessionId);
            read = false;
            claim = null;
            lost = null;
            list = List.of();
            listRecord = 0;
            wholeMessages.clear();
        }
    }

    /** What an evicted memory's state holds on to. */
    private record Held(Claimed claim, MemoryTakenOverException lost) {}

    /** Runs {@code work} on the memory's state, alone: the work on one memory is serialised. */
    private <T> T locked(Object memoryId, Function<State, T> work) {
        String sessionId = sessionIdOf(memoryId);
        State state = memories.acquire(sessionId, held -> new State(memoryId, sessionId, held));
        try {
            return state.locked(() -> work.apply(state));
        } finally {
            memories.release(sessionId);
        }
    }

    // --- reading ------------------------------------------------------------------------------------------------------

    /** Reads the events appended since the fold's last seq, and the memory as its latest record holds it; false if there is no session. */
    private boolean sync(State state) {
        while (true) {
            long known = state.log.lastSeq();
            // from the last seq folded (when there is one), to see it is still the event folded: else the session was
            // erased and made again under its id, however long its log is now
            Optional<EventPage> page = client.events(state.sessionId, Math.max(1, known), PAGE);
            if (page.isEmpty()) {
                // erased meanwhile (a delete elsewhere), or before this state was made again from what an evicted one
                // held: start over, claim and take-over included (nothing is left to fence, or to be fenced from)
                state.reset();
                state.read = true;
                return false;
            }
            List<SessionEvent> events = page.get().events();
            if (known > 0) {
                if (page.get().lastSeq() < known || events.isEmpty() || events.get(0).seq() != known
                        || !events.get(0).eventId().equals(state.log.event(known).json().path("eventId").asText())) {
                    // erased and started again: read it from its start; a store another process took the memory from
                    // stays refused (as one that evicted the memory meanwhile is) until it resumes
                    MemoryTakenOverException lost = state.lost;
                    state.reset();
                    state.lost = lost;
                    continue;
                }
                events = events.subList(1, events.size());
            }
            for (SessionEvent event : events) {
                state.log.add(event);
            }
            if (events.isEmpty() || page.get().atEnd()) {
                break;
            }
        }
        state.read = true;
        long latest = state.log.latestMemoryRecord();
        if (latest != state.listRecord) {
            state.list = listAt(state, latest);
            state.listRecord = latest;
        }
        return true;
    }

    /** The memory the record at {@code recordSeq} holds: its chain of bases walked back to the list known already or to its start, then forward. */
    private List<Entry> listAt(State state, long recordSeq) {
        var chain = new ArrayList<Memory>();
        List<Entry> list = List.of();
        for (long at = recordSeq; at != 0; ) {
            if (at == state.listRecord) {
                list = state.list;
                break;
            }
            Memory record = Memory.fromJson(recordContent(state.log.event(at)));
            chain.add(record);
            at = record.base();
        }
        for (int i = chain.size() - 1; i >= 0; i--) {
            var next = new ArrayList<Entry>();
            for (Item item : chain.get(i).items()) {
                if (item instanceof Kept k) {
                    if (k.to() > list.size()) {
                        throw new TetherMemoryException(state.sessionId + ": a memory record keeps messages [" + k.from() + ", " + k.to()
                                + ") of a list of " + list.size());
                    }
                    next.addAll(list.subList(k.from(), k.to()));
                } else {
                    Ref ref = ((Added) item).ref();
                    next.add(new Entry(message(state, ref), ref));
                }
            }
            list = List.copyOf(next);
        }
        return list;
    }

    /** The message {@code ref} stands for. */
    private ChatMessage message(State state, Ref ref) {
        Logged event = state.log.event(ref.seq());
        if (event.type().equals("framework_state")) {
            return state.wholeMessages.computeIfAbsent(ref.seq(), s -> MessageMapping.fromJson(recordContent(event)));
        }
        return MessageMapping.restore(ref, event.type(), event.json(), fullText(event), toolOf(state.log, Map.of()));
    }

    /** A {@code framework_state} record's content as JSON, from its artifact when it was offloaded. */
    private JsonNode recordContent(Logged event) {
        String text = event.offloadedSha().map(this::artifact).orElseGet(() -> event.text("content"));
        try {
            return MessageMapping.JSON.readTree(text);
        } catch (JsonProcessingException e) {
            throw new TetherMemoryException("the record at " + event.seq() + " is not JSON", e);
        }
    }

    /** The whole text a typed event holds of its message (content, summary, system prompt), from its artifact when it was offloaded. */
    private String fullText(Logged event) {
        Optional<String> sha = event.offloadedSha();
        if (sha.isPresent()) {
            return artifact(sha.get());
        }
        String field = switch (event.type()) {
            case "session_started", "session_forked" -> "systemPrompt";
            case "context_compacted" -> "summary";
            default -> "content";
        };
        String text = event.text(field);
        return text == null ? "" : text;
    }

    private String artifact(String sha256) {
        String text = artifacts.get(sha256);
        if (text == null) { // read outside the map's lock: other memories' reads do not wait for this one
            text = client.artifactText(sha256)
                    .orElseThrow(() -> new TetherMemoryException("the blob " + sha256 + " an event refers to is not there"));
            artifacts.put(sha256, text);
        }
        return text;
    }

    // --- writing ------------------------------------------------------------------------------------------------------

    /** Makes sure the store has claimed the memory's session, creating the session first if there is none. */
    private void writable(State state, List<ChatMessage> first) {
        if (state.claim != null) {
            return;
        }
        String version = harnessVersion;
        if (state.log.lastSeq() == 0) {
            MemorySession wanted = sessions.apply(state.memoryId);
            String systemPrompt = !first.isEmpty() && first.get(0) instanceof SystemMessage s ? s.text() : wanted.systemPrompt();
            NewSession session = (wanted.modelId() == null ? NewSession.of(wanted.objective(), wanted.toolMode())
                    : NewSession.of(wanted.objective(), wanted.modelId(), wanted.toolMode()))
                    .withSessionId(state.sessionId).withConstraints(wanted.constraints()).withHarnessTools(declarations);
            if (systemPrompt != null) {
                session = session.withSystemPrompt(systemPrompt);
            }
            if (wanted.tokenBudget() != null) {
                session = session.withTokenBudget(wanted.tokenBudget());
            }
            if (harnessVersion != null) {
                session = session.withHarnessVersion(harnessVersion);
            }
            CreateResult created = client.createSession(session);
            if (created instanceof Rejected && sync(state)) {
                created = null; // another process of this application created it meanwhile: claim it
            } else if (created instanceof Rejected r) {
                throw new TetherMemoryException("cannot start a session for memory " + state.memoryId + " (" + state.sessionId + "): " + r.code()
                        + r.field().map(f -> " (field " + f + ")").orElse("") + ": " + r.message()
                        + (r.status() == 404 ? " — another tenant may hold this session id: give the store another prefix" : ""));
            }
            if (version == null && created instanceof Created c) {
                version = c.harnessVersion();
            }
        }
        claim(state, version);
        if (!sync(state)) { // erased between the claim and the read: nothing to write into
            throw new TetherMemoryException("memory " + state.memoryId + ": its session " + state.sessionId + " is gone (erased?)");
        }
    }

    private void claim(State state, String version) {
        if (version == null) {
            version = client.session(state.sessionId).map(SessionInfo::harnessVersion)
                    .orElseThrow(() -> new TetherMemoryException("memory " + state.memoryId + ": its session " + state.sessionId + " is gone"));
        }
        ClaimResult claim = client.claim(state.sessionId, ClaimRequest.of(workerId, version));
        if (claim instanceof Claimed c) {
            state.claim = c;
            return;
        }
        throw new TetherMemoryException("cannot claim the memory's session " + state.sessionId + ": " + claim);
    }

    /**
     * {@link #write}, in parts when Tether refuses the update as too large for one append (the session-service takes a
     * command of at most {@code maxCommandBytes} after offloading, 512 KiB by default: a few hundred messages, or several
     * just under the offload threshold — an imported conversation, a turn's tool results). Each part is a whole memory:
     * the list up to about half of the new messages, then the rest, so a crash between parts leaves a prefix of the list,
     * each message once, which the next update extends. A single new message too large is refused as before.
     */
    private void writeInParts(State state, List<ChatMessage> next) {
        try {
            write(state, next);
        } catch (TooLarge tooLarge) {
            Rewrite rewrite = Rewrite.of(state.messages(), next);
            var added = new ArrayList<Integer>();
            for (int i = 0; i < rewrite.size(); i++) {
                if (!rewrite.kept(i)) {
                    added.add(i);
                }
            }
            if (added.size() < 2) {
                throw tooLarge;
            }
            int cut = added.get(added.size() / 2 - 1) + 1; // at least one new message on each side
            writeInParts(state, next.subList(0, cut));
            // the rest after the part as stored (a secret in it comes back redacted, and must not read as another message)
            var rest = new ArrayList<>(state.messages());
            rest.addAll(next.subList(cut, next.size()));
            writeInParts(state, List.copyOf(rest));
        }
    }

    /** Tether refused an update as too large for one append (413). */
    private static final class TooLarge extends TetherMemoryException {
        private static final long serialVersionUID = 1L;

        TooLarge(String message) {
            super(message);
        }
    }

    /**
     * Appends what {@link #plan} puts into a batch, under the claim's epoch and at the log's last seq as the store knows
     * it (so the seqs the record refers to are the ones its events get). When the log moved meanwhile (an approval, a
     * tool's start or result) the sequencer answers a conflict and appends nothing: the log is read again and the batch
     * planned again. One request when nothing moved.
     */
    private void write(State state, List<ChatMessage> next) {
        boolean synced = false;
        for (int attempt = 1; ; attempt++) {
            Batch batch;
            try {
                batch = plan(state, next);
            } catch (ResultNotInTether missing) {
                if (synced) {
                    throw new TetherMemoryException("the memory holds a result of call " + missing.callId + " (" + missing.tool + "), which runs"
                            + " through Tether's harness-run protocol, but Tether has no result of it: the tool bridge did not finish it (it"
                            + " waits for an approver, its outcome is unknown, or an error handler turned an exception into a result);"
                            + " TetherTools.resume(memoryId) takes it from where it is");
                }
                sync(state);
                synced = true;
                continue;
            }
            long expectedSeq = state.log.lastSeq();
            AppendResult result = client.append(state.sessionId, AppendBatch.forStep(stepOf(state, expectedSeq, batch), batch.events)
                    .expectingSeq(expectedSeq).underClaim(state.claim));
            if (result instanceof Appended a) {
                if (a.redactions() > 0 || a.events().stream().anyMatch(Appended.AppendedEvent::duplicate)) {
                    sync(state); // what the log holds is not exactly what was sent (secrets redacted): read it
                } else {
                    for (int i = 0; i < batch.events.size(); i++) {
                        state.log.add(a.events().get(i).seq(), batch.events.get(i).type(), sent(state, a.events().get(i), batch.events.get(i)));
                    }
                    state.list = List.copyOf(batch.entries);
                    state.listRecord = a.events().get(a.events().size() - 1).seq();
                }
                return;
            } else if (result instanceof Conflict c) {
                if (attempt >= CONFLICT_RETRIES) {
                    throw new TetherMemoryException("memory " + state.memoryId + ": the log kept moving (" + attempt + " attempts): " + c.message());
                }
                sync(state);
                synced = true;
                if (next.equals(state.messages())) {
                    return; // the log has it already (an earlier attempt of this write got there)
                }
            } else if (result instanceof Fenced f) {
                state.lost = new MemoryTakenOverException(state.sessionId, state.claim.epoch(), f.currentEpoch());
                throw state.lost;
            } else if (result instanceof NotFound) {
                state.reset();
                throw new TetherMemoryException("memory " + state.memoryId + ": its session " + state.sessionId + " is gone (erased?)");
            } else {
                Rejected r = (Rejected) result;
                String refused = "memory " + state.memoryId + ": Tether refused the write (" + r.status() + " " + r.code()
                        + r.field().map(f -> ", field " + f).orElse("") + "): " + r.message();
                throw r.status() == 413 ? new TooLarge(refused) : new TetherMemoryException(refused);
            }
        }
    }

    /** The events of one update: new message events, a compaction, and last the memory record; with the list it makes. */
    private static final class Batch {
        final List<NewEvent> events = new ArrayList<>();
        final List<Entry> entries = new ArrayList<>();
        /** Calls asked for earlier in this batch: callId → (seq of its assistant message, tool, runner, answered). */
        final Map<String, BatchCall> calls = new HashMap<>();
    }

    private static final class BatchCall {
        final long askSeq;
        final String tool;
        final Runner runner;
        boolean answered;

        BatchCall(long askSeq, String tool, Runner runner) {
            this.askSeq = askSeq;
            this.tool = tool;
            this.runner = runner;
        }
    }

    /** A tool result of a harness-run call Tether has no result of (yet). */
    private static final class ResultNotInTether extends RuntimeException {
        private static final long serialVersionUID = 1L;
        final String callId;
        final String tool;

        ResultNotInTether(String callId, String tool) {
            super(null, null, false, false);
            this.callId = callId;
            this.tool = tool;
        }
    }

    /** The batch that makes the memory {@code next}: with a compaction when the oldest messages were dropped, else without. */
    private Batch plan(State state, List<ChatMessage> next) {
        Rewrite rewrite = Rewrite.of(state.messages(), next);
        Compaction compaction = compaction(state, rewrite, next);
        if (compaction != null) {
            Batch batch = plan(state, next, rewrite, compaction);
            if (compaction.holds(state, batch)) {
                return batch;
            }
        }
        return plan(state, next, rewrite, null);
    }

    private Batch plan(State state, List<ChatMessage> next, Rewrite rewrite, Compaction compaction) {
        var batch = new Batch();
        var items = new ArrayList<Item>();
        if (compaction != null) {
            batch.events.add(NewEvent.contextCompacted(compaction.through, compaction.summary, compaction.sources));
        }
        for (int i = 0; i < next.size(); i++) {
            if (rewrite.kept(i)) {
                int from = rewrite.oldIndex(i);
                if (!items.isEmpty() && items.get(items.size() - 1) instanceof Kept k && k.to() == from) {
                    items.set(items.size() - 1, new Kept(k.from(), from + 1));
                } else {
                    items.add(new Kept(from, from + 1));
                }
                batch.entries.add(state.list.get(from));
                continue;
            }
            ChatMessage message = next.get(i);
            Ref ref;
            if (compaction != null && compaction.summaryIndex == i) {
                long seq = state.log.lastSeq() + 1; // the compaction is the batch's first event
                ObjectNode fields = MessageMapping.JSON.createObjectNode().put("summary", compaction.summary);
                ref = MessageMapping.refTo(seq, message, "context_compacted", fields, compaction.summary, id -> null);
            } else {
                ref = planMessage(state, batch, message);
            }
            items.add(new Added(ref));
            batch.entries.add(new Entry(message, ref));
        }
        long base = items.stream().anyMatch(it -> it instanceof Kept) ? state.listRecord : 0;
        batch.events.add(NewEvent.frameworkState(MemoryRecords.FRAMEWORK, MemoryRecords.MEMORY, printable(String.valueOf(state.memoryId)),
                new Memory(base, items).toJson()));
        return batch;
    }

    /** Where a new message goes: a typed event or a message record appended in this batch, or an event already in the log. */
    private Ref planMessage(State state, Batch batch, ChatMessage message) {
        MemoryLog log = state.log;
        long seq = log.lastSeq() + 1 + batch.events.size();
        Function<String, String> toolOf = toolOf(log, batch.calls);
        if (message instanceof SystemMessage s && s.text().equals(log.systemPrompt())) {
            return Ref.to(1); // the session's system prompt (seq 1 is session_started, or a fork's session_forked)
        }
        if (message instanceof UserMessage) {
            return typed(batch, seq, message, NewEvent.userMessage(MessageMapping.textOf(message)), toolOf);
        }
        if (message instanceof AiMessage ai) {
            List<ToolCall> calls = trackableCalls(ai, log, batch);
            if (calls != null) {
                for (ToolCall c : calls) {
                    batch.calls.put(c.callId(), new BatchCall(seq, c.tool(), log.runnerOf(c.tool())));
                }
                TokenUsage used = Optional.ofNullable(usage.get(new UsageKey(state.sessionId, ai)))
                        .or(() -> Optional.ofNullable(usage.get(new UsageKey("", ai)))).orElse(new TokenUsage(0, 0));
                return typed(batch, seq, message, NewEvent.assistantMessage(MessageMapping.textOf(ai), calls, used), toolOf);
            }
        }
        if (message instanceof ToolExecutionResultMessage result && result.id() != null) {
            Optional<Call> logged = log.call(result.id());
            if (logged.isPresent() && logged.get().answered()) {
                // answered already: by its harness-run runner, or an earlier write of the same message; refer to that result
                // (not an UNKNOWN one no person settled: Tether takes no result of that call, and neither does the memory)
                Logged event = log.event(logged.get().resultSeq);
                return MessageMapping.refTo(event.seq(), message, event.type(), event.json(), fullText(event), toolOf);
            }
            BatchCall pending = batch.calls.get(result.id());
            Runner runner = logged.map(c -> c.runner).orElse(pending == null ? null : pending.runner);
            long askSeq = logged.map(c -> c.askSeq).orElse(pending == null ? 0L : pending.askSeq);
            if (runner == Runner.HARNESS) {
                throw new ResultNotInTether(result.id(), logged.map(c -> c.tool).orElse(pending == null ? "?" : pending.tool));
            }
            if (runner == Runner.RECORDED && (pending == null || !pending.answered)) {
                if (pending == null) { // asked for earlier: this batch answers it, and Tether takes no second result of it
                    pending = new BatchCall(askSeq, logged.get().tool, runner);
                    batch.calls.put(result.id(), pending);
                }
                pending.answered = true;
                ToolStatus status = Boolean.TRUE.equals(result.isError()) ? ToolStatus.ERROR : ToolStatus.OK;
                return typed(batch, seq, message, NewEvent.toolResult(result.id(), IdempotencyKey.of(state.sessionId, askSeq, result.id()), status,
                        MessageMapping.textOf(result)), toolOf);
            }
        }
        batch.events.add(NewEvent.frameworkState(MemoryRecords.FRAMEWORK, MemoryRecords.MESSAGE, message.type().name(),
                MessageMapping.toJson(message).toString()));
        return Ref.to(seq);
    }

    private static Ref typed(Batch batch, long seq, ChatMessage message, NewEvent event, Function<String, String> toolOf) {
        batch.events.add(event);
        JsonNode fields = event.fields();
        return MessageMapping.refTo(seq, message, event.type(), fields, fields.path("content").asText(""), toolOf);
    }

    /**
     * The AI message's tool calls as Tether's, or null when Tether cannot track them (no id, a blank name, an id used
     * before, an id or a name longer than the sequencer takes: it would refuse the append, and every later update).
     */
    private static List<ToolCall> trackableCalls(AiMessage ai, MemoryLog log, Batch batch) {
        var calls = new ArrayList<ToolCall>();
        var seen = new HashSet<String>();
        for (ToolExecutionRequest r : ai.toolExecutionRequests()) {
            if (r.id() == null || r.id().isBlank() || r.name() == null || r.name().isBlank() || r.id().length() > MAX_CALL_ID
                    || r.name().length() > MAX_TOOL_NAME || !seen.add(r.id())
                    || log.call(r.id()).isPresent() || batch.calls.containsKey(r.id())) {
                return null;
            }
            calls.add(new ToolCall(r.id(), r.name(), r.arguments() == null ? "{}" : r.arguments()));
        }
        return calls;
    }

    private static Function<String, String> toolOf(MemoryLog log, Map<String, BatchCall> batch) {
        return id -> log.call(id).map(c -> c.tool).orElseGet(() -> batch.containsKey(id) ? batch.get(id).tool : null);
    }

    /**
     * A list that drops messages of the old one, all of them before every message it keeps in the log — what a window
     * over the messages or a summarizer does — is recorded as a {@code context_compacted} through the last dropped
     * message, so Tether's model context drops them too (the originals stay in the log). Its summary is the text of the
     * new message in front of the kept ones when there is one (a summarizer's; that message then refers to the
     * compaction), else the kept earlier summary's, else how many were dropped.
     */
    private Compaction compaction(State state, Rewrite rewrite, List<ChatMessage> next) {
        var keptOld = new HashSet<Integer>();
        for (int i = 0; i < rewrite.size(); i++) {
            if (rewrite.kept(i)) {
                keptOld.add(rewrite.oldIndex(i));
            }
        }
        long through = 0;
        var sources = new TreeSet<Long>();
        int dropped = 0;
        for (int k = 0; k < state.list.size(); k++) {
            if (keptOld.contains(k)) {
                continue;
            }
            Logged event = state.log.event(state.list.get(k).ref().seq());
            if (MESSAGE_EVENTS.contains(event.type())) {
                through = Math.max(through, event.seq());
                sources.add(event.seq());
                dropped++;
            } else if (event.type().equals("context_compacted")) {
                through = Math.max(through, event.seq());
                event.json().path("summarySourceSeqs").forEach(s -> sources.add(s.asLong()));
            }
        }
        if (dropped == 0) {
            return null;
        }
        String keptSummary = null;
        int firstKeptMessage = -1;
        for (int i = 0; i < rewrite.size(); i++) {
            if (!rewrite.kept(i)) {
                continue;
            }
            Logged event = state.log.event(state.list.get(rewrite.oldIndex(i)).ref().seq());
            if (MESSAGE_EVENTS.contains(event.type())) {
                if (event.seq() <= through) {
                    return null; // what stays is not after what goes: no prefix of the log to compact
                }
                if (firstKeptMessage < 0) {
                    firstKeptMessage = i;
                }
            } else if (event.type().equals("context_compacted") && keptSummary == null) {
                keptSummary = fullText(event);
            }
        }
        int summaryIndex = -1;
        for (int i = 0; firstKeptMessage > 0 && i < firstKeptMessage; i++) {
            if (!rewrite.kept(i)) {
                ChatMessage candidate = next.get(i);
                boolean text = (candidate instanceof SystemMessage || candidate instanceof UserMessage || candidate instanceof AiMessage)
                        && !MessageMapping.textOf(candidate).isEmpty() && !(candidate instanceof AiMessage a && a.hasToolExecutionRequests());
                summaryIndex = text ? i : -1;
                break;
            }
        }
        String summary = summaryIndex >= 0 ? MessageMapping.textOf(next.get(summaryIndex))
                : keptSummary != null ? keptSummary + "\n\n(" + messages(dropped) + " later dropped from the chat memory since.)"
                : messages(dropped) + " earlier dropped from the chat memory.";
        return new Compaction(through, summary, List.copyOf(sources), summaryIndex);
    }

    private static String messages(int n) {
        return n == 1 ? "1 message" : n + " messages";
    }

    private record Compaction(long through, String summary, List<Long> sources, int summaryIndex) {

        /** Whether no message of the planned list but the summary refers to a message event at or before the compaction point. */
        boolean holds(State state, Batch batch) {
            long first = state.log.lastSeq() + 1;
            for (int i = 0; i < batch.entries.size(); i++) {
                long seq = batch.entries.get(i).ref().seq();
                if (i == summaryIndex || seq >= first) {
                    continue;
                }
                if (seq <= through && MESSAGE_EVENTS.contains(state.log.event(seq).type())) {
                    return false;
                }
            }
            return true;
        }
    }

    /** An event this store appended, as the log holds it (the sequencer redacted nothing from it). */
    private static ObjectNode sent(State state, Appended.AppendedEvent appended, NewEvent event) {
        ObjectNode json = event.toJson(appended.eventId());
        json.put("seq", appended.seq());
        json.put("sessionId", state.sessionId);
        return json;
    }

    /** The step of a batch: its events at this position of the log, so the same write from the same place is the same step. */
    private static String stepOf(State state, long expectedSeq, Batch batch) {
        var text = new StringBuilder();
        batch.events.forEach(e -> text.append(e.type()).append('\n').append(e.fields()).append('\n'));
        return "lc4j/" + expectedSeq + "/" + digest(text.toString());
    }

    // --- ids ----------------------------------------------------------------------------------------------------------

    private static String defaultSessionId(String prefix, Object memoryId) {
        String direct = prefix + memoryId;
        return SESSION_ID.matcher(direct).matches() ? direct : prefix + "h" + digest(String.valueOf(memoryId));
    }

    private static String digest(String text) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8))).substring(0, 40);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is part of every Java runtime", e);
        }
    }

    /** {@code text} as a record's key may hold it: no control character (C0, DEL, C1), at most 512 characters, not empty. */
    static String printable(String text) {
        String clean = text.replaceAll("[\\u0000-\\u001f\\u007f-\\u009f]", "?");
        clean = clean.length() > 512 ? clean.substring(0, 512) : clean;
        return clean.isEmpty() ? "-" : clean;
    }

    private static String defaultWorkerId() {
        String host;
        try {
            host = InetAddress.getLocalHost().getHostName();
        } catch (UnknownHostException e) {
            host = "localhost";
        }
        return "lc4j-" + host + "-" + ProcessHandle.current().pid();
    }

    private static long nonNegative(Integer n) {
        return n == null || n < 0 ? 0 : n;
    }

    /** Builds a {@link TetherChatMemoryStore}. Not thread-safe. */
    public static final class Builder {

        private final TetherClient client;
        private String prefix = DEFAULT_PREFIX;
        private Function<Object, String> sessionIds;
        private Function<Object, MemorySession> sessions = id -> MemorySession.of("LangChain4j chat memory " + id);
        private String workerId;
        private String harnessVersion;
        private final List<Object> tools = new ArrayList<>();
        private final Map<String, ToolReconciler> mutating = new LinkedHashMap<>();
        private Duration authorizationTimeout = TetherTools.DEFAULT_AUTHORIZATION_TIMEOUT;
        private int maxCachedMemories = DEFAULT_MAX_CACHED_MEMORIES;

        private Builder(TetherClient client) {
            this.client = Objects.requireNonNull(client, "client");
        }

        /**
         * Put before each memory id to make its session id ({@value #DEFAULT_PREFIX} by default): up to 64 letters, digits,
         * {@code . _ -}, starting with a letter or digit, or empty.
         */
        public Builder sessionPrefix(String prefix) {
            if (!prefix.isEmpty() && !prefix.matches("[A-Za-z0-9][A-Za-z0-9._-]{0,63}")) {
                throw new IllegalArgumentException("sessionPrefix must be up to 64 letters, digits, '.', '_' or '-', starting with a letter or"
                        + " digit");
            }
            this.prefix = prefix;
            return this;
        }

        /** Maps memory ids to session ids yourself (e.g. with your tenant in them), instead of the prefix. */
        public Builder sessionIds(Function<Object, String> mapping) {
            this.sessionIds = Objects.requireNonNull(mapping, "mapping");
            return this;
        }

        /** What a new memory's session is created with; by default the objective {@code LangChain4j chat memory <id>}. */
        public Builder session(Function<Object, MemorySession> template) {
            this.sessions = Objects.requireNonNull(template, "template");
            return this;
        }

        /** This process, as its claims name it; by default {@code lc4j-<host>-<pid>}. */
        public Builder workerId(String id) {
            this.workerId = Objects.requireNonNull(id, "workerId");
            return this;
        }

        /** The harness version this process claims sessions as (and creates them on); by default each session's own. */
        public Builder harnessVersion(String version) {
            this.harnessVersion = Objects.requireNonNull(version, "harnessVersion");
            return this;
        }

        /**
         * Objects whose {@code @Tool} methods the AI Service runs through Tether ({@link #tools()}): each call waits for
         * its authorization, is recorded as started, runs with its idempotency key and has its result appended. A method
         * is read-only unless named in {@link #mutating}. Tools the AI Service runs otherwise are recorded only.
         */
        public Builder tools(Object... objectsWithTools) {
            for (Object o : objectsWithTools) {
                tools.add(Objects.requireNonNull(o, "objectWithTools"));
            }
            return this;
        }

        /**
         * The tool {@code name} changes something outside the conversation: Tether's policy gates it (by default an
         * approver decides each call), and an attempt that started and has no result after a crash is left to an
         * approver (its outcome is unknown).
         */
        public Builder mutating(String name) {
            mutating.put(Objects.requireNonNull(name, "name"), null);
            return this;
        }

        /**
         * As {@link #mutating(String)}, with a hook that finds out, by the attempt's idempotency key, whether an attempt
         * that started and has no result took effect: it did → its result; it provably did not → it runs once more,
         * under a new key; it cannot tell → an approver decides.
         */
        public Builder mutating(String name, ToolReconciler reconciler) {
            mutating.put(Objects.requireNonNull(name, "name"), Objects.requireNonNull(reconciler, "reconciler"));
            return this;
        }

        /**
         * How long a tool call waits for its authorization (an approver's decision) before the AI Service invocation
         * stops with {@link ToolCallPendingException}; {@link TetherTools#DEFAULT_AUTHORIZATION_TIMEOUT} by default.
         */
        public Builder authorizationTimeout(Duration timeout) {
            if (timeout.isNegative()) {
                throw new IllegalArgumentException("authorizationTimeout must not be negative");
            }
            this.authorizationTimeout = timeout;
            return this;
        }

        /**
         * The most memories whose logs the store keeps while no call uses them ({@link #DEFAULT_MAX_CACHED_MEMORIES} by
         * default): beyond it the least recently used are dropped, each keeping only its claim (about 350 bytes, for as long
         * as the store lives), and read again from Tether when next used. The memories in use at once are always kept.
         */
        public Builder maxCachedMemories(int max) {
            if (max < 1) {
                throw new IllegalArgumentException("maxCachedMemories must be at least 1, not " + max);
            }
            this.maxCachedMemories = max;
            return this;
        }

        public TetherChatMemoryStore build() {
            if (tools.isEmpty() && !mutating.isEmpty()) {
                throw new IllegalStateException("mutating tools " + mutating.keySet() + " named, but no tools given");
            }
            return new TetherChatMemoryStore(this);
        }
    }
}
