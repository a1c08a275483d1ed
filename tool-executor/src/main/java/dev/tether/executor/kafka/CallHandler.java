package dev.tether.executor.kafka;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tether.avro.ToolOutcome;
import dev.tether.avro.ToolRequest;
import dev.tether.core.auth.TetherPrincipal;
import dev.tether.core.event.Actor;
import dev.tether.core.event.ActorKind;
import dev.tether.core.event.InvalidEventException;
import dev.tether.core.event.ProposedEvent;
import dev.tether.executor.domain.Authority;
import dev.tether.executor.domain.CallEntry;
import dev.tether.executor.domain.CallRequest;
import dev.tether.executor.domain.CallState;
import dev.tether.executor.domain.CallRules;
import dev.tether.executor.domain.Recorded;
import dev.tether.executor.domain.Step;
import dev.tether.kit.kafka.SessionCommands;
import dev.tether.tools.CancellationToken;
import dev.tether.tools.Intent;
import dev.tether.tools.Reconciliation;
import dev.tether.tools.Tool;
import dev.tether.tools.ToolContext;
import dev.tether.tools.ToolException;
import dev.tether.tools.ToolOutput;
import dev.tether.tools.sandbox.Workspace;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.jboss.logging.Logger;

/**
 * Handles one {@link ToolRequest}: asks {@link CallRules} what to do with it, given its ledger entry and the
 * {@link Authority}'s verdict now, and carries the step out. A {@link Step.ReportAgain} sends the ended entry's
 * {@code tool_result} again; a {@link Step.Conclude} records the outcome, then reports it; a {@link Step.Reconcile}
 * asks the tool what became of the STARTED call and carries out what that means; a {@link Step.Run} first catches up
 * with the session's interruptions ({@link InterruptWatcher.CatchUp}) and ends CANCELLED without starting if its turn
 * was interrupted ({@link CallRules#beforeStart}), else writes {@code STARTED}, runs the tool in the sandbox, records
 * its outcome and reports it. A catch-up that cannot be confirmed throws before anything is written: the call comes
 * again. A request that cannot be read as a call (an APPROVAL basis without its seq, a blank callId: no projector writes
 * one) is logged and skipped: nothing is run, recorded or reported, and its partition goes on.
 *
 * <p>Every write is synchronous ({@link AckedWriter}): a step starts only when the one before it is durable, so
 * {@code STARTED} is acknowledged by all in-sync replicas before the tool runs. A call's first write is fenced by its
 * {@link Claim}: committed in a transaction the group coordinator refuses from an instance it expelled. Thread-safe;
 * the caller runs the calls of one session one at a time.
 */
final class CallHandler {

    private static final Logger LOG = Logger.getLogger(CallHandler.class);
    private static final ObjectMapper JSON = new ObjectMapper();

    /** The principal the executor's results are appended as. */
    static final String PRINCIPAL = "tool-executor";

    private final Ledger ledger;
    private final AckedWriter writer;
    private final Authority authority;
    private final Sandbox sandbox;
    private final InFlight inFlight;
    private final InterruptWatcher.CatchUp catchUp;
    private final CrashPoints crashPoints;
    private final String executorId;
    private final Clock clock;

    /**
     * @param inFlight the running calls and the interruptions seen, which {@code catchUp} brings up to date with the log
     * @param catchUp  the barrier a call passes before it starts ({@link InterruptWatcher#catchUp})
     */
    CallHandler(Ledger ledger, AckedWriter writer, Authority authority, Sandbox sandbox, InFlight inFlight,
                InterruptWatcher.CatchUp catchUp, CrashPoints crashPoints, String executorId, Clock clock) {
        this.ledger = ledger;
        this.writer = writer;
        this.authority = authority;
        this.sandbox = sandbox;
        this.inFlight = inFlight;
        this.catchUp = catchUp;
        this.crashPoints = crashPoints;
        this.executorId = executorId;
        this.clock = clock;
    }

    /** Handles a request of a partition this instance holds throughout: {@link #handle(ToolRequest, Claim)}. */
    void handle(ToolRequest toolRequest) {
        handle(toolRequest, Claim.HELD);
    }

