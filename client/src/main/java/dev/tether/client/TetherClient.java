package dev.tether.client;

import dev.tether.client.internal.HttpTetherClient;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.function.Predicate;

/**
 * The Tether SDK for agent harnesses, operators' tools and approvers' scripts: sessions and their
 * logs (session-service), checkpoints, model context and recovery reports (projector-service),
 * approvals (approval-service), and harness versions for rainbow deploys.
 *
 * <pre>{@code
 * try (TetherClient tether = TetherClient.create(TetherOptions.local().withToken("dev-acme-agent"))) {
 *     Created session = tether.createSession(NewSession.of("Rename Foo to Bar", "claude-sonnet-4", ToolMode.WRITE))
 *             .createdOrThrow();
 *     SessionWriter writer = tether.writer(
 *             tether.claim(session.sessionId(), ClaimRequest.of("worker-a", "v1")).claimedOrThrow());
 *     AppendResult result = writer.append("turn-1", NewEvent.userMessage("Start with src/Foo.java"));
 *     if (result instanceof Appended a) {
 *         ... a.seqs()
 *     } else if (result instanceof Fenced) {
 *         ... // another worker has the session now: stop
 *     }
 * }
 * }</pre>
 *
 * <h2>Results</h2>
 * Writes return a sealed result — the success record ({@link Created}, {@link Claimed},
 * {@link Appended}…) or the refusals that call can meet ({@link Conflict}, {@link Fenced},
 * {@link VersionPinned}, {@link NotFound}, {@link Rejected} naming the field…); every result has an
 * {@code <success>OrThrow()} for scripts ({@code appendedOrThrow()}, {@code claimedOrThrow()}…). Reads return an {@link Optional}, empty when the session (or
 * call, or approval) does not exist for the caller. Nothing returns null. What is not an outcome —
 * the service unreachable after the retries allowed, credentials refused (401), a server error —
 * throws a {@link TetherException}.
 *
 * <h2>Retries</h2>
 * Only calls that are safe to repeat are retried, per {@link TetherOptions#retry()}: reads, appends
 * (their eventIds are deterministic, see {@link EventIds}), creates and forks (the client chooses
 * the new session's id and a first eventId derived from the request), claims and migrations (a
 * request id), and the {@code PUT} of a harness version. {@link #decide} and {@link #erase} are
 * never retried. See {@link RetryPolicy}.
 *
 * <h2>Thread-safety and lifecycle</h2>
 * Thread-safe: share one client across a process's threads (it holds one HTTP connection pool).
 * {@link #close()} ends every open {@link Subscription} and makes every later call throw
 * {@link IllegalStateException}; calls already running finish. Closing twice is harmless.
 */
public interface TetherClient extends AutoCloseable {

    /** A client for the services {@code options} names. Cheap; nothing is contacted until the first call. */
    static TetherClient create(TetherOptions options) {
        return new HttpTetherClient(options);
    }

    TetherOptions options();

    // --- sessions (session-service) ---------------------------------------------------------------

    /**
     * Starts a session ({@code session_started}). Safe to retry: the client chooses the session's id
     * when the request has none, and the event's id is derived from the request, so the same request
     * again answers the same {@link Created}; a different request for an existing id is
     * {@link Rejected} ({@code illegal_event}).
     */
    CreateResult createSession(NewSession session);

    /** The caller's tenant's sessions, open and closed, in id order (read page by page). */
    List<SessionInfo> sessions();

    /** The caller's tenant's sessions with this status. */
    List<SessionInfo> sessions(SessionInfo.Status status);

    /** One session as a list shows it; empty if it does not exist for the caller. */
    Optional<SessionInfo> session(String sessionId);

    /**
     * Claims the session for a worker ({@code session_claimed}, epoch + 1; a re-claim records
     * {@code session_resumed}). Retried with the same request id, so a retry is a no-op.
     */
    ClaimResult claim(String sessionId, ClaimRequest claim);

    /** A writer that appends under {@code claim}'s epoch. */
    default SessionWriter writer(Claimed claim) {
        return new SessionWriter(this, claim);
    }

    /**
     * Appends a batch, all or nothing. Each event's id is derived from the batch's step (or fixed by
     * the event), so a retry — by this client after a lost answer, or by a restarted worker sending
     * the same step again — appends nothing twice and answers the original seqs.
     */
    AppendResult append(String sessionId, AppendBatch batch);

    /** A page of the session's log from {@code fromSeq} (from 1), at most {@code limit} events (1–the service's maximum). */
    Optional<EventPage> events(String sessionId, long fromSeq, int limit);

