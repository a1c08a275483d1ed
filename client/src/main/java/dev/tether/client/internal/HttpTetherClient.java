package dev.tether.client.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
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
import dev.tether.client.ContextQuery;
import dev.tether.client.CreateResult;
import dev.tether.client.Decided;
import dev.tether.client.DecisionResult;
import dev.tether.client.EraseResult;
import dev.tether.client.EventPage;
import dev.tether.client.ForkResult;
import dev.tether.client.HarnessVersion;
import dev.tether.client.HarnessVersionUpdate;
import dev.tether.client.MigrateResult;
import dev.tether.client.ModelContext;
import dev.tether.client.HarnessTool;
import dev.tether.client.NewSession;
import dev.tether.client.NewSubagent;
import dev.tether.client.SubagentStartResult;
import dev.tether.client.NotFound;
import dev.tether.client.ReadAt;
import dev.tether.client.RecoveryReport;
import dev.tether.client.SessionEvent;
import dev.tether.client.SessionEventListener;
import dev.tether.client.SessionInfo;
import dev.tether.client.Settled;
import dev.tether.client.StillPending;
import dev.tether.client.Subscription;
import dev.tether.client.SubscriptionEnd;
import dev.tether.client.TetherClient;
import dev.tether.client.TetherException;
import dev.tether.client.TetherOptions;
import dev.tether.client.VersionResult;
import dev.tether.client.VersionsUpdated;
import dev.tether.client.internal.Transport.Answer;
import dev.tether.client.internal.Transport.Retry;
import dev.tether.core.id.DerivedIds;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * {@link TetherClient} over the services' REST APIs. Not part of the API: create it with
 * {@link TetherClient#create}. Thread-safe.
 */
public final class HttpTetherClient implements TetherClient {

    /** Events (or sessions) per page when reading a whole log (or list): half the session-service's default maximum (1000). */
    private static final int PAGE = 500;
    private static final Duration DECISION_POLL = Duration.ofMillis(500);

    private final TetherOptions options;
    private final Transport transport;
    private final Set<LiveSubscription> subscriptions = ConcurrentHashMap.newKeySet();
    private volatile boolean closed;

    public HttpTetherClient(TetherOptions options) {
        this.options = Objects.requireNonNull(options, "options");
        this.transport = new Transport(options);
    }

    @Override
    public TetherOptions options() {
        return options;
    }

    // --- sessions ---------------------------------------------------------------------------------

    @Override
    public CreateResult createSession(NewSession session) {
        Objects.requireNonNull(session, "session");
        open();
        String sessionId = session.sessionId().orElseGet(() -> UUID.randomUUID().toString());
        ObjectNode body = Json.object();
        body.put("sessionId", sessionId);
        body.put("objective", session.objective());
        session.systemPrompt().ifPresent(p -> body.put("systemPrompt", p));
        session.modelId().ifPresent(m -> body.put("modelId", m));
        body.put("toolMode", session.toolMode().name());
        ArrayNode constraints = body.putArray("constraints");
        session.constraints().forEach(constraints::add);
        session.harnessVersion().ifPresent(v -> body.put("harnessVersion", v));
        session.tokenBudget().ifPresent(b -> body.put("tokenBudget", b));
        putHarnessTools(body, session.harnessTools());
        // derived from the whole request: its retry is a duplicate, another request for the same id is refused
        body.put("eventId", DerivedIds.ofClient(sessionId, "session_started", Json.write(body)));
        Answer answer = transport.send("POST", sessionsApi().path("/v1/sessions").build(), body, Retry.SAFE);
        return answer.ok() ? Wire.created(answer.json()) : Outcomes.rejected(answer.error());
    }

    /** A new session's harness-run tools; left out when none, so such a request (and its derived eventId) is as before. */
    private static void putHarnessTools(ObjectNode body, List<HarnessTool> declared) {
        if (!declared.isEmpty()) {
            ArrayNode tools = body.putArray("harnessTools");
            declared.forEach(t -> tools.addObject().put("name", t.name()).put("mutating", t.mutating())
                    .put("canReconcile", t.canReconcile()).put("recordedOnly", t.recordedOnly()));
        }
    }

    @Override
    public SubagentStartResult startSubagent(String parentSessionId, NewSubagent subagent) {
        Objects.requireNonNull(subagent, "subagent");
        open();
        String sessionId = subagent.sessionId().orElseGet(() -> UUID.randomUUID().toString());
        ObjectNode body = Json.object();
        body.put("sessionId", sessionId);
        body.put("objective", subagent.objective());
        subagent.systemPrompt().ifPresent(p -> body.put("systemPrompt", p));
        body.put("toolMode", subagent.toolMode().name());
        ArrayNode constraints = body.putArray("constraints");
        subagent.constraints().forEach(constraints::add);
        subagent.tokenBudget().ifPresent(b -> body.put("tokenBudget", b));
        putHarnessTools(body, subagent.harnessTools());
        // derived from the parent and the whole request: its retry is a duplicate, another request for the same id is refused
        body.put("eventId", DerivedIds.ofClient(sessionId, "session_started", id(parentSessionId, "parentSessionId"), Json.write(body)));
        Answer answer = transport.send("POST", sessionsApi().path("/v1/sessions").segment(id(parentSessionId, "parentSessionId")).path("/subagents").build(),
                body, Retry.SAFE);
        if (answer.ok()) {
            return Wire.subagentStarted(answer.json());
        }
        return answer.status() == 404 ? Outcomes.notFound(answer.error()) : Outcomes.rejected(answer.error());
    }

    @Override
    public List<SessionInfo> sessions() {
        return sessionList(null);
    }

    @Override
    public List<SessionInfo> sessions(SessionInfo.Status status) {
        return sessionList(Objects.requireNonNull(status, "status").name().toLowerCase(java.util.Locale.ROOT));
    }

    /** Every session of the list, page by page in id order. */
    private List<SessionInfo> sessionList(String status) {
        return everyPage("listing sessions", () -> sessionsApi().path("/v1/sessions").param("status", status), Wire::sessions);
    }

    /**
     * Every element of a paged list, page by page ({@code after} and {@code limit} added to the query {@code list} makes,
     * each page a retried read), in the list's order.
     */
    private <T> List<T> everyPage(String what, Supplier<Uris> list, Function<JsonNode, List<T>> elements) {
        open();
        var all = new ArrayList<T>();
        var asked = new HashSet<String>();
        String after = null;
        do {
            Answer answer = transport.get(list.get().param("after", after).param("limit", PAGE).build());
            if (!answer.ok()) {
                throw Outcomes.failure(what, answer.error());
            }
            all.addAll(elements.apply(answer.json()));
            if (after != null) {
                asked.add(after);
            }
            String next = answer.json().path("nextAfter").isTextual() ? answer.json().get("nextAfter").asText() : null;
            if (next != null && asked.contains(next)) { // a page asked for before: without end, and its elements again each time
                throw new MalformedAnswerException(what + ": the page after " + after + " names the page after " + next
                        + ", read already, as the next");
            }
            after = next;
        } while (after != null);
        return all;
    }

    @Override
    public Optional<SessionInfo> session(String sessionId) {
        return read("reading session " + sessionId, sessionsApi().path("/v1/sessions").segment(id(sessionId, "sessionId")).build(), Wire::sessionInfo);
    }

    @Override
    public ClaimResult claim(String sessionId, ClaimRequest claim) {
        Objects.requireNonNull(claim, "claim");
        open();
        ObjectNode body = Json.object();
        body.put("workerId", claim.workerId());
        body.put("harnessVersion", claim.harnessVersion());
        if (claim.rollout()) {
            body.put("rollout", true);
        }
        body.put("requestId", claim.requestId().orElseGet(() -> UUID.randomUUID().toString()));
        Answer answer = transport.send("POST", sessionsApi().path("/v1/sessions").segment(id(sessionId, "sessionId")).path("/claim").build(), body, Retry.SAFE);
        return answer.ok() ? Wire.claimed(answer.json(), sessionId, claim.workerId()) : Outcomes.claim(answer.error());
    }

    @Override
    public AppendResult append(String sessionId, AppendBatch batch) {
        Objects.requireNonNull(batch, "batch");
        open();
        List<String> ids = batch.eventIds(id(sessionId, "sessionId"));
        ObjectNode body = Json.object();
        ArrayNode events = body.putArray("events");
        for (int i = 0; i < ids.size(); i++) {
            events.add(batch.events().get(i).toJson(ids.get(i)));
        }
        batch.expectedSeq().ifPresent(s -> body.put("expectedSeq", s));
        batch.epoch().ifPresent(e -> body.put("epoch", e));
        batch.sessionStartedAt().ifPresent(at -> body.put("sessionStartedAt", at.toString()));
        // safe to repeat: every eventId is fixed, and the sequencer answers a known one with its original seq
        Answer answer = transport.send("POST", sessionsApi().path("/v1/sessions").segment(sessionId).path("/events").build(), body, Retry.SAFE);
        if (!answer.ok()) {
            return Outcomes.append(answer.error());
        }
        Appended appended = Wire.appended(answer.json());
        // one answer per event, each with its id: else a lost or mangled answer would read as the batch in the log
        if (!appended.events().stream().map(Appended.AppendedEvent::eventId).toList().equals(ids)) {
            throw new MalformedAnswerException("the answer to an append of " + ids.size() + " events to " + sessionId
                    + " does not name them, in order");
        }
        return appended;
    }

    @Override
    public Optional<EventPage> events(String sessionId, long fromSeq, int limit) {
        if (fromSeq < 1) {
            throw new IllegalArgumentException("fromSeq starts at 1, not " + fromSeq);
        }
        if (limit < 1) {
            throw new IllegalArgumentException("limit must be at least 1, not " + limit);
        }
        return read("reading the events of " + sessionId,
                sessionsApi().path("/v1/sessions").segment(id(sessionId, "sessionId")).path("/events").param("fromSeq", fromSeq).param("limit", limit).build(),
                Wire::page);
    }

    @Override
    public Optional<String> artifactText(String sha256) {
        Objects.requireNonNull(sha256, "sha256");
        if (!sha256.matches("[0-9a-f]{64}")) {
            throw new IllegalArgumentException("sha256 must be 64 lower-case hex digits");
        }
        open();
        Answer answer = transport.get(sessionsApi().path("/v1/artifacts").segment(sha256).build());
        if (answer.ok()) {
            return Optional.of(answer.body());
        }
        if (answer.status() == 404) {
            return Optional.empty();
        }
        throw Outcomes.failure("reading artifact " + sha256, answer.error());
    }

    @Override
    public Optional<List<SessionEvent>> allEvents(String sessionId) {
        var all = new ArrayList<SessionEvent>();
        long from = 1;
        while (true) {
            Optional<EventPage> page = events(sessionId, from, PAGE);
            if (page.isEmpty()) {
                return Optional.empty();
            }
            all.addAll(page.get().events());
            if (page.get().events().isEmpty() || page.get().atEnd()) {
                return Optional.of(List.copyOf(all));
            }
            if (page.get().nextSeq() <= from) { // the same events again: without end
                throw new MalformedAnswerException("reading the events of " + sessionId + ": the page from seq " + from + " asks for seq "
                        + page.get().nextSeq() + " next");
            }
            from = page.get().nextSeq();
        }
    }

    @Override
    public Subscription subscribe(String sessionId, long fromSeq, Instant sessionStartedAt, SessionEventListener listener) {
        open();
        Objects.requireNonNull(listener, "listener");
        Uris.of(options.sessionsUri()).segment(id(sessionId, "sessionId")); // refused here, as every path segment is, not on its thread
        var subscription = new LiveSubscription(transport, id(sessionId, "sessionId"), fromSeq, sessionStartedAt, listener,
                subscriptions::remove);
        subscriptions.add(subscription);
        if (closed) { // closed meanwhile: close() may have missed it
            subscriptions.remove(subscription);
            throw new IllegalStateException("the client is closed");
        }
        return subscription.start();
    }

    @Override
    public Optional<SessionEvent> awaitEvent(String sessionId, long fromSeq, Predicate<SessionEvent> match, Duration timeout)
            throws InterruptedException {
        Objects.requireNonNull(match, "match");
        long nanos = waitNanos(timeout, "timeout");
        var found = new CompletableFuture<SessionEvent>();
        var listener = new SessionEventListener() {
            @Override
            public void onEvent(SessionEvent event) {
                if (!found.isDone() && match.test(event)) {
                    found.complete(event);
                }
            }

            @Override
            public void onEnd(SubscriptionEnd end) {
                switch (end.reason()) {
                    case NOT_FOUND -> found.completeExceptionally(new TetherException("session " + sessionId + " not found", null, false));
                    case FAILED -> found.completeExceptionally(end.failure().orElseGet(() -> new TetherException("failed", null, false)));
                    case CLOSED -> found.completeExceptionally(new TetherException("the subscription was closed", null, false));
                }
            }
        };
        Subscription subscription = subscribe(sessionId, fromSeq, listener);
        try {
            return Optional.of(found.get(nanos, TimeUnit.NANOSECONDS));
        } catch (TimeoutException e) {
            return Optional.empty();
        } catch (ExecutionException e) {
            throw e.getCause() instanceof TetherException t ? t : new TetherException("waiting for an event failed", e.getCause(), false);
        } finally {
            subscription.close();
        }
    }

    @Override
    public ForkResult fork(String sessionId, long atSeq) {
        return fork(sessionId, atSeq, UUID.randomUUID().toString());
    }

    @Override
    public ForkResult fork(String sessionId, long atSeq, String newSessionId) {
        id(sessionId, "sessionId");
        open();
        if (atSeq < 1) {
            throw new IllegalArgumentException("atSeq starts at 1, not " + atSeq);
        }
        ObjectNode body = Json.object();
        body.put("atSeq", atSeq);
        body.put("sessionId", id(newSessionId, "newSessionId"));
        body.put("eventId", DerivedIds.ofClient(newSessionId, "session_forked", sessionId, Long.toString(atSeq)));
        Answer answer = transport.send("POST", sessionsApi().path("/v1/sessions").segment(id(sessionId, "sessionId")).path("/fork").build(), body, Retry.SAFE);
        if (answer.ok()) {
            return Wire.forked(answer.json());
        }
        return answer.status() == 404 ? Outcomes.notFound(answer.error()) : Outcomes.rejected(answer.error());
    }

    @Override
    public EraseResult erase(String sessionId) {
        return erase(sessionId, sessionsApi().path("/v1/sessions").segment(id(sessionId, "sessionId")));
    }

    @Override
    public EraseResult erase(Claimed claim) {
        Objects.requireNonNull(claim, "claim");
        Uris uri = sessionsApi().path("/v1/sessions").segment(id(claim.sessionId(), "sessionId")).param("epoch", claim.epoch());
        claim.sessionStartedAt().ifPresent(at -> uri.param("sessionStartedAt", at));
        return erase(claim.sessionId(), uri);
    }

    private EraseResult erase(String sessionId, Uris uri) {
        open();
        Answer answer = transport.send("DELETE", uri.build(), null, Retry.NEVER);
        if (answer.ok()) {
            return Wire.erased(answer.json());
        }
        TetherException unknown = Outcomes.noVerdict("erasing session " + sessionId, answer.error());
        if (unknown != null) {
            throw unknown;
        }
        return answer.status() == 404 ? Outcomes.notFound(answer.error()) : Outcomes.rejected(answer.error());
    }

    @Override
    public MigrateResult migrate(String sessionId, String toVersion) {
        open();
        ObjectNode body = Json.object();
        body.put("toVersion", id(toVersion, "toVersion"));
        body.put("requestId", UUID.randomUUID().toString());
        Answer answer = transport.send("POST", sessionsApi().path("/v1/sessions").segment(id(sessionId, "sessionId")).path("/migrate").build(), body,
                Retry.SAFE);
        if (answer.ok()) {
            return Wire.migrated(answer.json(), sessionId);
        }
        return answer.status() == 404 ? Outcomes.notFound(answer.error()) : Outcomes.rejected(answer.error());
    }

    // --- projections ------------------------------------------------------------------------------

    @Override
    public Optional<Checkpoint> checkpoint(String sessionId, ReadAt at) {
        Objects.requireNonNull(at, "at");
        Uris uri = projectorApi().path("/v1/sessions").segment(id(sessionId, "sessionId")).path("/checkpoint");
        at.atSeq().ifPresent(s -> uri.param("atSeq", s));
        at.minSeq().ifPresent(s -> uri.param("minSeq", s));
        return read("reading the checkpoint of " + sessionId, uri.build(), Wire::checkpoint);
    }

    @Override
    public Optional<ModelContext> context(String sessionId, ContextQuery query) {
        Objects.requireNonNull(query, "query");
        Uris uri = projectorApi().path("/v1/sessions").segment(id(sessionId, "sessionId")).path("/context").param("format", query.format().wireName());
        query.at().atSeq().ifPresent(s -> uri.param("atSeq", s));
        query.at().minSeq().ifPresent(s -> uri.param("minSeq", s));
        query.maxTokens().ifPresent(t -> uri.param("maxTokens", t));
        return read("reading the context of " + sessionId, uri.build(), Wire::context);
    }

    @Override
    public Optional<RecoveryReport> recovery(String sessionId, ReadAt at) {
        Objects.requireNonNull(at, "at");
        if (at.atSeq().isPresent()) {
            throw new IllegalArgumentException("a recovery report is of the latest checkpoint; use ReadAt.latest() or ReadAt.atLeast(seq)");
        }
        Uris uri = projectorApi().path("/v1/sessions").segment(id(sessionId, "sessionId")).path("/recovery");
        at.minSeq().ifPresent(s -> uri.param("minSeq", s));
        return read("reading the recovery report of " + sessionId, uri.build(), Wire::recovery);
    }

    @Override
    public Optional<CallRecord> call(String sessionId, String callId) {
        Objects.requireNonNull(callId, "callId");
        return read("reading call " + callId + " of " + sessionId,
                projectorApi().path("/v1/sessions").segment(id(sessionId, "sessionId")).path("/calls").segment(callId).build(), Wire::callRecord);
    }

    // --- approvals --------------------------------------------------------------------------------

    @Override
    public List<Approval> approvals(ApprovalFilter filter) {
        Objects.requireNonNull(filter, "filter");
        return everyPage("listing approvals", () -> {
            Uris uri = approvalsApi().path("/v1/approvals").param("status", filter.statusFilter().map(Enum::name).orElse("ALL"));
            filter.kindFilter().ifPresent(k -> uri.param("kind", k.name()));
            return uri;
        }, Wire::approvals);
    }

    @Override
    public Optional<Approval> approval(String approvalId) {
        Objects.requireNonNull(approvalId, "approvalId");
        return read("reading approval " + approvalId, approvalsApi().path("/v1/approvals").segment(approvalId).build(), Wire::approval);
    }

    @Override
    public DecisionResult decide(String approvalId, ApprovalDecision decision) {
        return decide(Objects.requireNonNull(approvalId, "approvalId"), null, decision);
    }

    @Override
    public DecisionResult decide(Approval item, ApprovalDecision decision) {
        Objects.requireNonNull(item, "item");
        if (item.requestedAt() == null) { // without it the decision would name the item by its id alone, which may name another call now
            throw new IllegalArgumentException("approval " + item.id() + " has no requestedAt to pin the decision to the item as read;"
                    + " read it again, or decide(approvalId, decision) to name the item by its id alone");
        }
        return decide(item.id(), item.requestedAt(), decision);
    }

    /** {@code seen}: when the item the approver read was requested, or null to name the item by its id alone. */
    private DecisionResult decide(String approvalId, Instant seen, ApprovalDecision decision) {
        Objects.requireNonNull(decision, "decision");
        open();
        ObjectNode body = Json.object();
        body.put("decision", decision.kind().name());
        decision.tool().ifPresent(t -> body.put("tool", t));
        decision.pathGlob().ifPresent(g -> body.put("pathGlob", g));
        body.put("reason", decision.reason());
        if (seen != null) {
            body.put("requestedAt", seen.toString());
        }
        // never repeated: a second decision after a lost answer would be refused, or worse, count twice
        Answer answer = transport.send("POST", approvalsApi().path("/v1/approvals").segment(approvalId).path("/decision").build(), body,
                Retry.NEVER);
        if (answer.ok()) {
            return new Decided(Wire.approval(answer.json()));
        }
        TetherException unknown = Outcomes.noVerdict("deciding " + approvalId, answer.error());
        if (unknown != null) {
            throw unknown;
        }
        return Outcomes.decision(answer.error());
    }

    @Override
    public AwaitResult awaitDecision(String approvalId, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + waitNanos(timeout, "timeout"); // wraps past 2^63: the difference below is still right
        while (true) {
            Optional<Approval> item;
            try {
                item = approval(approvalId);
            } catch (TetherException e) {
                // interrupted while it read the item rather than between reads: the same interrupt, thrown as the method says
                if (e.getCause() instanceof InterruptedException && Thread.interrupted()) {
                    var interrupted = new InterruptedException("interrupted while reading approval " + approvalId);
                    interrupted.initCause(e);
                    throw interrupted;
                }
                throw e;
            }
            if (item.isEmpty()) {
                return new NotFound("approval not found");
            }
            if (!item.get().isPending()) {
                return new Settled(item.get());
            }
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return new StillPending(item.get());
            }
            Thread.sleep(Math.max(1, Math.min(DECISION_POLL.toMillis(), TimeUnit.NANOSECONDS.toMillis(left))));
        }
    }

    // --- harness versions -------------------------------------------------------------------------

    @Override
    public List<HarnessVersion> harnessVersions() {
        open();
        Answer answer = transport.get(sessionsApi().path("/v1/harness-versions").build());
        if (!answer.ok()) {
            throw Outcomes.failure("listing harness versions", answer.error());
        }
        return Wire.versions(answer.json());
    }

    @Override
    public VersionResult putHarnessVersion(HarnessVersionUpdate update) {
        Objects.requireNonNull(update, "update");
        open();
        ObjectNode body = Json.object();
        body.put("version", update.version());
        body.put("weight", update.weight());
        body.put("state", update.state().name());
        update.modelId().ifPresent(m -> body.put("modelId", m));
        Answer answer = transport.send("PUT", sessionsApi().path("/v1/harness-versions").build(), body, Retry.SAFE);
        return answer.ok() ? new VersionsUpdated(Wire.versions(answer.json())) : Outcomes.rejected(answer.error());
    }

    // --- lifecycle --------------------------------------------------------------------------------

    @Override
    public void close() {
        closed = true;
        for (LiveSubscription s : List.copyOf(subscriptions)) {
            s.close();
        }
    }

    @Override
    public String toString() {
        return "TetherClient[" + options + (closed ? ", closed" : "") + "]";
    }

    // ---------------------------------------------------------------------------------------------

    /** A read: the answer, empty on 404, a {@link TetherException} otherwise. */
    private <T> Optional<T> read(String what, URI uri, Function<JsonNode, T> mapper) {
        open();
        Answer answer = transport.get(uri);
        if (answer.ok()) {
            return Optional.of(mapper.apply(answer.json()));
        }
        if (answer.status() == 404) {
            return Optional.empty();
        }
        throw Outcomes.failure(what, answer.error());
    }

    private void open() {
        if (closed) {
            throw new IllegalStateException("the client is closed");
        }
    }

    private static String id(String value, String name) {
        Objects.requireNonNull(value, name);
        if (value.isBlank()) {
            throw new IllegalArgumentException(name + " must not be blank");
        }
        return value;
    }

    /**
     * A wait's length in nanoseconds: not negative; one longer than a long's nanoseconds (about 292 years, e.g.
     * {@code ChronoUnit.FOREVER.getDuration()}) is as long as a long's, where {@link Duration#toNanos()} would throw.
     */
    static long waitNanos(Duration timeout, String name) {
        Objects.requireNonNull(timeout, name);
        if (timeout.isNegative()) {
            throw new IllegalArgumentException(name + " must not be negative, not " + timeout);
        }
        return timeout.compareTo(Duration.ofNanos(Long.MAX_VALUE)) >= 0 ? Long.MAX_VALUE : timeout.toNanos();
    }

    private Uris sessionsApi() {
        return Uris.of(options.sessionsUri());
    }

    private Uris projectorApi() {
        return Uris.of(options.projectorUri());
    }

    private Uris approvalsApi() {
        return Uris.of(options.approvalsUri());
    }
}