    /**
     * Whether this instance still holds the partition a call's request came from. Asked right before the call's first
     * ledger write (its STARTED, or an end reached without running it), after everything that may have taken time (the
     * catch-up, the workspace, a reconciliation, the intent): a call whose partition was given up meanwhile is its next
     * owner's, and writes and runs nothing here ({@link GivenUpException}). Asked by the worker thread; the answer is the
     * consumer's as far as it knows. What it does not know yet (an instance frozen past its session timeout), the
     * group coordinator refuses: that first write is fenced by {@link #fence()} (docs/ARCHITECTURE.md §6).
     */
    @FunctionalInterface
    interface Claim {
        Claim HELD = () -> true;

        boolean held();

        /** What the call's first ledger write is fenced with; empty for a write no coordinator checks. */
        default Optional<Fence> fence() {
            return Optional.empty();
        }
    }

    /**
     * The call's partition was given up, or the group coordinator refused its first write, before anything of the call
     * was written: nothing was run, recorded or reported.
     */
    static final class GivenUpException extends RuntimeException {
        GivenUpException(String key) {
            super(key + ": its request's partition was given up before it started; left to its next owner", null, false, false);
        }

        GivenUpException(LedgerTransactions.FencedException fenced) {
            super(fenced.getMessage() + "; not started, left to the partition's next owner", fenced, false, false);
        }
    }

    /**
     * Handles one request.
     *
     * @param claim asked right before the call's first ledger write
     * @throws GivenUpException if the claim no longer held then: nothing of the call was written or run here
     */
    void handle(ToolRequest toolRequest, Claim claim) {
        if (toolRequest.getErasedAt() != null) {
            erase(toolRequest, claim);
            return;
        }
        CallRequest request;
        try {
            request = CallAvro.request(toolRequest);
        } catch (InvalidEventException | IllegalArgumentException e) {
            // a definite answer, as for a request that cannot be decoded: thrown, it would stop its partition each time it came,
            // and every other call of its partition would wait behind it for ever
            LOG.errorf("%s of session %s cannot be read as a call, skipped (nothing is run, recorded or reported): %s",
                    toolRequest.getIdempotencyKey(), toolRequest.getSessionId(), e.getMessage());
            return;
        }
        String key = request.idempotencyKey();
        if (ledger.superseded(toolRequest)) {
            LOG.warnf("%s (authorized at %s) is of a session erased since: a later session under the id %s has a call of the same"
                    + " key; nothing is run or reported", key, request.requestedAt(), request.sessionId());
            return;
        }
        Optional<ToolOutcome> recorded = ledger.get(toolRequest);
        Instant erased = recorded.map(ToolOutcome::getErasedAt).orElse(null);
        if (InFlight.erasedSince(erased, request.requestedAt())) {
            // the ledger says so even when this executor no longer remembers the erasure (restarted, or too many since):
            // nothing is reported for a call of an erased session, and its output is gone
            LOG.infof("%s: its session was erased at %s; nothing is run or reported", key, erased);
            return;
        }
        Optional<CallEntry> known = recorded.map(CallAvro::entry);
        var verdict = authority.check(request.tenantId(), request.toolMode(), request.tool(), request.basis());
        Step step = CallRules.decide(known, request, verdict, authority.registered(request.tool()));
        if (step instanceof Step.NotOurs notOurs) {
            LOG.warnf("%s: %s", key, notOurs.why());
            return;
        }
        if (step instanceof Step.ReportAgain again) {
            LOG.debugf("%s ended before (%s): reporting it again", key, again.entry().state());
            report(request, again.entry());
            return;
        }
        if (verdict instanceof Authority.Refused refused) {
            LOG.warnf("%s: %s", key, refused.reason());
        }
        try {
            if (step instanceof Step.Conclude end) {
                conclude(request, known, end, claim);
            } else if (step instanceof Step.CallsTool callsTool) {
                callTool(request, known, callsTool, claim);
            } else {
                throw new IllegalStateException("unhandled step " + step.getClass().getName());
            }
        } catch (Ledger.AuthorizedTooFarAheadException e) {
            if (ledger.get(toolRequest).isPresent()) {
                throw e; // a record of it was written (it may have started): it comes again, never left behind
            }
            // nothing of it was written, so nothing started: a definite answer, which it would get each time it came, stopping
            // its partition, with every later call of its partition waiting behind it for ever
            LOG.errorf("%s of session %s cannot be recorded, so it is not run; skipped (nothing is run, recorded or reported): %s",
                    key, request.sessionId(), e.getMessage());
        }
    }