    /** The session's whole log as it is now, page by page. */
    Optional<List<SessionEvent>> allEvents(String sessionId);

    /**
     * The text of content the session-service offloaded to its blob store: an event whose content was over the offload
     * threshold keeps a preview and a reference ({@code contentRef}, {@code artifact}, {@code summaryRef}: {@code {uri,
     * sha256, size}}); this reads the whole text back (UTF-8) by the reference's {@code sha256}.
     *
     * @param sha256 64 lower-case hex digits
     * @return the text; empty when the caller's tenant has no such blob
     */
    Optional<String> artifactText(String sha256);

    /**
     * Follows the session's events from {@code fromSeq} (from 1): catch-up, then live; reconnects
     * and resumes by itself after a disconnect. The subscription starts at once; an unknown session
     * ends it with {@link SubscriptionEnd.Reason#NOT_FOUND}, and so does one erased while it is
     * followed, even when another is made under its id before it reconnects. A subscription that
     * starts after the session could have been erased and made again names the one it means with
     * {@link #subscribe(String, long, Instant, SessionEventListener)}.
     */
    default Subscription subscribe(String sessionId, long fromSeq, SessionEventListener listener) {
        return subscribe(sessionId, fromSeq, null, listener);
    }

    /**
     * Like {@link #subscribe(String, long, SessionEventListener)}, of the session that started at
     * {@code sessionStartedAt} ({@link Created}, {@link Claimed}, {@link SessionInfo}): should the
     * session under the id be another one, made after that one was erased, the subscription ends with
     * {@link SubscriptionEnd.Reason#NOT_FOUND} rather than follow it.
     *
     * @param sessionStartedAt the session's start, or null for whichever session has the id
     */
    Subscription subscribe(String sessionId, long fromSeq, Instant sessionStartedAt, SessionEventListener listener);

    /**
     * Waits for the first event from {@code fromSeq} on that matches, e.g. the {@code tool_result} of a
     * call: {@code awaitEvent(id, seq, e -> e.type().equals("tool_result") && e.text("callId").equals(Optional.of("c1")), ...)}.
     *
     * @param timeout not negative; one longer than 2^63 ns (about 292 years, e.g. {@code ChronoUnit.FOREVER.getDuration()})
     *                waits without limit
     * @return the event; empty if none matched within {@code timeout}
     * @throws IllegalArgumentException for a negative timeout, before anything is sent
     * @throws TetherException if the session does not exist for the caller or the subscription failed
     */
    Optional<SessionEvent> awaitEvent(String sessionId, long fromSeq, Predicate<SessionEvent> match, Duration timeout)
            throws InterruptedException;

    /**
     * Starts a subagent of {@code parentSessionId}: a session of its own, pinned as the parent is, no wider in tool mode and
     * within what the parent's budget has left; when it closes, only its outcome enters the parent's log. Safe to retry:
     * the client chooses the subagent's id when the request has none, and the event's id is derived from the request and
     * the parent, so the same request again answers the same {@link SubagentStarted}.
     */
    SubagentStartResult startSubagent(String parentSessionId, NewSubagent subagent);

    /** Forks the session at {@code atSeq} into a new session whose id the client chooses. Safe to retry. */
    ForkResult fork(String sessionId, long atSeq);

    /** Forks the session at {@code atSeq} into a new session {@code newSessionId}. Safe to retry. */
    ForkResult fork(String sessionId, long atSeq, String newSessionId);

    /** Erases the session (a tombstone per event). Owner or admin. Never retried. */
    EraseResult erase(String sessionId);

    /**
     * Erases the session {@code claim} holds, as its writer: only while no other worker has claimed it since ({@link Rejected}
     * {@code stale_epoch} otherwise) and only the session of the id that was claimed ({@link NotFound} once that one was
     * erased, even if another has its id now); nothing is erased then. Owner or admin. Never retried.
     */
    EraseResult erase(Claimed claim);

    /** Moves the session to another harness version (operator). Retried with the same request id. */
    MigrateResult migrate(String sessionId, String toVersion);

    // --- projections (projector-service) ---------------------------------------------------------

    /** The session's latest checkpoint. */
    default Optional<Checkpoint> checkpoint(String sessionId) {
        return checkpoint(sessionId, ReadAt.latest());
    }

    /** The session's checkpoint now, at a past seq, or once it has folded a seq. */
    Optional<Checkpoint> checkpoint(String sessionId, ReadAt at);

