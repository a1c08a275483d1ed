package dev.tether.langchain4j;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import dev.tether.client.Actor;
import dev.tether.client.AppendBatch;
import dev.tether.client.AppendResult;
import dev.tether.client.Appended;
import dev.tether.client.Approval;
import dev.tether.client.ApprovalDecision;
import dev.tether.client.ApprovalFilter;
import dev.tether.client.AwaitResult;
import dev.tether.client.CallRecord;
import dev.tether.client.Checkpoint;
import dev.tether.client.ClaimRequest;
import dev.tether.client.ClaimResult;
import dev.tether.client.Claimed;
import dev.tether.client.Conflict;
import dev.tether.client.ContextQuery;
import dev.tether.client.CreateResult;
import dev.tether.client.Created;
import dev.tether.client.DecisionResult;
import dev.tether.client.EraseResult;
import dev.tether.client.Erased;
import dev.tether.client.EventPage;
import dev.tether.client.Fenced;
import dev.tether.client.ForkResult;
import dev.tether.client.Forked;
import dev.tether.client.HarnessVersion;
import dev.tether.client.HarnessVersionUpdate;
import dev.tether.client.MigrateResult;
import dev.tether.client.ModelContext;
import dev.tether.client.NewEvent;
import dev.tether.client.NewSession;
import dev.tether.client.NotFound;
import dev.tether.client.ReadAt;
import dev.tether.client.RecoveryReport;
import dev.tether.client.Rejected;
import dev.tether.client.SessionEvent;
import dev.tether.client.SessionEventListener;
import dev.tether.client.SessionInfo;
import dev.tether.client.Subscription;
import dev.tether.client.TetherClient;
import dev.tether.client.TetherOptions;
import dev.tether.client.VersionPinned;
import dev.tether.client.VersionResult;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.Predicate;
import java.util.regex.Pattern;

/**
 * An in-memory Tether session-service for the unit tests: the append rules the store relies on (the epoch fences, a
 * stale {@code expectedSeq} conflicts, a known eventId is a duplicate answered with its seq, a call id is used once, a
 * call takes one final result, a compaction's seqs are in the log, a claim by a worker of another harness version than the session's v1 is refused), secret scrubbing (GitHub tokens become {@code [REDACTED:github-token]}) and content
 * offloading over a threshold. A hook ({@link #afterAppend}) plays a service that answers what was appended. Thread-safe.
 */
final class FakeTether implements TetherClient {

    static final String TENANT = "acme";
    static final String PRINCIPAL = "acme-agent";
    private static final Pattern SECRET = Pattern.compile("ghp_[A-Za-z0-9]{36}");
    private static final ObjectMapper JSON = new ObjectMapper();

    private static final class Session {
        final String id;
        final List<SessionEvent> events = new ArrayList<>();
        final Map<String, Long> eventIds = new HashMap<>();
        final Set<String> callIds = new HashSet<>();
        /** Calls with a final result (OK, ERROR, CANCELLED): the sequencer takes no other result of them. */
        final Set<String> finishedCalls = new HashSet<>();
        final Instant startedAt;
        long epoch;
        String modelId;

        Session(String id, Instant startedAt) {
            this.id = id;
            this.startedAt = startedAt;
        }
    }

    private final Map<String, Session> sessions = new HashMap<>();
    private Instant lastStart = Instant.EPOCH;
    private final Map<String, String> blobs = new HashMap<>();
    private int offloadOver = Integer.MAX_VALUE;
    private int maxRequestBytes = Integer.MAX_VALUE;
    private Consumer<SessionEvent> afterAppend = e -> { };
    int appendRequests;

    /** Content longer than {@code chars} is offloaded to a blob; the event keeps a 16-character preview and the reference. */
    synchronized FakeTether offloadingOver(int chars) {
        this.offloadOver = chars;
        return this;
    }

    /**
     * An append whose events, after offloading, are over {@code bytes} (as JSON) is refused with 413 {@code too_large}, as
     * the session-service refuses a command over its {@code maxCommandBytes}.
     */
    synchronized FakeTether refusingRequestsOver(int bytes) {
        this.maxRequestBytes = bytes;
        return this;
    }

    /** Called for each event appended by a client, after the append (e.g. to authorize its calls as the approval-service would). */
    synchronized FakeTether afterAppend(Consumer<SessionEvent> hook) {
        this.afterAppend = hook;
        return this;
    }