    /**
     * The call's session was erased: its ledger record is written again without the call's output (content, offloaded
     * reference, file hashes), its state kept, so that the erased session's request, should it come again, still runs
     * nothing. Compaction then removes the record that held the output. Nothing runs and nothing is reported.
     */
    private void erase(ToolRequest erasure, Claim claim) {
        String key = erasure.getIdempotencyKey();
        ledger.erasable(erasure).ifPresentOrElse(recorded -> {
            ToolOutcome erased = ToolOutcome.newBuilder(recorded)
                    .setContent(null).setContentRef(null).setBeforeHash(null).setAfterHash(null)
                    .setExecutorId(executorId).setErasedAt(erasure.getErasedAt())
                    .build();
            if (!claim.held()) {
                throw new GivenUpException(key);
            }
            try {
                ledger.record(erasure.getRequestedAt(), erased, claim.fence());
            } catch (LedgerTransactions.FencedException e) {
                throw new GivenUpException(e);
            }
            LOG.infof("%s: session %s was erased at %s; its %s record no longer holds the call's output", key, erasure.getSessionId(),
                    erasure.getErasedAt(), recorded.getState());
        }, () -> LOG.debugf("%s: session %s was erased; its ledger holds no output of the call to erase", key, erasure.getSessionId()));
    }

    /** Carries out a {@link Step.Reconcile} or a {@link Step.Run}, in a context of the call's own. */
    private void callTool(CallRequest request, Optional<CallEntry> known, Step.CallsTool step, Claim claim) {
        // every interruption and erasure in the log before this moment, since before the call's authorization, is known
        // after the catch-up, however far the watcher lagged behind this request or started after it; one appended
        // later finds the call registered and cancels it
        catchUp.await(request.sessionId(), request.requestedAt());
        if (erasedBeforeStart(request, known, step, claim)) {
            return; // before its workspace is made again
        }
        JsonNode arguments;
        try {
            arguments = JSON.readTree(request.argumentsJson());
        } catch (IOException e) {
            conclude(request, known, CallRules.argumentsNotJson(step), claim);
            return;
        }
        Workspace workspace;
        try {
            workspace = sandbox.workspace(request.tenantId(), request.sessionId());
        } catch (IllegalArgumentException | IllegalStateException | UncheckedIOException e) {
            // the call ends here (the host's path stays in the log): stopping its partition, it would come again for ever, and
            // every other call of its partition with it
            LOG.errorf(e, "%s: the workspace of session %s cannot be made", request.idempotencyKey(), request.sessionId());
            conclude(request, known, CallRules.noWorkspace(step, e.getClass().getSimpleName()), claim);
            return;
        }
        CancellationToken cancellation = new CancellationToken();
        try (var registration = inFlight.register(request.sessionId(), request.requestSeq(), request.requestedAt(), cancellation)) {
            // the key for external systems: a reconciliation looks up the one its start handed out, and runs again under it
            String handed = step instanceof Step.Reconcile r ? r.started().handedKey() : request.externalKey();
            ToolContext context = sandbox.context(workspace, request.tenantId(), handed, cancellation);
            Step next = step instanceof Step.Reconcile reconcile ? reconcile(request, reconcile, context, arguments) : step;
            if (next instanceof Step.Conclude end) {
                conclude(request, known, end, claim);
            } else if (next instanceof Step.Run run) {
                run(request, known, run, context, arguments, claim);
            } else {
                throw new IllegalStateException("unhandled step after reconciling " + next.getClass().getName());
            }
        }
    }