    /** The session's latest model context in {@code format}. */
    default Optional<ModelContext> context(String sessionId, ContextFormat format) {
        return context(sessionId, ContextQuery.of(format));
    }

    Optional<ModelContext> context(String sessionId, ContextQuery query);

    /** The recovery report of the session's latest checkpoint. */
    default Optional<RecoveryReport> recovery(String sessionId) {
        return recovery(sessionId, ReadAt.latest());
    }

    /**
     * The recovery report, of the latest checkpoint or once it has folded a seq ({@link ReadAt#atLeast});
     * a past seq ({@link ReadAt#seq}) is not offered by the projector and throws {@link IllegalArgumentException}.
     */
    Optional<RecoveryReport> recovery(String sessionId, ReadAt at);

    /** The story of one tool call; empty if the session or the call is unknown. */
    Optional<CallRecord> call(String sessionId, String callId);

    // --- approvals (approval-service; approver or admin) ----------------------------------------

    /** The items of the caller's tenant that {@code filter} selects, oldest first. */
    List<Approval> approvals(ApprovalFilter filter);

    /** One item by its id ({@code <sessionId>~<seq>}), with the whole text shown to approvers. */
    Optional<Approval> approval(String approvalId);

    /**
     * Records a decision in the approver's name on the item named by its id. Never retried: a lost answer throws with
     * {@link TetherException#outcomeUnknown()}. An id is its session's id and a seq, so once that session is erased and
     * made again under its id the same id can name another call: a decision on an item someone read should be made with
     * {@link #decide(Approval, ApprovalDecision)}.
     */
    DecisionResult decide(String approvalId, ApprovalDecision decision);

    /**
     * Records a decision in the approver's name on {@code item} as it was read: the item is named by its id and pinned by
     * when it was requested. If its id names another call now (its session was erased and made again under its id, and
     * another call waits under the same id) nothing is recorded and the answer is {@link NotFound}: the item that was read
     * is gone. An item without {@link Approval#requestedAt()} is refused ({@link IllegalArgumentException}): nothing would
     * pin the decision to it. Never retried, like {@link #decide(String, ApprovalDecision)}.
     */
    DecisionResult decide(Approval item, ApprovalDecision decision);

    /**
     * Polls the item until it is no longer pending, or {@code timeout} has passed: not negative ({@link
     * IllegalArgumentException}); one longer than 2^63 ns polls without limit.
     *
     * @throws InterruptedException if the thread is interrupted, between reads or during one (whose request is cancelled)
     */
    AwaitResult awaitDecision(String approvalId, Duration timeout) throws InterruptedException;

    // --- harness versions (session-service; operator or admin) -----------------------------------

    /** Every harness version, with its weight, share of new sessions, state, model and open sessions. */
    List<HarnessVersion> harnessVersions();

    /**
     * Writes a version's entry (weight, state, model) as a whole. Idempotent; retried. {@link Rejected} (400, field
     * {@code weight}) when the ACTIVE versions' weights would total more than 100.
     */
    VersionResult putHarnessVersion(HarnessVersionUpdate update);

    /**
     * Sends {@code weight} percent (0–100) of new sessions to {@code version}, keeping its model. Weights are percentages:
     * each ACTIVE version takes its weight, the default version (v1 unless configured otherwise) takes what is left over
     * on top of its own, and the ACTIVE weights may total at most 100 ({@link Rejected}, field {@code weight}, otherwise).
     * While the default version is not ACTIVE, the ACTIVE versions share every new session in proportion to their weights.
     * {@link HarnessVersion#share()} is what each version gets.
     */
    default VersionResult setWeight(String version, int weight) {
        HarnessVersionUpdate update = HarnessVersionUpdate.active(version, weight);
        return putHarnessVersion(modelOf(version).map(update::withModelId).orElse(update));
    }

    /** Stops new sessions going to {@code version}; its open sessions carry on. Watch {@link HarnessVersion#openSessions()} reach 0. */
    default VersionResult drain(String version) {
        HarnessVersionUpdate update = HarnessVersionUpdate.draining(version);
        return putHarnessVersion(modelOf(version).map(update::withModelId).orElse(update));
    }

    private Optional<String> modelOf(String version) {
        return harnessVersions().stream().filter(v -> v.version().equals(version)).findFirst().flatMap(HarnessVersion::modelId);
    }

    /** Ends every open subscription; later calls throw {@link IllegalStateException}. Idempotent. */
    @Override
    void close();
}