    /** Appends events as a service would (no epoch, no expectedSeq), e.g. a {@code tool_call_authorized}. */
    void serviceAppends(String sessionId, String actorKind, NewEvent... events) {
        synchronized (this) {
            Session s = sessions.get(sessionId);
            for (NewEvent e : events) {
                add(s, e.toJson(java.util.UUID.randomUUID().toString()), new Actor(actorKind, "service"));
            }
            notifyAll();
        }
    }

    synchronized List<SessionEvent> log(String sessionId) {
        return List.copyOf(sessions.get(sessionId).events);
    }

    synchronized boolean exists(String sessionId) {
        return sessions.containsKey(sessionId);
    }

    // --- TetherClient ------------------------------------------------------------------------------------------------

    @Override
    public TetherOptions options() {
        return TetherOptions.local();
    }

    @Override
    public synchronized CreateResult createSession(NewSession session) {
        String id = session.sessionId().orElseThrow();
        if (sessions.containsKey(id)) {
            return new Rejected(409, "illegal_event", "the session has started already", Optional.of("events[0].type"));
        }
        Session s = new Session(id, nextStart());
        s.modelId = session.modelId().orElse("model-v1");
        sessions.put(id, s);
        ObjectNode started = JSON.createObjectNode();
        started.put("eventId", "start-" + id);
        started.put("type", "session_started");
        started.put("objective", session.objective());
        started.put("systemPrompt", scrub(session.systemPrompt().orElse("")).text);
        started.put("modelId", s.modelId);
        started.put("harnessVersion", "v1");
        started.put("toolMode", session.toolMode().name());
        var tools = started.putArray("harnessTools");
        session.harnessTools().forEach(t -> tools.addObject().put("name", t.name()).put("mutating", t.mutating())
                .put("canReconcile", t.canReconcile()).put("recordedOnly", t.recordedOnly()));
        add(s, started, new Actor("USER", PRINCIPAL));
        return new Created(id, 1, "v1", s.modelId, 0, Optional.of(s.startedAt));
    }

    @Override
    public synchronized List<SessionInfo> sessions() {
        return sessions.keySet().stream().map(id -> session(id).orElseThrow()).toList();
    }

    @Override
    public List<SessionInfo> sessions(SessionInfo.Status status) {
        return sessions();
    }

    @Override
    public synchronized Optional<SessionInfo> session(String sessionId) {
        Session s = sessions.get(sessionId);
        return s == null ? Optional.empty() : Optional.of(new SessionInfo(sessionId, TENANT, PRINCIPAL, "ACTIVE", s.events.size(), s.epoch,
                Optional.empty(), s.modelId, "v1", Optional.empty(), Optional.empty()));
    }

    @Override
    public synchronized ClaimResult claim(String sessionId, ClaimRequest claim) {
        Session s = sessions.get(sessionId);
        if (s == null) {
            return new NotFound("session " + sessionId + " not found");
        }
        if (!claim.harnessVersion().equals("v1")) {
            return new VersionPinned("the session is pinned to harness version v1, the worker runs " + claim.harnessVersion());
        }
        boolean resumed = s.epoch > 0;
        s.epoch++;
        ObjectNode claimed = JSON.createObjectNode().put("eventId", "claim-" + s.epoch).put("type", "session_claimed")
                .put("workerId", claim.workerId()).put("epoch", s.epoch).put("harnessVersion", claim.harnessVersion());
        add(s, claimed, new Actor("SYSTEM", PRINCIPAL));
        if (resumed) {
            add(s, JSON.createObjectNode().put("eventId", "resumed-" + s.epoch).put("type", "session_resumed").put("reason", "CRASH"),
                    new Actor("SYSTEM", PRINCIPAL));
        }
        notifyAll();
        return new Claimed(sessionId, claim.workerId(), s.epoch, resumed ? Optional.of("CRASH") : Optional.empty(), s.events.size(),
                Optional.of(s.startedAt));
    }

