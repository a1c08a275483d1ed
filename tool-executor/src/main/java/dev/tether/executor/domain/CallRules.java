package dev.tether.executor.domain;

import dev.tether.core.event.ToolResult;
import dev.tether.core.event.TurnInterrupted;
import dev.tether.core.id.DerivedIds;
import dev.tether.executor.domain.Step.Conclude;
import dev.tether.executor.domain.Step.Reconcile;
import dev.tether.executor.domain.Step.ReportAgain;
import dev.tether.executor.domain.Step.Run;
import dev.tether.tools.Intent;
import dev.tether.tools.Reconciliation;
import dev.tether.tools.Tool;
import dev.tether.tools.ToolOutput;
import java.time.Instant;
import java.util.Optional;

/**
 * The executor's exactly-once rules for one call (docs/ARCHITECTURE.md §6), as pure functions: {@link #decide} what to do with
 * a request given its ledger entry and the authority's verdict, what a reconciliation or an interruption means
 * ({@link #reconciled}, {@link #beforeStart}, ...), and {@link #evolve} the entry by what is recorded.
 *
 * <ol>
 *   <li>A call whose entry has ended is reported again, never run again.
 *   <li>A call STARTED without an end (the executor died while it ran) is reconciled: proven done, its outcome is
 *       recorded; proven not done (or harmless to repeat), it runs if the authority still allows it and is refused
 *       (ERROR) if not; otherwise it is {@code UNKNOWN}, and a human decides. Reconciliation comes before the
 *       authority's refusal because the call may have run under the authority it had then: a policy or registry
 *       changed across a restart must not turn a call that may have taken effect into an ERROR. If its tool is not
 *       registered at all any more, it is {@code UNKNOWN}.
 *   <li>A new call the authority refuses is recorded and reported as an ERROR; one it allows runs.
 *   <li>No call starts, new or reconciled as not done, once its turn was interrupted ({@link #beforeStart}): it ends
 *       CANCELLED.
 * </ol>
 *
 * Stateless; every function is pure and thread-safe.
 */
public final class CallRules {

    static final String NOT_JSON = "invalid arguments: not JSON";
    static final String INTERRUPTED = "cancelled: the turn was interrupted (turn_interrupted at seq %d) before the call started;"
            + " nothing was run";

    static final String ERASED = "cancelled: the session was erased (at %s) before the call started; nothing was run";

    /**
     * How many times a call may be STARTED without ever ending: one reconciled as not done (or harmless to repeat) after
     * that many starts is not run again but {@code UNKNOWN}, since what keeps stopping the executor while it runs may be
     * the call itself (a tool that exhausts the memory, the process killed by the system), and running it again would
     * stop the executor again, for ever.
     */
    public static final int MAX_STARTS = 3;

    private CallRules() {}

    /** The eventId of the call's {@code tool_result}: derived from its key, so every report of it is the same event. */
    public static String resultEventId(String idempotencyKey) {
        return DerivedIds.of(idempotencyKey, ToolResult.TYPE);
    }

    /**
     * What to do with {@code request}.
     *
     * @param known      the call's ledger entry, if it has one
     * @param verdict    the authority's verdict on the request now
     * @param registered the tool of the request's name in any mode's registry: a STARTED call is reconciled with it
     *                   even if its session's mode lost the tool
     * @return a {@link Step.NotOurs} for a harness-run call, whatever else holds; else a {@link ReportAgain},
     *         {@link Conclude}, {@link Reconcile} or {@link Run}
     */
    public static Step decide(Optional<CallEntry> known, CallRequest request, Authority.Verdict verdict,
                              Optional<Tool> registered) {
        if (request.runBy().harness()) {
            return new Step.NotOurs("call " + request.callId() + " (" + request.tool() + ") of " + request.sessionId() + " is run by"
                    + " the session's harness (" + request.runBy() + "): the executor runs, refuses and answers none");
        }
        if (known.isEmpty()) {
            if (verdict instanceof Authority.Allowed allowed) {
                return new Run(allowed.tool(), 1);
            }
            if (verdict instanceof Authority.Refused refused) {
                return new Conclude(CallOutcome.Ended.of(CallState.ERROR, 1, refused.reason()));
            }
            throw unhandled(verdict);
        }
        CallEntry entry = known.get();
        if (entry.state().ended()) {
            return new ReportAgain(entry);
        }
        if (verdict instanceof Authority.Allowed allowed) {
            return new Reconcile(allowed.tool(), entry, verdict);
        }
        if (verdict instanceof Authority.Refused refused) {
            // STARTED under the authority of its time: it may have run, so what happened is found out first; the
            // refusal applies only to running it (again)
            if (registered.isPresent()) {
                return new Reconcile(registered.get(), entry, verdict);
            }
            return new Conclude(new CallOutcome.Ended(CallState.UNKNOWN, entry.attempt() + 1, unknownContent(
                    "its tool is not registered here any more, so it cannot be reconciled; " + refused.reason(), entry),
                    null, entry.beforeHash(), entry.afterHash()));
        }
        throw unhandled(verdict);
    }

