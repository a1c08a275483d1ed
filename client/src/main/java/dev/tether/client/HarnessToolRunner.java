package dev.tether.client;

import dev.tether.client.internal.HarnessCallFold;
import dev.tether.client.internal.MalformedAnswerException;
import dev.tether.core.id.IdempotencyKey;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;

/**
 * Runs the session's harness-run tools with Tether's guarantees (docs/ARCHITECTURE.md §6, "Harness-run tools"): for a
 * call an {@code assistant_message} asked for, {@link #run} waits (up to a deadline) until the call is authorized, by
 * policy or by an approver; records its start ({@code tool_call_started}, with this worker's epoch and the attempt);
 * runs the tool's function with the idempotency key Tether derived ({@code sessionId/seq/callId}); and appends its
 * {@code tool_result} with that key. A denial or an interruption ends the wait ({@link ToolDenied},
 * {@link ToolCancelled}); the function never runs.
 *
 * <pre>{@code
 * HarnessToolRunner runner = HarnessToolRunner.builder(tether, claimed)
 *         .tool(HarnessTool.mutating("charge_card").reconcilable(), payments::charge, payments::reconcile)
 *         .build();
 * // the session declared runner.declarations() in NewSession.withHarnessTools
 * runner.resume();                                                   // after a claim: reconcile what a dead worker left started
 * long seq = writer.append("turn-3", NewEvent.assistantMessage(...)).appendedOrThrow().seqs().get(0);
 * HarnessRunResult result = runner.run(seq, "call-7");               // ToolCompleted, ToolDenied, ToolCancelled, ...
 * }</pre>
 *
 * <p><b>Exactly once.</b> Every step reads the call's story from the log first, so running the same step again — a
 * retry, or a worker that restarted and re-sent its turn — does nothing twice: a call with a result answers it
 * ({@link ToolCompleted.How#REPORTED_BEFORE}), and each event it appends has an id derived from the attempt's key
 * ({@code harness/<key>/start}, {@code /result}, {@code /no-effect}), so a re-sent one is a duplicate with its original
 * seq. A start the client sent again after its answer was lost is answered as a duplicate too: one after the log the run
 * read, with no other start of the key under way in this runner, is the run's own, and the tool runs; so is a start
 * whose every answer was lost (the run threw), for the next run of the call in this runner; either, unless another
 * worker claimed the session since; and an output whose result could not be appended (the run threw) is appended by the next
 * run of the call in this runner. A call that started and has no result (its worker died while it ran) is never started again: its tool's
 * {@link ToolReconciler} (a tool declared {@link HarnessTool#canReconcile()}) asks the external system by the key and
 * the runner reports what it found — the result, or {@code tool_outcome_resolved RETRY} and one more attempt under a
 * new key when it provably had no effect, unless the call was started {@link #MAX_STARTS} times already (counted from
 * the log): then it ends {@code tool_result ERROR}, as the executor stops a call; without a hook, or when the hook cannot tell, the call ends
 * {@code tool_result UNKNOWN} ({@link ToolOutcomeUnknown}) for a person to decide. Every append carries the claim's
 * epoch: once another worker claims the session the runner answers {@link Fenced} and stops.
 *
 * <p>Thread-safe: calls of one session may run on several threads (one thread per call).
 */
public final class HarnessToolRunner {

    /** The default wait for a call's authorization. */
    public static final Duration DEFAULT_AUTHORIZATION_TIMEOUT = Duration.ofMinutes(5);

    /**
     * How many times a call is started at most, as the tool-executor's {@code CallRules.MAX_STARTS}: an attempt its hook
     * proves had no effect is not started again once the call has been started this many times (counted from the log,
     * by the attempt its {@code tool_call_started} records, so a restarted worker gets no fresh starts), but ends
     * {@code tool_result ERROR}, naming this limit and the last failure this runner saw. A tool whose function keeps
     * throwing, or keeps stopping the worker, so stops being run again and again; the model is told. A person's RETRY of
     * an UNKNOWN outcome is still started, once more.
     */
    public static final int MAX_STARTS = 3;