    @Override
    public AppendResult append(String sessionId, AppendBatch batch) {
        List<SessionEvent> appended;
        Appended answer;
        synchronized (this) {
            appendRequests++;
            Session s = sessions.get(sessionId);
            if (s == null || batch.sessionStartedAt().filter(at -> !at.equals(s.startedAt)).isPresent()) {
                return new NotFound("session " + sessionId + " not found");
            }
            if (batch.epoch().isPresent() && batch.epoch().getAsLong() != s.epoch) {
                return new Fenced(s.epoch, "stale epoch " + batch.epoch().getAsLong());
            }
            List<String> ids = batch.eventIds(sessionId);
            var out = new ArrayList<Appended.AppendedEvent>();
            if (ids.stream().allMatch(s.eventIds::containsKey)) {
                ids.forEach(id -> out.add(new Appended.AppendedEvent(id, s.eventIds.get(id), true)));
                return new Appended(out, s.events.size(), 0);
            }
            if (batch.expectedSeq().isPresent() && batch.expectedSeq().getAsLong() != s.events.size()) {
                return new Conflict(s.events.size(), "the session's last seq is " + s.events.size());
            }
            var calls = new HashSet<String>();
            var results = new HashSet<String>();
            for (int i = 0; i < batch.events().size(); i++) {
                NewEvent e = batch.events().get(i);
                String refusal = refusal(s, e, calls, results);
                if (refusal != null) {
                    return new Rejected(409, "illegal_event", refusal, Optional.of("events[" + i + "]"));
                }
            }
            int size = 0;
            for (int i = 0; i < batch.events().size(); i++) {
                ObjectNode json = batch.events().get(i).toJson(ids.get(i));
                scrubFields(json);
                offload(json);
                size += json.toString().getBytes(StandardCharsets.UTF_8).length;
            }
            if (size > maxRequestBytes) {
                return new Rejected(413, "too_large", "the request is " + size + " bytes after large content was offloaded; the limit is "
                        + maxRequestBytes, Optional.empty());
            }
            int redactions = 0;
            appended = new ArrayList<>();
            for (int i = 0; i < batch.events().size(); i++) {
                ObjectNode json = batch.events().get(i).toJson(ids.get(i));
                redactions += scrubFields(json);
                offload(json);
                String type = batch.events().get(i).type();
                String kind = switch (type) {
                    case "user_message" -> "USER";
                    case "tool_result", "tool_call_started" -> "TOOL";
                    default -> "MODEL";
                };
                SessionEvent event = add(s, json, new Actor(kind, PRINCIPAL));
                out.add(new Appended.AppendedEvent(ids.get(i), event.seq(), false));
                appended.add(event);
            }
            answer = new Appended(out, s.events.size(), redactions);
            notifyAll();
        }
        appended.forEach(e -> afterAppend.accept(e));
        return answer;
    }

    private static String refusal(Session s, NewEvent e, Set<String> batchCalls, Set<String> batchResults) {
        ObjectNode f = e.fields();
        switch (e.type()) {
            case "assistant_message" -> {
                for (JsonNode c : f.path("toolCalls")) {
                    if (c.path("callId").asText().length() > 128 || c.path("tool").asText().length() > 128) {
                        return "a call id and a tool name are at most 128 characters"; // the sequencer's MAX_CALL_ID, MAX_TOOL_NAME
                    }
                    if (s.callIds.contains(c.path("callId").asText()) || !batchCalls.add(c.path("callId").asText())) {
                        return "call id " + c.path("callId").asText() + " was used before";
                    }
                }
            }
            case "tool_result" -> {
                String callId = f.path("callId").asText();
                if (!s.callIds.contains(callId) && !batchCalls.contains(callId)) {
                    return "tool_result of call " + callId + ", which no assistant_message asked for";
                }
                if (s.finishedCalls.contains(callId) || !batchResults.add(callId)) {
                    return "call '" + callId + "' is not an open tool call (unknown, or already finished)";
                }
            }
            case "context_compacted" -> {
                if (f.path("throughSeq").asLong() > s.events.size() || f.path("throughSeq").asLong() < 1) {
                    return "throughSeq is after the session's last seq";
                }
                for (JsonNode source : f.path("summarySourceSeqs")) {
                    if (source.asLong() < 1 || source.asLong() > f.path("throughSeq").asLong()) {
                        return "summarySourceSeqs must be events at or before throughSeq";
                    }
                }
            }
            case "framework_state" -> {
                try {
                    JSON.readTree(f.path("content").asText());
                } catch (Exception bad) {
                    return "content is not JSON";
                }
            }
            default -> { }
        }
        return null;
    }

    /** A session's start: whole milliseconds, as the sequencer keeps it, and never one an earlier session had. */
    private Instant nextStart() {
        Instant now = Instant.now().truncatedTo(java.time.temporal.ChronoUnit.MILLIS);
        lastStart = now.isAfter(lastStart) ? now : lastStart.plusMillis(1);
        return lastStart;
    }