    /** What the tool found out about a STARTED call means: a {@link Conclude}, or a {@link Run} of it now. */
    public static Step reconciled(Reconcile reconcile, Reconciliation found) {
        CallEntry started = reconcile.started();
        if (found instanceof Reconciliation.Completed done) {
            ToolOutput out = done.output();
            return new Conclude(new CallOutcome.Ended(CallState.of(out.status()), reconcile.attempt(), out.content(),
                    out.artifact(), out.beforeHash(), out.afterHash()));
        }
        if (found instanceof Reconciliation.Unknown unknown) {
            return new Conclude(new CallOutcome.Ended(CallState.UNKNOWN, reconcile.attempt(),
                    unknownContent(unknown.why(), started), null, started.beforeHash(), started.afterHash()));
        }
        if (found instanceof Reconciliation.NotApplied) { // proven not done, or harmless to repeat
            if (reconcile.verdict() instanceof Authority.Refused refused) {
                return new Conclude(CallOutcome.Ended.of(CallState.ERROR, reconcile.attempt(), refused.reason()));
            }
            if (reconcile.verdict() instanceof Authority.Allowed) {
                if (started.attempt() >= MAX_STARTS) {
                    return new Conclude(new CallOutcome.Ended(CallState.UNKNOWN, reconcile.attempt(), unknownContent("it was started "
                            + started.attempt() + " times and never ended, so it may be what stops the executor", started),
                            null, started.beforeHash(), started.afterHash()));
                }
                return new Run(reconcile.tool(), reconcile.attempt());
            }
            throw unhandled(reconcile.verdict());
        }
        throw new IllegalStateException("unhandled reconciliation " + found.getClass().getName());
    }

    /** The call's arguments are not JSON: it ends as an ERROR before anything is asked of its tool. */
    public static Conclude argumentsNotJson(Step.CallsTool step) {
        return new Conclude(CallOutcome.Ended.of(CallState.ERROR, step.attempt(), NOT_JSON));
    }

    /**
     * Whether {@code run} may start, given the latest interruption of its session that the executor has read
     * ({@code lastInterruptSeq}, 0 if none), having read every event of the session committed before now: a call whose
     * turn was interrupted ({@link TurnInterrupted#cutsOff}: the interruption came after the event that asked for the
     * call) ends CANCELLED without starting, whatever its basis and whenever it was authorized, before the interruption
     * or after it; any other call goes on with {@code run}.
     *
     * @return {@code run}, or a {@link Conclude} of {@link #interrupted}
     */
    public static Step beforeStart(Run run, CallRequest request, long lastInterruptSeq) {
        return TurnInterrupted.cutsOff(lastInterruptSeq, request.requestSeq()) ? interrupted(run, lastInterruptSeq) : run;
    }

    /** The turn was interrupted at {@code interruptSeq} before the call started: it does not start. */
    public static Conclude interrupted(Run run, long interruptSeq) {
        return new Conclude(CallOutcome.Ended.of(CallState.CANCELLED, run.attempt(), INTERRUPTED.formatted(interruptSeq)));
    }

    /**
     * The workspace of the call's session cannot be made or opened ({@code why}): a call to run ends as an ERROR without
     * starting; a STARTED one cannot be looked at, so what became of it is {@code UNKNOWN}, whatever the verdict.
     */
    public static Conclude noWorkspace(Step.CallsTool step, String why) {
        String cannot = "its session's workspace cannot be made (" + why + ")";
        if (step instanceof Run run) {
            return new Conclude(CallOutcome.Ended.of(CallState.ERROR, run.attempt(), cannot + "; nothing was run"));
        }
        if (step instanceof Reconcile reconcile) {
            return (Conclude) reconciled(reconcile, new Reconciliation.Unknown(cannot));
        }
        throw new IllegalStateException("unhandled step " + step.getClass().getName());
    }