    /** Steps one run takes at most (wait, start, reconcile, RETRY, start again…) before it gives up on a session that keeps moving. */
    private static final int MAX_STEPS = 16;
    private static final int PAGE = 500;

    private record Registered(HarnessTool declaration, HarnessToolFunction function, ToolReconciler reconciler) {}

    private final TetherClient client;
    private final Claimed claim;
    private final SessionWriter writer;
    private final Map<String, Registered> tools;
    private final Duration authorizationTimeout;
    private final Consumer<ToolInvocation> onAuthorized;
    private volatile String principal;
    private volatile Instant sessionStartedAt;
    /** The keys whose start this runner is appending: a start that answers "duplicate" is its own only if it was alone. */
    private final Set<String> starting = ConcurrentHashMap.newKeySet();
    /**
     * What this runner's functions produced whose {@code tool_result} did not get through (the append threw), by the
     * attempt's key: the next run of the call reports it, rather than reconcile the attempt as one a crash left behind.
     */
    private final Map<String, ToolOutput> unreported = new ConcurrentHashMap<>();
    /**
     * The keys whose start this runner appended without learning whether it got in (the append threw), its function not
     * run: a start of the key the next run finds in the log is this runner's own, as a duplicate answered within one run is.
     */
    private final Set<String> startsInDoubt = ConcurrentHashMap.newKeySet();
    /**
     * How this runner's function of a reconcilable tool failed (what it threw), by the attempt's key, for the ERROR of a
     * call that may not be started again ({@link #MAX_STARTS}); until the attempt is reconciled.
     */
    private final Map<String, String> failures = new ConcurrentHashMap<>();