    private SessionEvent add(Session s, ObjectNode json, Actor actor) {
        long seq = s.events.size() + 1;
        json.put("seq", seq);
        json.put("sessionId", s.id);
        String eventId = json.path("eventId").asText();
        var event = new SessionEvent(seq, eventId, json.path("type").asText(), s.id, seq == 1 ? s.startedAt : Instant.now(), actor, "v1", json);
        s.events.add(event);
        s.eventIds.put(eventId, seq);
        if (event.type().equals("assistant_message")) {
            json.path("toolCalls").forEach(c -> s.callIds.add(c.path("callId").asText()));
        } else if (event.type().equals("tool_result") && !json.path("status").asText().equals("UNKNOWN")) {
            s.finishedCalls.add(json.path("callId").asText());
        }
        return event;
    }

    private record Scrubbed(String text, int count) {}

    private static Scrubbed scrub(String text) {
        var m = SECRET.matcher(text);
        int count = 0;
        var out = new StringBuilder();
        while (m.find()) {
            count++;
            m.appendReplacement(out, "[REDACTED:github-token]");
        }
        m.appendTail(out);
        return new Scrubbed(out.toString(), count);
    }

    /** Scrubs every string value of the event, nested ones too; the number of secrets found. */
    private static int scrubFields(ObjectNode json) {
        int count = 0;
        for (Iterator<Map.Entry<String, JsonNode>> it = json.fields(); it.hasNext(); ) {
            var field = it.next();
            if (field.getValue().isTextual()) {
                Scrubbed s = scrub(field.getValue().asText());
                count += s.count();
                field.setValue(new TextNode(s.text()));
            } else if (field.getValue().isObject()) {
                count += scrubFields((ObjectNode) field.getValue());
            } else if (field.getValue().isArray()) {
                for (JsonNode item : field.getValue()) {
                    if (item.isObject()) {
                        count += scrubFields((ObjectNode) item);
                    }
                }
            }
        }
        return count;
    }

    private void offload(ObjectNode json) {
        String field = json.path("type").asText().equals("context_compacted") ? "summary" : "content";
        String ref = field.equals("summary") ? "summaryRef" : json.path("type").asText().equals("user_message")
                || json.path("type").asText().equals("assistant_message") ? "contentRef" : "artifact";
        String text = json.path(field).asText(null);
        if (text == null || text.length() <= offloadOver) {
            return;
        }
        String sha = sha256(text);
        blobs.put(sha, text);
        json.put(field, text.substring(0, 16));
        json.putObject(ref).put("uri", "blob://" + TENANT + "/" + sha).put("sha256", sha).put("size", text.getBytes(StandardCharsets.UTF_8).length);
    }