    /**
     * Whether the call's session was erased after the call was authorized (as far as the interrupt watcher read): then a
     * call to run ends CANCELLED without starting, and a STARTED one is left as it is (it may have taken effect, and its
     * session is gone); neither is reported.
     */
    private boolean erasedBeforeStart(CallRequest request, Optional<CallEntry> known, Step.CallsTool step, Claim claim) {
        Instant erasedAt = inFlight.erasedAt(request.sessionId());
        if (!InFlight.erasedSince(erasedAt, request.requestedAt())) {
            return false;
        }
        if (step instanceof Step.Run run) {
            LOG.infof("%s: its session was erased at %s, before it started; not started", request.idempotencyKey(), erasedAt);
            record(known, new Recorded(request, executorId, clock.instant(), CallRules.erased(run, erasedAt).outcome()), claim);
        } else {
            LOG.infof("%s: its session was erased at %s; the call STARTED by %s is not reconciled", request.idempotencyKey(), erasedAt,
                    known.map(CallEntry::executorId).orElse("?"));
        }
        return true;
    }

    /** Asks the tool what became of a STARTED call, and what that means. */
    private Step reconcile(CallRequest request, Step.Reconcile reconcile, ToolContext context, JsonNode arguments) {
        Reconciliation found;
        try {
            found = reconcile.tool().reconcile(context, arguments, reconcile.entryFor(request.argumentsJson()));
        } catch (RuntimeException | Error e) {
            // reconcile must not throw; one that does cannot say what became of the call, and thrown again each time the
            // request came, it would stop the partition for ever
            LOG.errorf(e, "%s: %s failed to reconcile", request.idempotencyKey(), reconcile.tool().name());
            found = new Reconciliation.Unknown(reconcile.tool().name() + " could not reconcile it: " + e.getClass().getSimpleName());
        }
        if (found == null) {
            found = new Reconciliation.Unknown(reconcile.tool().name() + " could not reconcile it: it answered nothing");
        }
        LOG.infof("%s was STARTED by %s and never ended; reconciled: %s", reconcile.started().idempotencyKey(),
                reconcile.started().executorId(), found);
        return CallRules.reconciled(reconcile, found);
    }

    private void run(CallRequest request, Optional<CallEntry> known, Step.Run run, ToolContext context,
                     JsonNode arguments, Claim claim) {
        String key = request.idempotencyKey();
        Tool tool = run.tool();
        if (CallRules.beforeStart(run, request, inFlight.lastInterruptSeq(request.sessionId())) instanceof Step.Conclude cut) {
            LOG.infof("%s: its turn was interrupted before it started; not started", key);
            conclude(request, known, cut, claim);
            return;
        }
        if (erasedBeforeStart(request, known, run, claim)) {
            return;
        }
        JsonNode path = arguments.get("path");
        Optional<Authority.Refused> refused = Authority.outsideGrant(request.basis(), path != null && path.isTextual() ? path.asText() : null,
                context.workspace());
        if (refused.isEmpty()) {
            refused = Authority.unlikeShown(request.basis(), () -> tool.shown(context.workspace(), arguments));
        }
        if (refused.isPresent()) {
            LOG.warnf("%s: %s", key, refused.get().reason());
            conclude(request, known, CallRules.refused(run, refused.get()), claim);
            return;
        }
        Intent intent;
        try {
            intent = tool.intent(context, arguments);
        } catch (ToolException e) {
            conclude(request, known, CallRules.intentFailed(run, context.redactor().redact(e.getMessage()).text()), claim);
            return;
        } catch (RuntimeException | Error e) {
            // nothing has started: the call ends here, rather than stop its partition each time it comes
            LOG.errorf(e, "%s: %s failed unexpectedly before it started", key, tool.name());
            conclude(request, known, CallRules.intentFailed(run, failed(tool, e)), claim);
            return;
        }
        if (intent == null) {
            LOG.errorf("%s: %s answered no intent; not started", key, tool.name());
            conclude(request, known, CallRules.intentFailed(run, tool.name() + " failed: it answered no intent"), claim);
            return;
        }
        CallEntry started = record(known,
                new Recorded(request, executorId, clock.instant(), CallRules.started(run, intent, context.idempotencyKey())), claim);
        crashPoints.reached(CrashPoints.AFTER_STARTED);
        ToolOutput output;
        try {
            output = tool.execute(context, arguments, intent); // a file tool changes only the content STARTED recorded
        } catch (ToolException e) {
            output = context.output(ToolOutput.Status.ERROR, e.getMessage());
        } catch (RuntimeException | Error e) {
            // an Error too (a stack overflow, an assertion, a class that failed to initialize): the tool's own failure,
            // which ends its call; escaping, it would stop its partition, and the call, STARTED, would be reconciled and
            // run again each time it came, every other call of its partition waiting behind it
            LOG.errorf(e, "%s: %s failed unexpectedly", key, tool.name());
            output = context.output(ToolOutput.Status.ERROR, failed(tool, e));
        }
        if (output == null) {
            LOG.errorf("%s: %s answered no output", key, tool.name());
            output = context.output(ToolOutput.Status.ERROR, tool.name() + " failed: it answered no output");
        }
        crashPoints.reached(CrashPoints.AFTER_EFFECT);
        CallEntry ended = record(Optional.of(started),
                new Recorded(request, executorId, clock.instant(), CallRules.ran(started, output)), Claim.HELD); // it ran: recorded whoever holds the partition now
        crashPoints.reached(CrashPoints.AFTER_OUTCOME);
        report(request, ended);
    }