    private HarnessToolRunner(Builder b) {
        this.client = b.client;
        this.claim = b.claim;
        this.writer = client.writer(claim);
        this.tools = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(b.tools));
        this.authorizationTimeout = b.authorizationTimeout;
        this.onAuthorized = b.onAuthorized;
        this.principal = b.principal;
        this.sessionStartedAt = claim.sessionStartedAt().orElse(null);
    }

    /** A runner for the session {@code claim} claimed, appending under its epoch. */
    public static Builder builder(TetherClient client, Claimed claim) {
        return new Builder(client, claim);
    }

    /** The tools to declare when the session starts ({@link NewSession#withHarnessTools}), in the order they were added. */
    public List<HarnessTool> declarations() {
        return tools.values().stream().map(Registered::declaration).toList();
    }

    public String sessionId() {
        return claim.sessionId();
    }

    public long epoch() {
        return claim.epoch();
    }

    /** {@link #run(long, String, Duration)} with the runner's authorization timeout. */
    public HarnessRunResult run(long requestSeq, String callId) throws InterruptedException {
        return run(requestSeq, callId, authorizationTimeout);
    }

    /**
     * Takes call {@code callId}, asked for by the {@code assistant_message} at {@code requestSeq}, as far as it goes: waits
     * up to {@code authorizationTimeout} for its authorization ({@link NotYetAuthorized} after that; nothing ran), starts
     * it, runs its tool's function and reports the result; or reconciles an attempt that started and has no result; or
     * answers the result the log has already.
     *
     * @throws IllegalArgumentException if that event does not ask for the call, or no function was added for its tool
     * @throws HarnessHookException     if the tool's reconciler threw (nothing appended; run again later)
     * @throws TetherException          if a service could not be reached within the client's retries
     * @throws InterruptedException     if the thread is interrupted, while it waits or during a request (which is cancelled);
     *                                  run again later, as after a crash
     */
    public HarnessRunResult run(long requestSeq, String callId, Duration authorizationTimeout) throws InterruptedException {
        Ids.requireText(callId, "callId");
        Instant deadline = deadline(authorizationTimeout);
        try {
            return steps(requestSeq, callId, deadline);
        } catch (TetherException e) {
            throw orInterrupted(e, "running call " + callId + " of " + sessionId());
        }
    }

    /** {@code e}; or, when it is a request's interrupt rather than a wait's, that interrupt, thrown as the methods say. */
    private static TetherException orInterrupted(TetherException e, String what) throws InterruptedException {
        if (e.getCause() instanceof InterruptedException && Thread.interrupted()) {
            var interrupted = new InterruptedException("interrupted while " + what);
            interrupted.initCause(e);
            throw interrupted;
        }
        return e;
    }

    private HarnessRunResult steps(long requestSeq, String callId, Instant deadline) throws InterruptedException {
        int refusals = 0;
        for (int step = 0; step < MAX_STEPS; step++) {
            Optional<HarnessCallFold> read = read(requestSeq, callId);
            if (read.isEmpty()) {
                return new NotFound("session " + sessionId() + " not found");
            }
            HarnessCallFold fold = read.get();
            // the function added for the tool's name, else the one for every other tool (the session's "*" declaration)
            Registered tool = tools.getOrDefault(fold.tool(), tools.get(HarnessTool.WILDCARD));
            if (tool == null) {
                throw new IllegalArgumentException("call " + callId + " is a call of '" + fold.tool() + "', which this runner has no"
                        + " function for (add it, or one for " + HarnessTool.WILDCARD + ", with Builder.tool)");
            }
            HarnessCallFold.Next next = fold.next();
            HarnessRunResult done;
            if (next instanceof HarnessCallFold.Finished f) {
                unreported.remove(fold.key()); // a result someone appended after all (the append that threw, or a person)
                startsInDoubt.remove(fold.key());
                failures.remove(fold.key());
                return f.result();
            } else if (next instanceof HarnessCallFold.Wait w) {
                Duration left = Duration.between(Instant.now(), deadline);
                if (left.isNegative() || left.isZero()) {
                    return new NotYetAuthorized(callId, w.awaitingApproval(), fold.lastSeq());
                }
                if (!awaitChange(fold, left)) {
                    deadline = Instant.MIN; // ran out: answer as the log stands now, an approver asked meanwhile included
                }
                continue;
            } else if (next instanceof HarnessCallFold.Start s) {
                done = start(fold, tool, s);
            } else {
                HarnessCallFold.Reconcile r = (HarnessCallFold.Reconcile) next;
                ToolOutput kept = unreported.get(r.idempotencyKey()); // this runner ran the attempt: only its result's append failed
                if (kept != null) {
                    done = reportRan(invocation(fold, r.attempt(), r.handedKey(), r.idempotencyKey()), kept);
                } else if (startsInDoubt.remove(r.idempotencyKey())) { // this runner's start got in: the attempt never ran
                    done = fold.claimEpoch() > epoch() // unless another worker claimed since: it reconciles the attempt
                            ? new Fenced(fold.claimEpoch(), "session " + sessionId() + " was claimed at epoch " + fold.claimEpoch())
                            : runAttempt(invocation(fold, r.attempt(), r.handedKey(), r.idempotencyKey()), tool);
                } else {
                    done = reconcile(fold, tool, r);
                }
            }
            if (done instanceof Rejected r && ++refusals > 2) {
                return r; // refused again after reading the log again: not a race, a call the sequencer will not take
            } else if (done != null && !(done instanceof Rejected)) {
                return done;
            }
            // the log moved under us (or the step was in it already): read it again and decide again
        }
        throw new IllegalStateException("call " + callId + " of " + sessionId() + " made no progress in " + MAX_STEPS + " steps");
    }

    /** Now plus {@code timeout}, not negative; {@link Instant#MAX} for one longer than that (Instant.plus would throw). */
    private static Instant deadline(Duration timeout) {
        notNegative(timeout);
        Instant now = Instant.now();
        return timeout.compareTo(Duration.between(now, Instant.MAX)) >= 0 ? Instant.MAX : now.plus(timeout);
    }

    private static Duration notNegative(Duration timeout) {
        if (Objects.requireNonNull(timeout, "authorizationTimeout").isNegative()) {
            throw new IllegalArgumentException("authorizationTimeout must not be negative, not " + timeout);
        }
        return timeout;
    }

    /**
     * After a claim: takes every harness-run call the checkpoint (at least as of the claim) has started or authorized,
     * whose tool this runner has a function for, through {@link #run} — a started call without result is reconciled, an
     * authorized one not started runs. Calls waiting for an approver are left for the harness's own steps. Stops at
     * {@link Fenced}.
     *
     * @return one result per call taken, in the checkpoint's order; a {@link NotFound} alone when the session is gone
     */
    public List<HarnessRunResult> resume() throws InterruptedException {
        Optional<Checkpoint> checkpoint;
        try {
            checkpoint = client.checkpoint(sessionId(), ReadAt.atLeast(claim.lastSeq()));
        } catch (TetherException e) {
            throw orInterrupted(e, "reading the checkpoint of " + sessionId());
        }
        if (checkpoint.isEmpty()) {
            return List.of(new NotFound("session " + sessionId() + " not found"));
        }
        var results = new ArrayList<HarnessRunResult>();
        for (Checkpoint.CallCursor c : checkpoint.get().toolCursor()) {
            boolean open = c.state().equals("STARTED") || (c.state().equals("AUTHORIZED") && !c.awaitingApproval());
            if (c.runBy().equals("HARNESS") && open && (tools.containsKey(c.tool()) || tools.containsKey(HarnessTool.WILDCARD))) {
                HarnessRunResult result = run(c.requestSeq(), c.callId(), Duration.ZERO);
                results.add(result);
                if (result instanceof Fenced) {
                    break;
                }
            }
        }
        return List.copyOf(results);
    }

    private Optional<HarnessCallFold> read(long requestSeq, String callId) {
        var fold = new HarnessCallFold(sessionId(), requestSeq, callId);
        long from = requestSeq;
        while (true) {
            Optional<EventPage> page = client.events(sessionId(), from, PAGE);
            if (page.isEmpty()) {
                return Optional.empty();
            }
            page.get().events().forEach(fold::apply);
            if (from == requestSeq && !fold.requestSeen()) {
                throw new IllegalArgumentException("seq " + requestSeq + " of " + sessionId() + " is not an assistant_message asking for call "
                        + callId);
            }
            if (page.get().events().isEmpty() || page.get().atEnd()) {
                return Optional.of(fold);
            }
            if (page.get().nextSeq() <= from) { // the same events again: without end
                throw new MalformedAnswerException("reading the events of " + sessionId() + ": the page from seq " + from + " asks for seq "
                        + page.get().nextSeq() + " next");
            }
            from = page.get().nextSeq();
        }
    }

    /** Follows the live log until the call is no longer waiting; false if {@code left} ran out first. */
    private boolean awaitChange(HarnessCallFold fold, Duration left) throws InterruptedException {
        return client.awaitEvent(sessionId(), fold.lastSeq() + 1, e -> {
            fold.apply(e);
            return !(fold.next() instanceof HarnessCallFold.Wait);
        }, left).isPresent();
    }

    private ToolInvocation invocation(HarnessCallFold fold, int attempt, String handedKey, String logKey) {
        return new ToolInvocation(sessionId(), fold.callId(), fold.tool(), fold.argumentsJson(), fold.requestSeq(), handedKey, attempt,
                epoch(), logKey);
    }

    private HarnessRunResult start(HarnessCallFold fold, Registered tool, HarnessCallFold.Start s) throws InterruptedException {
        Optional<Instant> startedAt = sessionStartedAt();
        if (startedAt.isEmpty()) {
            return new NotFound("session " + sessionId() + " not found");
        }
        String handed = IdempotencyKey.external(s.idempotencyKey(), startedAt.get());
        ToolInvocation call = invocation(fold, s.attempt(), handed, s.idempotencyKey());
        onAuthorized.accept(call);
        boolean alone = starting.add(s.idempotencyKey());
        startsInDoubt.remove(s.idempotencyKey()); // the log has no start of it: the one in doubt did not get in
        AppendResult started;
        try {
            started = writer.append("harness/" + s.idempotencyKey() + "/start",
                    NewEvent.toolCallStarted(call.callId(), s.idempotencyKey(), epoch(), s.attempt(), handed));
        } catch (RuntimeException e) {
            if (alone) {
                startsInDoubt.add(s.idempotencyKey()); // it may have got in: the next run finds it, or starts it again
            }
            throw e;
        } finally {
            if (alone) {
                starting.remove(s.idempotencyKey());
            }
        }
        if (!(started instanceof Appended a)) {
            return refusal(started);
        }
        if (a.allDuplicates()) {
            if (alone && a.events().get(0).seq() > fold.lastSeq()) {
                // a duplicate after the log this run read, with no other start of the key under way here, is this run's own
                // (its answer was lost and the client sent it again) -- or another worker's, which claimed the session and
                // started the call under the same key since (a duplicate is answered before the epoch is checked): the next
                // step reads the log again and runs it as a start in doubt, unless another worker claimed the session since
                startsInDoubt.add(s.idempotencyKey());
            }
            return null; // an earlier run of this step started it: what happened since is in the log (reconcile, or its result)
        }
        return runAttempt(call, tool);
    }

    /** Runs the tool's function for an attempt this runner started, and reports its output. */
    private HarnessRunResult runAttempt(ToolInvocation call, Registered tool) throws InterruptedException {
        ToolOutput output;
        try {
            output = Objects.requireNonNull(tool.function().run(call), "a tool function's output");
        } catch (InterruptedException e) {
            throw e; // the attempt stays started with no result: the next run reconciles it
        } catch (Exception e) {
            if (!tool.declaration().mutating()) {
                output = ToolOutput.error(call.tool() + " failed: " + e);
            } else if (tool.declaration().canReconcile()) {
                failures.put(call.logKey(), call.tool() + " failed: " + e); // for the ERROR once it may not start again
                return null; // it may have taken effect: read the log again and reconcile it by its key
            } else {
                output = ToolOutput.unknown(call.tool() + " threw " + e + " after its start; it may or may not have"
                        + " taken effect, and it has no reconciliation hook");
            }
        }
        return reportRan(call, output);
    }

    /** Reports what this runner's function produced; kept for the next run of the call if the append throws. */
    private HarnessRunResult reportRan(ToolInvocation call, ToolOutput output) {
        unreported.put(call.logKey(), output);
        HarnessRunResult reported = report(call, output, ToolCompleted.How.RAN);
        unreported.remove(call.logKey());
        return reported;
    }

    private HarnessRunResult reconcile(HarnessCallFold fold, Registered tool, HarnessCallFold.Reconcile r) {
        ToolInvocation attempt = invocation(fold, r.attempt(), r.handedKey(), r.idempotencyKey());
        if (tool.reconciler() == null) {
            return report(attempt, ToolOutput.unknown("attempt " + r.attempt() + " of " + attempt.tool() + " started (key "
                    + r.handedKey() + ") and has no result; the tool has no reconciliation hook: a person decides"),
                    ToolCompleted.How.RECONCILED);
        }
        Reconciliation found;
        try {
            found = Objects.requireNonNull(tool.reconciler().reconcile(attempt), "a reconciliation");
        } catch (Exception e) {
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            throw new HarnessHookException(attempt.callId(), e);
        }
        HarnessRunResult done = reconciled(attempt, r, found);
        failures.remove(r.idempotencyKey()); // reported, or retried under a new key (kept if that threw: the next run's ERROR names it)
        return done;
    }

    /** Reports what the hook {@code found} about attempt {@code r}, or retries it (RETRY) if it may start again. */
    private HarnessRunResult reconciled(ToolInvocation attempt, HarnessCallFold.Reconcile r, Reconciliation found) {
        if (found instanceof Reconciliation.TookEffect t) {
            return report(attempt, t.output(), ToolCompleted.How.RECONCILED);
        } else if (found instanceof Reconciliation.CannotTell c) {
            return report(attempt, ToolOutput.unknown(c.reason()), ToolCompleted.How.RECONCILED);
        }
        String why = "reconciled by key " + r.handedKey() + ": no effect (" + ((Reconciliation.NoEffect) found).reason() + ")";
        if (r.attempt() >= MAX_STARTS) { // started the most times a call is, as the executor's calls: it ends ERROR, not started again
            String failure = failures.get(r.idempotencyKey()); // how this runner's function failed, if it ran the attempt
            String started = "started " + r.attempt() + " times, the most a call is (MAX_STARTS = " + MAX_STARTS + "), and is not"
                    + " started again: attempt " + r.attempt() + " was " + why;
            return report(attempt, ToolOutput.error(failure != null ? failure + ". It was " + started : attempt.tool() + " was " + started),
                    failure != null ? ToolCompleted.How.RAN : ToolCompleted.How.RECONCILED);
        }
        AppendResult retry = writer.append("harness/" + r.idempotencyKey() + "/no-effect",
                NewEvent.toolOutcomeResolved(attempt.callId(), "RETRY", principal(), why));
        return retry instanceof Appended ? null : refusal(retry); // then the next attempt, under the RETRY's key
    }

    private HarnessRunResult report(ToolInvocation call, ToolOutput output, ToolCompleted.How how) {
        AppendResult reported = writer.append("harness/" + call.logKey() + "/result",
                NewEvent.toolResult(call.callId(), call.logKey(), output.status(), output.content().orElse(null)));
        if (!(reported instanceof Appended a)) {
            return refusal(reported);
        }
        if (a.allDuplicates()) {
            return null; // reported before: the log says what
        }
        long seq = a.events().get(0).seq();
        return switch (output.status()) {
            case OK, ERROR -> new ToolCompleted(call.callId(), call.logKey(), output.status(), output.content(), seq, how);
            case CANCELLED -> new ToolCancelled(call.callId(), output.content().orElse("cancelled by the harness"), seq);
            case UNKNOWN -> new ToolOutcomeUnknown(call.callId(), call.logKey(), output.content().orElse(""), seq);
        };
    }

    /** Fenced and NotFound end the run; a Rejected is read again (the log may have moved); null: read again. */
    private static HarnessRunResult refusal(AppendResult result) {
        if (result instanceof Fenced f) {
            return f;
        } else if (result instanceof NotFound n) {
            return n;
        } else if (result instanceof Rejected r) {
            return r;
        }
        return null; // Conflict: no expectedSeq is sent, so only a newer service could answer it; read again
    }

    /**
     * When the sequencer accepted the session's first event (seq 1's {@code occurredAt}), from which the key handed to a
     * tool is derived ({@code IdempotencyKey.external}): the claim's, else read once. Empty when the session is not found.
     */
    private Optional<Instant> sessionStartedAt() {
        Instant known = sessionStartedAt;
        if (known == null) {
            Optional<EventPage> first = client.events(sessionId(), 1, 1);
            if (first.isEmpty()) {
                return Optional.empty();
            }
            known = first.get().events().stream().filter(e -> e.seq() == 1).findFirst().map(SessionEvent::occurredAt)
                    .orElseThrow(() -> new TetherException("cannot read the first event of " + sessionId()
                            + ": the session's start is part of its calls' external keys", (Throwable) null, false));
            sessionStartedAt = known;
        }
        return Optional.of(known);
    }

    /** Who this worker is (a harness's RETRY is in its own name): the actor of its claim's event. */
    private String principal() {
        String known = principal;
        if (known == null) {
            known = client.events(sessionId(), claim.lastSeq(), 1).flatMap(p -> p.events().stream().findFirst()).map(e -> e.actor().id())
                    .orElseThrow(() -> new TetherException("cannot read the claim's event " + claim.lastSeq() + " of " + sessionId(), (Throwable) null, false));
            principal = known;
        }
        return known;
    }

    @Override
    public String toString() {
        return "HarnessToolRunner[" + sessionId() + ", epoch " + epoch() + ", tools " + tools.keySet() + "]";
    }

    /** Builds a {@link HarnessToolRunner}. Not thread-safe. */
    public static final class Builder {

        private final TetherClient client;
        private final Claimed claim;
        private final Map<String, Registered> tools = new LinkedHashMap<>();
        private Duration authorizationTimeout = DEFAULT_AUTHORIZATION_TIMEOUT;
        private Consumer<ToolInvocation> onAuthorized = call -> { };
        private String principal;

        private Builder(TetherClient client, Claimed claim) {
            this.client = Objects.requireNonNull(client, "client");
            this.claim = Objects.requireNonNull(claim, "claim");
        }

        /** A tool with no reconciliation hook: an attempt without a result after a crash ends UNKNOWN, for a person. */
        public Builder tool(HarnessTool declaration, HarnessToolFunction function) {
            if (declaration.canReconcile()) {
                throw new IllegalArgumentException("harness tool '" + declaration.name() + "' is declared canReconcile: give its reconciler");
            }
            return add(declaration, function, null);
        }

        /** A tool declared {@link HarnessTool#canReconcile()}, with its hook. */
        public Builder tool(HarnessTool declaration, HarnessToolFunction function, ToolReconciler reconciler) {
            if (!declaration.canReconcile()) {
                throw new IllegalArgumentException("harness tool '" + declaration.name() + "' has a reconciler: declare it reconcilable()");
            }
            return add(declaration, function, Objects.requireNonNull(reconciler, "reconciler"));
        }

        private Builder add(HarnessTool declaration, HarnessToolFunction function, ToolReconciler reconciler) {
            if (declaration.recordedOnly()) {
                throw new IllegalArgumentException("harness tool '" + declaration.name() + "' is recorded-only: it has no start step; report"
                        + " its results with NewEvent.toolResult(callId, idempotencyKey, status, content)");
            }
            if (tools.putIfAbsent(declaration.name(), new Registered(declaration, Objects.requireNonNull(function, "function"),
                    reconciler)) != null) {
                throw new IllegalArgumentException("harness tool '" + declaration.name() + "' added twice");
            }
            return this;
        }

        /** How long {@link HarnessToolRunner#run(long, String)} waits for an authorization; {@link #DEFAULT_AUTHORIZATION_TIMEOUT} by default. */
        public Builder authorizationTimeout(Duration timeout) {
            this.authorizationTimeout = notNegative(timeout);
            return this;
        }

        /** Called once a call is authorized, just before its start is recorded (e.g. to log it or tell the user). */
        public Builder onAuthorized(Consumer<ToolInvocation> listener) {
            this.onAuthorized = Objects.requireNonNull(listener, "listener");
            return this;
        }

        /**
         * The authenticated principal the runner's client acts as (e.g. {@code acme-agent}), named in its RETRY of a call
         * its hook proved had no effect; by default read once from the claim's event.
         */
        public Builder principal(String id) {
            this.principal = Ids.requireText(id, "principal");
            return this;
        }

        public HarnessToolRunner build() {
            if (tools.isEmpty()) {
                throw new IllegalStateException("a harness tool runner needs at least one tool");
            }
            return new HarnessToolRunner(this);
        }
    }
}