    private static String sha256(String text) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8)));
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public synchronized Optional<EventPage> events(String sessionId, long fromSeq, int limit) {
        Session s = sessions.get(sessionId);
        if (s == null) {
            return Optional.empty();
        }
        int from = (int) Math.min(fromSeq - 1, s.events.size());
        int to = Math.min(from + limit, s.events.size());
        return Optional.of(new EventPage(List.copyOf(s.events.subList(from, to)), s.events.size(), to + 1L));
    }

    @Override
    public synchronized Optional<List<SessionEvent>> allEvents(String sessionId) {
        Session s = sessions.get(sessionId);
        return s == null ? Optional.empty() : Optional.of(List.copyOf(s.events));
    }

    @Override
    public synchronized Optional<String> artifactText(String sha256) {
        return Optional.ofNullable(blobs.get(sha256));
    }

    @Override
    public Optional<SessionEvent> awaitEvent(String sessionId, long fromSeq, Predicate<SessionEvent> match, Duration timeout)
            throws InterruptedException {
        long end = System.nanoTime() + timeout.toNanos();
        synchronized (this) {
            while (true) {
                Session s = sessions.get(sessionId);
                if (s != null) {
                    for (SessionEvent e : s.events) {
                        if (e.seq() >= fromSeq && match.test(e)) {
                            return Optional.of(e);
                        }
                    }
                }
                long left = end - System.nanoTime();
                if (left <= 0) {
                    return Optional.empty();
                }
                wait(Math.max(1, left / 1_000_000));
            }
        }
    }

    @Override
    public synchronized EraseResult erase(String sessionId) {
        Session s = sessions.remove(sessionId);
        return s == null ? new NotFound("session " + sessionId + " not found") : new Erased(sessionId, s.events.size());
    }

    /** As the session-service: nothing erased once another worker claimed the session, or when it is another session of the id. */
    @Override
    public synchronized EraseResult erase(Claimed claim) {
        Session s = sessions.get(claim.sessionId());
        if (s == null || claim.sessionStartedAt().filter(at -> !at.equals(s.startedAt)).isPresent()) {
            return new NotFound("session " + claim.sessionId() + " not found");
        }
        if (claim.epoch() != s.epoch) {
            return new Rejected(409, "stale_epoch", "epoch " + claim.epoch() + " is not the session's current epoch " + s.epoch
                    + ": nothing was erased", Optional.empty());
        }
        return erase(claim.sessionId());
    }

    @Override
    public void close() {
    }

    // --- not used by the store ---------------------------------------------------------------------------------------

    @Override
    public Subscription subscribe(String sessionId, long fromSeq, Instant sessionStartedAt, SessionEventListener listener) {
        throw new UnsupportedOperationException();
    }

    @Override
    public ForkResult fork(String sessionId, long atSeq) {
        throw new UnsupportedOperationException();
    }

    /** A fork as the session-service makes it: a session whose seq 1 is {@code session_forked}, with the parent's prompt. */
    @Override
    public synchronized ForkResult fork(String sessionId, long atSeq, String newSessionId) {
        Session parent = sessions.get(sessionId);
        if (parent == null || atSeq < 1 || atSeq > parent.events.size()) {
            return new NotFound("session " + sessionId + " or its seq " + atSeq + " not found");
        }
        if (sessions.containsKey(newSessionId)) {
            return new Rejected(409, "illegal_event", "the session has started already", Optional.of("sessionId"));
        }
        JsonNode start = parent.events.get(0).json();
        Session s = new Session(newSessionId, nextStart());
        s.modelId = parent.modelId;
        sessions.put(newSessionId, s);
        ObjectNode forked = JSON.createObjectNode();
        forked.put("eventId", "fork-" + newSessionId);
        forked.put("type", "session_forked");
        forked.put("parentSessionId", sessionId);
        forked.put("atSeq", atSeq);
        for (String field : List.of("objective", "systemPrompt", "modelId", "harnessVersion", "toolMode")) {
            forked.set(field, start.get(field));
        }
        forked.set("harnessTools", start.get("harnessTools"));
        add(s, forked, new Actor("USER", PRINCIPAL));
        return new Forked(newSessionId, sessionId, atSeq, 1, "v1", s.modelId, java.util.OptionalLong.empty(), Optional.of(s.startedAt));
    }

    @Override
    public dev.tether.client.SubagentStartResult startSubagent(String parentSessionId, dev.tether.client.NewSubagent subagent) {
        throw new UnsupportedOperationException();
    }

    @Override
    public MigrateResult migrate(String sessionId, String toVersion) {
        throw new UnsupportedOperationException();
    }

    @Override
    public Optional<Checkpoint> checkpoint(String sessionId, ReadAt at) {
        throw new UnsupportedOperationException();
    }

    @Override
    public Optional<ModelContext> context(String sessionId, ContextQuery query) {
        throw new UnsupportedOperationException();
    }

    @Override
    public Optional<RecoveryReport> recovery(String sessionId, ReadAt at) {
        throw new UnsupportedOperationException();
    }

    @Override
    public Optional<CallRecord> call(String sessionId, String callId) {
        throw new UnsupportedOperationException();
    }

    @Override
    public List<Approval> approvals(ApprovalFilter filter) {
        throw new UnsupportedOperationException();
    }

    @Override
    public Optional<Approval> approval(String approvalId) {
        throw new UnsupportedOperationException();
    }

    @Override
    public DecisionResult decide(String approvalId, ApprovalDecision decision) {
        throw new UnsupportedOperationException();
    }

    @Override
    public DecisionResult decide(Approval item, ApprovalDecision decision) {
        throw new UnsupportedOperationException();
    }

    @Override
    public AwaitResult awaitDecision(String approvalId, Duration timeout) {
        throw new UnsupportedOperationException();
    }

    @Override
    public List<HarnessVersion> harnessVersions() {
        throw new UnsupportedOperationException();
    }

    @Override
    public VersionResult putHarnessVersion(HarnessVersionUpdate update) {
        throw new UnsupportedOperationException();
    }
}