    /** What a call whose tool threw something other than a {@link ToolException} ends with: no message, which may hold anything. */
    private static String failed(Tool tool, Throwable thrown) {
        return tool.name() + " failed: " + thrown.getClass().getSimpleName();
    }

    /** Records an outcome reached without running the tool, and reports it. */
    private void conclude(CallRequest request, Optional<CallEntry> known, Step.Conclude end, Claim claim) {
        report(request, record(known, new Recorded(request, executorId, clock.instant(), end.outcome()), claim));
    }

    /**
     * Writes the call's next ledger entry, waiting until all in-sync replicas have it ({@link Ledger#record}), once the
     * claim still holds, fenced by it ({@link GivenUpException} if not held or refused: nothing written).
     */
    private CallEntry record(Optional<CallEntry> entry, Recorded recorded, Claim claim) {
        if (!claim.held()) {
            throw new GivenUpException(recorded.request().idempotencyKey());
        }
        CallEntry next = CallRules.evolve(entry, recorded);
        if (next.state() == CallState.STARTED) {
            crashPoints.reached(CrashPoints.BEFORE_STARTED);
        }
        try {
            ledger.record(recorded.request().requestedAt(), CallAvro.outcome(next), claim.fence());
        } catch (LedgerTransactions.FencedException e) {
            throw new GivenUpException(e);
        }
        return next;
    }

    /** Sends the call's {@code tool_result} to the sequencer: the same command however often it is sent. */
    private void report(CallRequest request, CallEntry entry) {
        Instant erasedAt = inFlight.erasedAt(request.sessionId());
        if (InFlight.erasedSince(erasedAt, request.requestedAt())) {
            // its session is gone; a session made under the id since may have a call of the same key open
            LOG.infof("%s: %s %s not reported: its session was erased at %s", request.idempotencyKey(), request.tool(), entry.state(),
                    erasedAt);
            return;
        }
        var result = entry.resultFor(request);
        var principal = TetherPrincipal.service(PRINCIPAL, request.tenantId());
        String eventId = CallRules.resultEventId(request.idempotencyKey());
        // for the session that asked (null from a projector before it said when that started): never a later one under its id
        var command = SessionCommands.append(eventId, request.sessionId(), request.tenantId(), principal,
                List.of(new ProposedEvent(eventId, new Actor(ActorKind.TOOL, PRINCIPAL), result)), clock.instant(),
                request.sessionStartedAt());
        writer.sessionCommand(request.sessionId(), command);
        LOG.infof("%s: %s %s reported (attempt %d)", request.idempotencyKey(), request.tool(), entry.state(),
                entry.attempt());
    }
}