    /** The call's session was erased at {@code erasedAt} before the call started: it does not start. */
    public static Conclude erased(Run run, Instant erasedAt) {
        return new Conclude(CallOutcome.Ended.of(CallState.CANCELLED, run.attempt(), ERASED.formatted(erasedAt)));
    }

    /** The authority refused the call right before it would have started ({@link Authority#outsideGrant}): it does not start. */
    public static Conclude refused(Run run, Authority.Refused refused) {
        return new Conclude(CallOutcome.Ended.of(CallState.ERROR, run.attempt(), refused.reason()));
    }

    /**
     * The tool refused the arguments before anything started, or failed then: {@code why} is its message, already
     * redacted, or what failed.
     */
    public static Conclude intentFailed(Run run, String why) {
        return new Conclude(CallOutcome.Ended.of(CallState.ERROR, run.attempt(), why));
    }

    /** What is recorded, durably, before the tool runs with {@code intent}, handed {@code externalKey}. */
    public static CallOutcome.Started started(Run run, Intent intent, String externalKey) {
        return new CallOutcome.Started(run.attempt(), intent.beforeHash(), intent.expectedAfterHash(), externalKey);
    }

    /**
     * How the call recorded as {@code started} ended, by its tool's {@code output}; the hashes of the intent recorded
     * at the start stand where the output has none.
     */
    public static CallOutcome.Ended ran(CallEntry started, ToolOutput output) {
        if (started.state() != CallState.STARTED) {
            throw new IllegalArgumentException("a call ran only after it was STARTED, not " + started.state());
        }
        return new CallOutcome.Ended(CallState.of(output.status()), started.attempt(), output.content(),
                output.artifact(), output.beforeHash() != null ? output.beforeHash() : started.beforeHash(),
                output.afterHash() != null ? output.afterHash() : started.afterHash());
    }

    /**
     * The call's ledger entry once {@code recorded} is written: a start replaces the entry; an end keeps the start
     * time of the entry it ends (the time of the end when the call had none) and names the eventId it is reported
     * under.
     *
     * @param entry the entry so far, if any
     * @throws IllegalStateException if {@code entry} has ended: an ended call never changes
     */
    public static CallEntry evolve(Optional<CallEntry> entry, Recorded recorded) {
        if (entry.isPresent() && entry.get().state().ended()) {
            throw new IllegalStateException(entry.get().idempotencyKey() + " ended " + entry.get().state()
                    + " and never changes");
        }
        CallRequest request = recorded.request();
        if (recorded.outcome() instanceof CallOutcome.Started started) {
            return new CallEntry(request.idempotencyKey(), request.sessionId(), request.tenantId(), request.callId(),
                    request.tool(), CallState.STARTED, started.attempt(), recorded.executorId(), recorded.at(), null,
                    null, null, started.beforeHash(), started.expectedAfterHash(), null, started.externalKey());
        }
        if (recorded.outcome() instanceof CallOutcome.Ended ended) {
            return new CallEntry(request.idempotencyKey(), request.sessionId(), request.tenantId(), request.callId(),
                    request.tool(), ended.state(), ended.attempt(), recorded.executorId(),
                    entry.map(CallEntry::startedAt).orElse(recorded.at()), recorded.at(), ended.content(),
                    ended.artifact(), ended.beforeHash(), ended.afterHash(), resultEventId(request.idempotencyKey()),
                    entry.map(CallEntry::externalKey).orElse(null));
        }
        throw new IllegalStateException("unhandled outcome " + recorded.outcome().getClass().getName());
    }

    /** Why the outcome of {@code started} is unknown, with the key its tool was handed: the one to look up elsewhere. */
    private static String unknownContent(String why, CallEntry started) {
        return "outcome unknown: the executor stopped while this call ran, and it cannot be proven whether it"
                + " took effect (" + why + "). It was not run again; a human decides (the key it was handed for other systems: "
                + started.handedKey() + ").";
    }

    private static IllegalStateException unhandled(Authority.Verdict verdict) {
        return new IllegalStateException("unhandled verdict " + verdict.getClass().getName());
    }
}
