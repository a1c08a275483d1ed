import type { SessionWriter, TetherClient } from "./client.js";
import { MalformedAnswerError, TetherError, UnexpectedOutcomeError } from "./errors.js";
import { requireText } from "./ids.js";
import type { SessionEvent } from "./models.js";
import { HARNESS_TOOL_WILDCARD, HarnessTool, NewEvent, ReadAt, type ToolStatus } from "./requests.js";
import type { AppendResult, Claimed, Fenced, NotFound, Rejected } from "./results.js";
import { nextPage } from "./wire.js";

/**
 * The harness-run tools helper — the Java SDK's `HarnessToolRunner` (client/), the same protocol and the same eventIds,
 * so a Java and a TypeScript worker can take over each other's session (docs/ARCHITECTURE.md §6, "Harness-run tools").
 *
 * @module
 */

/** One attempt of a harness-run call, as its function (or reconciliation hook) sees it. */
export interface ToolInvocation {
  readonly sessionId: string;
  readonly callId: string;
  /** The tool the call names. */
  readonly tool: string;
  /** The call's arguments, as the model wrote them (JSON text). */
  readonly argumentsJson: string;
  /** The `assistant_message` that asked for the call. */
  readonly requestSeq: number;
  /**
   * The key to hand to external systems (a payment API…) so that they apply the attempt's effect at most once, and to
   * reconcile by: `<sessionId>/<seq>/<callId>~<ms of the session's start>` — the call's {@link logKey}, `~` and the
   * epoch milliseconds of the `occurredAt` of the session's first event (seq 1, its `session_started` or
   * `session_forked`). It is unique across sessions made again under an erased session's id, which repeat their log
   * keys: an external system never answers a new session's call with an erased one's result. The runner records it in
   * the attempt's `tool_call_started` (`externalKey`), and a reconciliation hook gets the key that start recorded; for
   * an attempt started by an SDK before this field (its `tool_call_started` has no `externalKey`), the log key, the key
   * that start handed out.
   */
  readonly idempotencyKey: string;
  /**
   * The call's key in the log, `<sessionId>/<seq>/<callId>` (the seq of its `assistant_message`, or of the RETRY that
   * gave it a new key): what its `tool_call_started` and `tool_result` carry as `idempotencyKey`, and what the runner's
   * eventIds derive from. It repeats in a session made again under an erased session's id: hand external systems
   * {@link idempotencyKey}, not this.
   */
  readonly logKey: string;
  /** 1 for the first start, one more after each RETRY. */
  readonly attempt: number;
  /** The epoch of the worker running it. */
  readonly epoch: number;
}

/**
 * What a harness-run attempt produced, reported as the call's `tool_result`: `OK`, `ERROR` (the tool ran and failed),
 * `CANCELLED` (the harness stopped it) or `UNKNOWN` (it may or may not have taken effect: a person decides).
 *
 * The factories take null or undefined content as none: a call that answered nothing is still a result, not a function
 * that threw.
 */
export interface ToolOutput {
  readonly status: ToolStatus;
  /** What the model sees; undefined for none. */
  readonly content: string | undefined;
}

export const ToolOutput = {
  ok(content?: string | null): ToolOutput {
    return output("OK", content);
  },
  error(content?: string | null): ToolOutput {
    return output("ERROR", content);
  },
  cancelled(content?: string | null): ToolOutput {
    return output("CANCELLED", content);
  },
  unknown(reason?: string | null): ToolOutput {
    return output("UNKNOWN", reason);
  },
} as const;

function output(status: ToolStatus, content: string | null | undefined): ToolOutput {
  if (content !== undefined && content !== null && typeof content !== "string") {
    throw new TypeError("a tool output's content must be a string");
  }
  return Object.freeze({ status, content: content ?? undefined });
}

/**
 * A tool the harness runs: called once per started attempt, after Tether recorded the start, with the attempt's
 * idempotency key ({@link ToolInvocation.idempotencyKey}, the key to hand to external systems). Its answer becomes the
 * call's `tool_result`.
 *
 * What a throw (or a rejected promise) means: a read-only tool's call ends ERROR with the error's text; a mutating tool
 * may have taken effect, so a reconcilable one is reconciled at once (its {@link ToolReconciler}; proven without
 * effect, it runs again, but a call is started at most {@link HarnessToolRunner.MAX_STARTS} times, then ends ERROR
 * naming the limit and the error) and any other ends UNKNOWN for a person to decide — never run again on a guess.
 */
export type HarnessToolFunction = (call: ToolInvocation) => ToolOutput | Promise<ToolOutput>;

/**
 * A harness's reconciliation hook for a tool declared `canReconcile`: asked about an attempt that started and has no
 * result (the worker died while it ran), it finds out from the external system, by the attempt's idempotency key,
 * whether the attempt took effect. That key ({@link ToolInvocation.idempotencyKey}) is the one the attempt's start
 * handed the tool: the `externalKey` its `tool_call_started` recorded (`<sessionId>/<seq>/<callId>~<ms of the
 * session's start>`), or, for an attempt started by an SDK before that field, the log key
 * ({@link ToolInvocation.logKey}). Only answer {@link Reconciliation.noEffect} when the system proves it: the call then
 * runs again (unless it was started {@link HarnessToolRunner.MAX_STARTS} times: then it ends ERROR). A throw is not an answer: nothing is appended and `run` rejects with a {@link HarnessHookError}.
 */
export type ToolReconciler = (attempt: ToolInvocation) => Reconciliation | Promise<Reconciliation>;

/**
 * What a {@link ToolReconciler} found about an attempt that started and has no result: it `took_effect` (its outcome
 * becomes the call's `tool_result`), it provably had `no_effect` (the runner writes `tool_outcome_resolved RETRY` and
 * runs the call once more, under a new key; or, once the call was started {@link HarnessToolRunner.MAX_STARTS} times,
 * ends it `tool_result ERROR`), or the hook `cannot_tell` (the call ends `tool_result UNKNOWN` for a person to mark
 * done, retry or abandon).
 */
export type Reconciliation =
  | { readonly kind: "took_effect"; readonly output: ToolOutput }
  | { readonly kind: "no_effect"; readonly reason: string }
  | { readonly kind: "cannot_tell"; readonly reason: string };

export const Reconciliation = {
  /** The attempt took effect; `output` is its outcome, OK or ERROR, as the external system recorded it. */
  tookEffect(result: ToolOutput): Reconciliation {
    if (result.status !== "OK" && result.status !== "ERROR") {
      throw new TypeError(`an attempt that took effect ended OK or ERROR, not ${result.status}`);
    }
    return Object.freeze({ kind: "took_effect", output: result });
  },
  /** The external system proves the attempt had no effect (`reason` is recorded in the RETRY). */
  noEffect(reason: string): Reconciliation {
    return Object.freeze({ kind: "no_effect", reason: reasonText(reason) });
  },
  /** The hook cannot tell (`reason` is the UNKNOWN result's content). */
  cannotTell(reason: string): Reconciliation {
    return Object.freeze({ kind: "cannot_tell", reason: reasonText(reason) });
  },
} as const;

function reasonText(reason: string): string {
  if (typeof reason !== "string") {
    throw new TypeError("a reconciliation's reason must be a string");
  }
  return reason;
}

// --- how a run ended ---------------------------------------------------------------------------------------------

/** Where a completed call's result came from. */
export type CompletedHow =
  /**
   * This run started the attempt, ran the function and appended the result (an ERROR when the function of a call
   * started {@link HarnessToolRunner.MAX_STARTS} times threw, and the hook found the attempt had no effect).
   */
  | "RAN"
  /**
   * An earlier attempt had no result; the reconciliation hook found it took effect, and this run reported it (or found
   * it had none, and the call, started {@link HarnessToolRunner.MAX_STARTS} times, ended ERROR).
   */
  | "RECONCILED"
  /** The log had the result already (a re-run of the same step): nothing was run or appended. */
  | "REPORTED_BEFORE";

/** The call's `tool_result` is OK or ERROR: its effect is known; never run it again. */
export interface ToolCompleted {
  readonly kind: "completed";
  readonly callId: string;
  /**
   * The log key (`<sessionId>/<seq>/<callId>`) of the attempt that produced the result: the `tool_result`'s
   * `idempotencyKey`, not the external key the tool was handed ({@link ToolInvocation.idempotencyKey}).
   */
  readonly idempotencyKey: string;
  readonly status: "OK" | "ERROR";
  readonly content: string | undefined;
  /** The `tool_result`'s seq. */
  readonly resultSeq: number;
  readonly how: CompletedHow;
}

/** An approver denied the call (or nobody decided in time): it never ran and never will. */
export interface ToolDenied {
  readonly kind: "denied";
  readonly callId: string;
  /** The approver's reason, or the approval-service's ERROR result. */
  readonly reason: string;
  /** The denial's (or that result's) seq. */
  readonly seq: number;
}

/**
 * The call is cancelled: its turn was interrupted before it started (Tether appends its CANCELLED result), or its
 * result is CANCELLED. A call cancelled before it started never ran.
 */
export interface ToolCancelled {
  readonly kind: "cancelled";
  readonly callId: string;
  readonly reason: string;
  /** The interruption's or the CANCELLED result's seq. */
  readonly seq: number;
}

/**
 * The call's outcome is unknown (`tool_result UNKNOWN`): an attempt started and nobody can tell whether it took effect.
 * It waits for a person (MARK_DONE, RETRY or ABANDON); never run it again on a guess. After a person's RETRY, `run` runs
 * it once more.
 */
export interface ToolOutcomeUnknown {
  readonly kind: "outcome_unknown";
  readonly callId: string;
  /**
   * The log key (`<sessionId>/<seq>/<callId>`) of the attempt whose outcome is unknown: the UNKNOWN `tool_result`'s
   * `idempotencyKey`, not the external key the tool was handed ({@link ToolInvocation.idempotencyKey}).
   */
  readonly idempotencyKey: string;
  /** The UNKNOWN result's content. */
  readonly reason: string;
  readonly seq: number;
}

/** A person resolved the call's unknown outcome: MARK_DONE or ABANDON. Either way it is finished and never runs again. */
export interface ToolResolvedByPerson {
  readonly kind: "resolved_by_person";
  readonly callId: string;
  /** `MARK_DONE` or `ABANDON`. */
  readonly resolution: string;
  readonly approver: string;
  readonly reason: string;
  /** The `tool_outcome_resolved`'s seq. */
  readonly seq: number;
}

/** The wait ran out before the call was authorized: nothing was started or run. Run it again to wait longer. */
export interface NotYetAuthorized {
  readonly kind: "not_yet_authorized";
  readonly callId: string;
  /** True when an approver has been asked and has not decided. */
  readonly awaitingApproval: boolean;
  /** The last seq the runner saw. */
  readonly lastSeq: number;
}

/**
 * How {@link HarnessToolRunner.run} ended for a call — the Java SDK's `HarnessRunResult`: `completed` (OK or ERROR: ran
 * now, reconciled, or reported before), `denied` and `cancelled` (it never ran), `outcome_unknown` (a person decides),
 * `resolved_by_person`, `not_yet_authorized` (the wait ran out), `fenced` (another worker claimed the session: stop),
 * `not_found` or `rejected` (the sequencer refused a step, the field named).
 */
export type HarnessRunResult =
  | ToolCompleted
  | ToolDenied
  | ToolCancelled
  | ToolOutcomeUnknown
  | ToolResolvedByPerson
  | NotYetAuthorized
  | Fenced
  | NotFound
  | Rejected;

/** The `ToolCompleted` outcome, or an {@link UnexpectedOutcomeError} carrying the other one. */
export function completedOrThrow(result: HarnessRunResult): ToolCompleted {
  if (result.kind === "completed") {
    return result;
  }
  throw new UnexpectedOutcomeError(result);
}

/** A {@link ToolReconciler} threw: nothing was appended; the call stays started with no result. Running again asks the hook again. */
export class HarnessHookError extends TetherError {
  override readonly name: string = "HarnessHookError";

  constructor(
    readonly callId: string,
    cause: unknown,
  ) {
    super(`the reconciliation hook of call ${callId} failed: ${String(cause)}`, { cause });
  }
}

// --- the runner --------------------------------------------------------------------------------------------------

/** A tool the runner runs: its declaration, its function and, for a tool declared `canReconcile`, its hook. */
export interface HarnessToolEntry {
  readonly tool: HarnessTool;
  readonly run: HarnessToolFunction;
  /** Required exactly when `tool.canReconcile`. */
  readonly reconcile?: ToolReconciler | undefined;
}

export interface HarnessToolRunnerOptions {
  /** The tools, in the order {@link HarnessToolRunner.declarations} returns them; at least one. */
  readonly tools: readonly HarnessToolEntry[];
  /** How long `run` waits for an authorization; default {@link DEFAULT_AUTHORIZATION_TIMEOUT_MS} (5 minutes). */
  readonly authorizationTimeoutMs?: number | undefined;
  /** Called once a call is authorized, just before its start is recorded (e.g. to log it or tell the user). */
  readonly onAuthorized?: ((call: ToolInvocation) => void) | undefined;
  /**
   * The authenticated principal the runner's client acts as (e.g. `acme-agent`), named in its RETRY of a call its hook
   * proved had no effect; by default read once from the claim's event.
   */
  readonly principal?: string | undefined;
}

/** How one {@link HarnessToolRunner.run} may be stopped by its caller. */
export interface HarnessRunOptions {
  /**
   * Once it aborts, the run waits no longer and starts nothing: `run` rejects with its reason (an `AbortError` when it
   * was aborted without one) at once if it was aborted already (nothing read), at once while it waits for the
   * authorization (its subscription closed), and else before it would record a start. Nothing is appended for a call it
   * stopped at, which stays as it was for a later run. An attempt already started (by this run or an earlier one) is
   * taken on to its result: the function is not handed the signal; pass it yourself to a function that should heed it.
   */
  readonly signal?: AbortSignal | undefined;
}

/** The default wait for a call's authorization: 5 minutes. */
export const DEFAULT_AUTHORIZATION_TIMEOUT_MS = 5 * 60_000;

/** Steps one run takes at most (wait, start, reconcile, RETRY, start again…) before it gives up on a session that keeps moving. */
const MAX_STEPS = 16;
const PAGE = 500;

interface Registered {
  readonly declaration: HarnessTool;
  readonly run: HarnessToolFunction;
  readonly reconcile: ToolReconciler | undefined;
}

/**
 * Runs the session's harness-run tools with Tether's guarantees: for a call an `assistant_message` asked for,
 * {@link run} waits (up to a deadline) until the call is authorized, by policy or by an approver; records its start
 * (`tool_call_started`, with this worker's epoch, the attempt, the call's log key `<sessionId>/<seq>/<callId>` and the
 * external key `<sessionId>/<seq>/<callId>~<ms of the session's start>`); runs the tool's function with the external
 * key (the key to hand to external systems: unlike the log key, a session made again under an erased session's id does
 * not repeat it; the session's start is the claim's, or, from a service before it answered one, read once per runner
 * from its first event); and appends its `tool_result` with the log key. A denial or an interruption ends the wait
 * (`denied`, `cancelled`); the function never runs.
 *
 * **Exactly once.** Every step reads the call's story from the log first, so running the same step again — a retry, or
 * a worker that restarted and re-sent its turn — does nothing twice: a call with a result answers it (`completed`,
 * `how: "REPORTED_BEFORE"`), and each event it appends has an id derived from the attempt's key (step keys
 * `harness/<key>/start`, `/result`, `/no-effect`, as the Java SDK's), so a re-sent one is a duplicate with its original
 * seq. A start the transport sent again after its answer was lost is answered as a duplicate too: one after the log the
 * run read, with no other start of the key under way in this runner, is the run's own, and the tool runs; so is a start
 * whose every answer was lost (`run` rejected), for the next run of the call in this runner; either, unless another
 * worker claimed the session since (`fenced`); and an output whose result could not be appended (`run` rejected) is appended by
 * the next run of the call in this runner (`how: "RAN"`). A call that started and has no result (its worker died while it ran) is never started again: its tool's
 * {@link ToolReconciler} asks the external system by the key that start handed out (its `externalKey`; the log key for
 * a start by an SDK before it) and the runner reports what it found — the result, or `tool_outcome_resolved RETRY` and
 * one more attempt under a new key when it provably had no effect, unless the call was started
 * {@link HarnessToolRunner.MAX_STARTS} times already (counted from the log): then it ends `tool_result ERROR`, as the
 * executor stops a call; without a hook, or
 * when the hook cannot tell, the call ends `tool_result UNKNOWN` (`outcome_unknown`) for a person to decide. Every
 * append carries the claim's epoch: once another worker claims the session the runner answers `fenced` and stops; and
 * the claim's session start: once the session is erased it answers `not_found`, even if another is made under its id.
 *
 * Calls of one session may run concurrently (one `run` per call).
 */
export class HarnessToolRunner {
  /**
   * How many times a call is started at most, as the tool-executor's `CallRules.MAX_STARTS` (the Java SDK's
   * `HarnessToolRunner.MAX_STARTS`): an attempt its hook proves had no effect is not started again once the call has
   * been started this many times (counted from the log, by the attempt its `tool_call_started` records, so a restarted
   * worker gets no fresh starts), but ends `tool_result ERROR`, naming this limit and the last failure this runner saw.
   * A tool whose function keeps throwing, or keeps stopping the worker, so stops being run again and again; the model is
   * told. A person's RETRY of an UNKNOWN outcome is still started, once more.
   */
  static readonly MAX_STARTS = 3;
  readonly sessionId: string;
  readonly epoch: number;
  private readonly writer: SessionWriter;
  private readonly tools: ReadonlyMap<string, Registered>;
  /** The keys whose start this runner is appending: a start that answers "duplicate" is its own only if it was alone. */
  private readonly starting = new Set<string>();
  /**
   * What this runner's functions produced whose `tool_result` did not get through (the append rejected), by the attempt's
   * log key: the next run of the call reports it, rather than reconcile the attempt as one a crash left behind.
   */
  private readonly unreported = new Map<string, ToolOutput>();
  /**
   * The log keys whose start this runner appended without learning whether it got in (the append rejected), its function
   * not run: a start of the key the next run finds in the log is this runner's own, as a duplicate answered within one
   * run is.
   */
  private readonly startsInDoubt = new Set<string>();
  /**
   * How this runner's function of a reconcilable tool failed (what it threw), by the attempt's log key, for the ERROR of
   * a call that may not be started again ({@link HarnessToolRunner.MAX_STARTS}); until the attempt is reconciled.
   */
  private readonly failures = new Map<string, string>();
  private readonly authorizationTimeoutMs: number;
  private readonly onAuthorized: (call: ToolInvocation) => void;
  private principal: string | undefined;
  /**
   * The epoch ms of the session's start, the suffix of the external keys: the claim's, else the occurredAt of its seq 1,
   * read once.
   */
  private sessionStart: number | undefined;

  constructor(
    private readonly client: TetherClient,
    private readonly claim: Claimed,
    options: HarnessToolRunnerOptions,
  ) {
    if (claim?.kind !== "claimed") {
      throw new TypeError("a harness tool runner needs a claim (the claimed outcome of client.claim)");
    }
    const tools = new Map<string, Registered>();
    for (const entry of options.tools) {
      const declaration = HarnessTool.of(entry.tool);
      if (declaration.recordedOnly) {
        throw new TypeError(
          `harness tool '${declaration.name}' is recorded-only: it has no start step; report its results with NewEvent.toolResult(callId, status, content, idempotencyKey)`,
        );
      }
      if (typeof entry.run !== "function") {
        throw new TypeError(`harness tool '${declaration.name}' needs a function`);
      }
      if (declaration.canReconcile && typeof entry.reconcile !== "function") {
        throw new TypeError(`harness tool '${declaration.name}' is declared canReconcile: give its reconcile hook`);
      }
      if (!declaration.canReconcile && entry.reconcile !== undefined) {
        throw new TypeError(`harness tool '${declaration.name}' has a reconcile hook: declare it reconcilable`);
      }
      if (tools.has(declaration.name)) {
        throw new TypeError(`harness tool '${declaration.name}' added twice`);
      }
      tools.set(declaration.name, Object.freeze({ declaration, run: entry.run, reconcile: entry.reconcile }));
    }
    if (tools.size === 0) {
      throw new TypeError("a harness tool runner needs at least one tool");
    }
    const timeout = options.authorizationTimeoutMs ?? DEFAULT_AUTHORIZATION_TIMEOUT_MS;
    if (!Number.isFinite(timeout) || timeout < 0) {
      throw new RangeError(`authorizationTimeoutMs must not be negative: ${timeout}`);
    }
    this.sessionId = claim.sessionId;
    this.epoch = claim.epoch;
    this.sessionStart = claim.sessionStartedAt?.getTime();
    this.writer = client.writer(claim);
    this.tools = tools;
    this.authorizationTimeoutMs = timeout;
    this.onAuthorized = options.onAuthorized ?? (() => undefined);
    this.principal = options.principal === undefined ? undefined : requireText(options.principal, "principal");
  }

  /** The tools to declare when the session starts (`NewSession.harnessTools`), in the order they were given. */
  declarations(): readonly HarnessTool[] {
    return Object.freeze([...this.tools.values()].map((t) => t.declaration));
  }

  /**
   * Takes call `callId`, asked for by the `assistant_message` at `requestSeq`, as far as it goes: waits up to
   * `authorizationTimeoutMs` (default the runner's) for its authorization (`not_yet_authorized` after that; nothing
   * ran), starts it, runs its tool's function and reports the result; or reconciles an attempt that started and has no
   * result; or answers the result the log has already.
   *
   * @throws TypeError if that event does not ask for the call, or the runner has no function for its tool
   * @throws HarnessHookError if the tool's reconciliation hook threw (nothing appended; run again later)
   * @throws TetherError if a service could not be reached within the client's retries; run it again later (in this
   *   runner, a start or a result that did not get through is taken up as this runner's own, not as a crash's)
   * @throws the reason of `options.signal` (an `AbortError` when it was aborted without one) once it aborts, before the
   *   run would wait or start the call: nothing was appended for the call; run it again later (see {@link HarnessRunOptions})
   */
  async run(
    requestSeq: number,
    callId: string,
    authorizationTimeoutMs: number = this.authorizationTimeoutMs,
    options: HarnessRunOptions = {},
  ): Promise<HarnessRunResult> {
    requireText(callId, "callId");
    if (!Number.isSafeInteger(requestSeq) || requestSeq < 1) {
      throw new RangeError(`requestSeq starts at 1, not ${requestSeq}`);
    }
    if (!Number.isFinite(authorizationTimeoutMs) || authorizationTimeoutMs < 0) {
      throw new RangeError(`authorizationTimeoutMs must not be negative: ${authorizationTimeoutMs}`);
    }
    const signal = options.signal;
    signal?.throwIfAborted();
    let deadline = Date.now() + authorizationTimeoutMs;
    let refusals = 0;
    for (let step = 0; step < MAX_STEPS; step++) {
      const fold = await this.read(requestSeq, callId);
      if (fold === undefined) {
        return notFound(this.sessionId);
      }
      // the function given for the tool's name, else the one for every other tool (the session's "*" declaration)
      const tool = this.tools.get(fold.tool) ?? this.tools.get(HARNESS_TOOL_WILDCARD);
      if (tool === undefined) {
        throw new TypeError(
          `call ${callId} is a call of '${fold.tool}', which this runner has no function for (add it, or one for ${HARNESS_TOOL_WILDCARD}, to its tools)`,
        );
      }
      const next = fold.next();
      let done: HarnessRunResult | undefined;
      switch (next.kind) {
        case "finished":
          this.unreported.delete(fold.key()); // a result someone appended after all (the append that rejected, or a person)
          this.startsInDoubt.delete(fold.key());
          this.failures.delete(fold.key());
          return next.result;
        case "wait": {
          signal?.throwIfAborted();
          const left = deadline - Date.now();
          if (left <= 0) {
            return Object.freeze({ kind: "not_yet_authorized", callId, awaitingApproval: next.awaitingApproval, lastSeq: fold.lastSeq });
          }
          if (!(await this.awaitChange(fold, left, signal))) {
            deadline = Number.NEGATIVE_INFINITY; // ran out: answer as the log stands now, an approver asked meanwhile included
          }
          continue;
        }
        case "start":
          signal?.throwIfAborted();
          done = await this.start(fold, tool, next.attempt, next.idempotencyKey);
          break;
        case "reconcile": {
          const call = this.invocation(fold, next.attempt, next.idempotencyKey, next.externalKey ?? next.idempotencyKey);
          const kept = this.unreported.get(next.idempotencyKey); // this runner ran the attempt: only its result's append failed
          if (kept !== undefined) {
            done = await this.reportRan(call, kept);
          } else if (this.startsInDoubt.delete(next.idempotencyKey)) {
            // this runner's start got in and the attempt never ran; unless another worker claimed since: it reconciles it
            done =
              fold.claimEpoch() > this.epoch
                ? Object.freeze({ kind: "fenced", currentEpoch: fold.claimEpoch(), message: `session ${this.sessionId} was claimed at epoch ${fold.claimEpoch()}` })
                : await this.runAttempt(call, tool);
          } else {
            done = await this.reconcile(fold, tool, next.attempt, next.idempotencyKey, next.externalKey);
          }
          break;
        }
      }
      if (done?.kind === "rejected" && ++refusals > 2) {
        return done; // refused again after reading the log again: not a race, a call the sequencer will not take
      } else if (done !== undefined && done.kind !== "rejected") {
        return done;
      }
      // the log moved under us (or the step was in it already): read it again and decide again
    }
    throw new Error(`call ${callId} of ${this.sessionId} made no progress in ${MAX_STEPS} steps`);
  }

  /**
   * After a claim: takes every harness-run call the checkpoint (at least as of the claim) has started or authorized,
   * whose tool this runner has a function for, through {@link run} — a started call without result is reconciled, an
   * authorized one not started runs. Calls waiting for an approver are left for the harness's own steps, and so are
   * the calls of `options.skip` (ones a saved run of the harness will take up itself, in its own context). Stops at
   * `fenced`.
   *
   * @returns one result per call taken, in the checkpoint's order; a `not_found` alone when the session is gone
   */
  async resume(options: { readonly skip?: ReadonlySet<string> } = {}): Promise<readonly HarnessRunResult[]> {
    const checkpoint = await this.client.checkpoint(this.sessionId, ReadAt.atLeast(this.claim.lastSeq));
    if (checkpoint === undefined) {
      return Object.freeze([notFound(this.sessionId)]);
    }
    const results: HarnessRunResult[] = [];
    for (const c of checkpoint.toolCursor) {
      const open = c.state === "STARTED" || (c.state === "AUTHORIZED" && !c.awaitingApproval);
      if (c.runBy === "HARNESS" && open && c.tool !== undefined && (this.tools.has(c.tool) || this.tools.has(HARNESS_TOOL_WILDCARD))
          && options.skip?.has(c.callId) !== true) {
        const result = await this.run(c.requestSeq, c.callId, 0);
        results.push(result);
        if (result.kind === "fenced") {
          break;
        }
      }
    }
    return Object.freeze(results);
  }

  toString(): string {
    return `HarnessToolRunner[${this.sessionId}, epoch ${this.epoch}, tools ${[...this.tools.keys()].join(", ")}]`;
  }

  // -----------------------------------------------------------------------------------------------------------------

  private async read(requestSeq: number, callId: string): Promise<HarnessCallFold | undefined> {
    const fold = new HarnessCallFold(this.sessionId, requestSeq, callId);
    let from = requestSeq;
    for (;;) {
      const page = await this.client.events(this.sessionId, from, PAGE);
      if (page === undefined) {
        return undefined;
      }
      page.events.forEach((e) => fold.apply(e));
      if (from === requestSeq && !fold.requestSeen) {
        throw new TypeError(`seq ${requestSeq} of ${this.sessionId} is not an assistant_message asking for call ${callId}`);
      }
      if (page.events.length === 0 || page.atEnd) {
        return fold;
      }
      from = nextPage(`reading the events of ${this.sessionId}`, from, page.nextSeq);
    }
  }

  /** Follows the live log until the call is no longer waiting; false if `leftMs` ran out first; rejects once `signal` aborts. */
  private async awaitChange(fold: HarnessCallFold, leftMs: number, signal: AbortSignal | undefined): Promise<boolean> {
    const found = await this.client.awaitEvent(
      this.sessionId,
      fold.lastSeq + 1,
      (e) => {
        fold.apply(e);
        return fold.next().kind !== "wait";
      },
      leftMs,
      { signal },
    );
    return found !== undefined;
  }

  /** The attempt as its function or hook sees it: `handedKey` is the key to hand to external systems, `logKey` the log's. */
  private invocation(fold: HarnessCallFold, attempt: number, logKey: string, handedKey: string): ToolInvocation {
    return Object.freeze({
      sessionId: this.sessionId,
      callId: fold.callId,
      tool: fold.tool,
      argumentsJson: fold.argumentsJson,
      requestSeq: fold.requestSeq,
      idempotencyKey: handedKey,
      logKey,
      attempt,
      epoch: this.epoch,
    });
  }

  private async start(fold: HarnessCallFold, tool: Registered, attempt: number, key: string): Promise<HarnessRunResult | undefined> {
    const startedAt = await this.sessionStartedAtMs();
    if (startedAt === undefined) {
      return notFound(this.sessionId);
    }
    const call = this.invocation(fold, attempt, key, externalKeyOf(key, startedAt));
    this.onAuthorized(call);
    const alone = !this.starting.has(key);
    this.starting.add(key);
    this.startsInDoubt.delete(key); // the log has no start of it: the one in doubt did not get in
    let started: AppendResult;
    try {
      started = await this.writer.append(`harness/${key}/start`, NewEvent.toolCallStarted(call.callId, key, this.epoch, attempt, call.idempotencyKey));
    } catch (e) {
      if (alone) {
        this.startsInDoubt.add(key); // it may have got in: the next run finds it, or starts it again
      }
      throw e;
    } finally {
      if (alone) {
        this.starting.delete(key);
      }
    }
    if (started.kind !== "appended") {
      return refusal(started);
    }
    if (started.allDuplicates) {
      if (alone && started.events[0]!.seq > fold.lastSeq) {
        // a duplicate after the log this run read, with no other start of the key under way here, is this run's own (its
        // answer was lost and the transport sent it again) -- or another worker's, which claimed the session and started
        // the call under the same key since (a duplicate is answered before the epoch is checked): the next step reads
        // the log again and runs it as a start in doubt, unless another worker claimed the session since
        this.startsInDoubt.add(key);
      }
      return undefined; // an earlier run of this step started it: what happened since is in the log (reconcile, or its result)
    }
    return this.runAttempt(call, tool);
  }

  /** Runs the tool's function for an attempt this runner started, and reports its output. */
  private async runAttempt(call: ToolInvocation, tool: Registered): Promise<HarnessRunResult | undefined> {
    let result: ToolOutput;
    try {
      result = checkOutput(await tool.run(call));
    } catch (e) {
      const name = call.tool;
      if (!tool.declaration.mutating) {
        result = ToolOutput.error(`${name} failed: ${String(e)}`);
      } else if (tool.declaration.canReconcile) {
        this.failures.set(call.logKey, `${name} failed: ${String(e)}`); // for the ERROR once it may not start again
        return undefined; // it may have taken effect: read the log again and reconcile it by its key
      } else {
        result = ToolOutput.unknown(`${name} threw ${String(e)} after its start; it may or may not have taken effect, and it has no reconciliation hook`);
      }
    }
    return this.reportRan(call, result);
  }

  /** Reports what this runner's function produced; kept for the next run of the call if the append rejects. */
  private async reportRan(call: ToolInvocation, result: ToolOutput): Promise<HarnessRunResult | undefined> {
    this.unreported.set(call.logKey, result);
    const reported = await this.report(call, result, "RAN");
    this.unreported.delete(call.logKey);
    return reported;
  }

  /**
   * Attempt `attempt`, started under log key `key`, has no result: asks the hook by the key its start handed the tool,
   * `externalKey` as its `tool_call_started` recorded it, or the log key when it recorded none (an SDK before it).
   */
  private async reconcile(
    fold: HarnessCallFold,
    tool: Registered,
    attempt: number,
    key: string,
    externalKey: string | undefined,
  ): Promise<HarnessRunResult | undefined> {
    const call = this.invocation(fold, attempt, key, externalKey ?? key);
    if (tool.reconcile === undefined) {
      return this.report(
        call,
        ToolOutput.unknown(`attempt ${attempt} of ${call.tool} started (key ${call.idempotencyKey}) and has no result; the tool has no reconciliation hook: a person decides`),
        "RECONCILED",
      );
    }
    let found: Reconciliation;
    try {
      found = await tool.reconcile(call);
      if (found === undefined || found === null || !["took_effect", "no_effect", "cannot_tell"].includes(found.kind)) {
        throw new TypeError(`a reconciliation hook answers a Reconciliation, not ${String(found)}`);
      }
    } catch (e) {
      throw new HarnessHookError(call.callId, e);
    }
    const done = await this.reconciled(call, found);
    this.failures.delete(key); // reported, or retried under a new key (kept if that rejected: the next run's ERROR names it)
    return done;
  }

  /** Reports what the hook `found` about attempt `call`, or retries it (RETRY) if it may start again. */
  private async reconciled(call: ToolInvocation, found: Reconciliation): Promise<HarnessRunResult | undefined> {
    switch (found.kind) {
      case "took_effect":
        return this.report(call, found.output, "RECONCILED");
      case "cannot_tell":
        return this.report(call, ToolOutput.unknown(found.reason), "RECONCILED");
      case "no_effect": {
        const why = `reconciled by key ${call.idempotencyKey}: no effect (${found.reason})`;
        if (call.attempt >= HarnessToolRunner.MAX_STARTS) {
          // started the most times a call is, as the executor's calls: it ends ERROR, not started again
          const failure = this.failures.get(call.logKey); // how this runner's function failed, if it ran the attempt
          const started = `started ${call.attempt} times, the most a call is (MAX_STARTS = ${HarnessToolRunner.MAX_STARTS}), and is not started again: attempt ${call.attempt} was ${why}`;
          return this.report(
            call,
            ToolOutput.error(failure !== undefined ? `${failure}. It was ${started}` : `${call.tool} was ${started}`),
            failure !== undefined ? "RAN" : "RECONCILED",
          );
        }
        const retry = await this.writer.append(`harness/${call.logKey}/no-effect`, NewEvent.toolOutcomeResolved(call.callId, "RETRY", await this.whoAmI(), why));
        return retry.kind === "appended" ? undefined : refusal(retry); // then the next attempt, under the RETRY's key
      }
    }
  }

  private async report(call: ToolInvocation, result: ToolOutput, how: CompletedHow): Promise<HarnessRunResult | undefined> {
    // the result is the log's: under the call's log key, as its start (the external key is the tool's)
    const reported = await this.writer.append(`harness/${call.logKey}/result`, NewEvent.toolResult(call.callId, result.status, result.content, call.logKey));
    if (reported.kind !== "appended") {
      return refusal(reported);
    }
    if (reported.allDuplicates) {
      return undefined; // reported before: the log says what
    }
    const seq = reported.seqs[0]!;
    switch (result.status) {
      case "OK":
      case "ERROR":
        return Object.freeze({ kind: "completed", callId: call.callId, idempotencyKey: call.logKey, status: result.status, content: result.content, resultSeq: seq, how });
      case "CANCELLED":
        return Object.freeze({ kind: "cancelled", callId: call.callId, reason: result.content ?? "cancelled by the harness", seq });
      case "UNKNOWN":
        return Object.freeze({ kind: "outcome_unknown", callId: call.callId, idempotencyKey: call.logKey, reason: result.content ?? "", seq });
    }
  }

  /**
   * The session's start, in epoch ms: the claim's `sessionStartedAt` — the start of the session claimed, even when it
   * has been erased and another made under its id since (whose calls' appends then answer `not_found`) — or, from a
   * service before it, the `occurredAt` of its first event (seq 1, `session_started` or `session_forked`), read once per
   * runner; undefined when the session is not found.
   */
  private async sessionStartedAtMs(): Promise<number | undefined> {
    if (this.sessionStart === undefined) {
      const page = await this.client.events(this.sessionId, 1, 1);
      if (page === undefined) {
        return undefined;
      }
      const first = page.events[0];
      if (first === undefined || first.seq !== 1) {
        throw new MalformedAnswerError(`cannot read the first event of ${this.sessionId}: the session's start is part of its calls' external keys`);
      }
      this.sessionStart = sessionStartOf(first);
    }
    return this.sessionStart;
  }

  /** Who this worker is (a harness's RETRY is in its own name): the actor of its claim's event. */
  private async whoAmI(): Promise<string> {
    if (this.principal === undefined) {
      const page = await this.client.events(this.sessionId, this.claim.lastSeq, 1);
      const id = page?.events[0]?.actor.id;
      if (id === undefined || id === "") {
        throw new TetherError(`cannot read the claim's event ${this.claim.lastSeq} of ${this.sessionId}`);
      }
      this.principal = id;
    }
    return this.principal;
  }
}

/** `fenced` and `not_found` end the run; a `rejected` is read again (the log may have moved); undefined: read again. */
function refusal(result: AppendResult): HarnessRunResult | undefined {
  switch (result.kind) {
    case "fenced":
    case "not_found":
    case "rejected":
      return result;
    default:
      return undefined; // conflict: no expectedSeq is sent, so only a newer service could answer it; read again
  }
}

function notFound(sessionId: string): NotFound {
  return Object.freeze({ kind: "not_found", message: `session ${sessionId} not found` });
}

function checkOutput(result: ToolOutput): ToolOutput {
  const statuses: readonly string[] = ["OK", "ERROR", "CANCELLED", "UNKNOWN"];
  if (result === undefined || result === null || !statuses.includes(result.status)) {
    throw new TypeError(`a tool function answers a ToolOutput, not ${JSON.stringify(result)}`);
  }
  if (result.content !== undefined && typeof result.content !== "string") {
    throw new TypeError("a tool output's content must be a string");
  }
  return result;
}

// --- the external key --------------------------------------------------------------------------------------------

/**
 * The key a harness hands a tool for the call of log key `logKey` (`<sessionId>/<seq>/<callId>`) in a session that
 * started at `sessionStartedAtMs` (epoch ms of its first event's `occurredAt`): `<logKey>~<sessionStartedAtMs>` — core/
 * `IdempotencyKey.external`. Not API.
 */
export function externalKeyOf(logKey: string, sessionStartedAtMs: number): string {
  if (!Number.isSafeInteger(sessionStartedAtMs)) {
    throw new RangeError(`a session's start is whole epoch milliseconds, not ${sessionStartedAtMs}`);
  }
  return `${logKey}~${sessionStartedAtMs}`;
}

/** The epoch ms of an event's `occurredAt`: the API's text (parsed by {@link epochMillisOf}), else its Date. */
function sessionStartOf(first: SessionEvent): number {
  const raw = first.json.occurredAt;
  if (typeof raw === "string") {
    const ms = epochMillisOf(raw);
    if (ms === undefined) {
      throw new MalformedAnswerError(`the first event of ${first.sessionId ?? "the session"} has an unreadable occurredAt: ${JSON.stringify(raw)}`);
    }
    return ms;
  }
  const at = first.occurredAt?.getTime();
  if (at === undefined || !Number.isSafeInteger(at)) {
    throw new MalformedAnswerError(`the first event of ${first.sessionId ?? "the session"} has no occurredAt: the session's start is part of its calls' external keys`);
  }
  return at;
}

const INSTANT = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(?:\.(\d{1,9}))?(Z|[+-]\d{2}:\d{2})$/;

/**
 * The epoch milliseconds of an ISO-8601 instant as the services write it (`2026-12-01T08:46:49.377Z`, Java's
 * `Instant.toString`: 0 to 9 fractional digits), the digits below the millisecond cut, never rounded (as
 * `Instant.toEpochMilli` and Avro's timestamp-millis cut them), which `Date.parse` alone does not promise. Undefined for
 * text of another shape. Not API.
 */
export function epochMillisOf(text: string): number | undefined {
  const m = INSTANT.exec(text);
  if (m === null) {
    return undefined;
  }
  const ms = Date.parse(`${m[1]!}.${(m[2] ?? "").padEnd(3, "0").slice(0, 3)}${m[3]!}`);
  return Number.isNaN(ms) ? undefined : ms;
}

// --- the fold ----------------------------------------------------------------------------------------------------

/** What the runner does next. */
type Next =
  /** Not authorized yet: wait (`awaitingApproval`: an approver was asked). */
  | { readonly kind: "wait"; readonly awaitingApproval: boolean }
  /** Authorized, not interrupted, no attempt without a result: start attempt `attempt` under `idempotencyKey`. */
  | { readonly kind: "start"; readonly attempt: number; readonly idempotencyKey: string }
  /**
   * Attempt `attempt` started under log key `idempotencyKey` and has no result: its outcome is unknown; reconcile it by
   * the key its start handed out, never start it again. `externalKey` is its `tool_call_started`'s; undefined when that
   * start recorded none (an SDK before it), which handed out the log key.
   */
  | { readonly kind: "reconcile"; readonly attempt: number; readonly idempotencyKey: string; readonly externalKey: string | undefined }
  /** The call is over for the runner. */
  | { readonly kind: "finished"; readonly result: HarnessRunResult };

/**
 * One harness-run call folded from its session's log, from the `assistant_message` that asked for it on, with the
 * sequencer's rules for it: what the runner should do next. The Java SDK's `HarnessCallFold`, rule for rule. Not API.
 */
export class HarnessCallFold {
  tool = "";
  argumentsJson = "{}";
  requestSeen = false;
  /** The last seq folded. */
  lastSeq = 0;
  private keySeq: number;
  private authorized = false;
  private awaitingApproval = false;
  private running = false;
  /** The `externalKey` of the latest `tool_call_started` (of the attempt under the current key); undefined if none. */
  private externalKey: string | undefined;
  private attempts = 0;
  private interruptSeq = 0;
  /** The highest epoch a `session_claimed` after the request gave; 0 when none was folded. */
  private claimEpochSeen = 0;
  private unknown: HarnessRunResult | undefined;
  private finished: HarnessRunResult | undefined;

  constructor(
    readonly sessionId: string,
    readonly requestSeq: number,
    readonly callId: string,
  ) {
    this.keySeq = requestSeq;
  }

  /** Folds the next event; an event at or before the last one folded is ignored (a page read twice). */
  apply(e: SessionEvent): void {
    if (e.seq <= this.lastSeq || e.seq < this.requestSeq) {
      return;
    }
    this.lastSeq = e.seq;
    if (e.seq === this.requestSeq) {
      this.request(e);
      return;
    }
    if (!this.requestSeen || this.finished !== undefined) {
      return;
    }
    if (e.type === "turn_interrupted") {
      this.interruptSeq = e.seq;
      return;
    }
    if (e.type === "session_claimed") {
      const epoch = e.json.epoch;
      this.claimEpochSeen = Math.max(this.claimEpochSeen, typeof epoch === "number" ? epoch : 0);
      return;
    }
    if (str(e, "callId") !== this.callId) {
      return;
    }
    switch (e.type) {
      case "approval_requested":
        this.awaitingApproval = true;
        break;
      case "approval_granted":
        this.awaitingApproval = false;
        break;
      case "approval_denied": {
        const approver = str(e, "approver");
        this.finished = Object.freeze({
          kind: "denied",
          callId: this.callId,
          reason: `${approver === undefined ? "denied: " : `denied by ${approver}: `}${str(e, "reason") ?? "(no reason)"}`,
          seq: e.seq,
        });
        break;
      }
      case "tool_call_authorized":
        this.authorized = true;
        this.awaitingApproval = false;
        break;
      case "tool_call_started": {
        const attempt = e.json.attempt;
        this.attempts = typeof attempt === "number" ? attempt : this.attempts + 1;
        this.running = true;
        this.externalKey = str(e, "externalKey");
        break;
      }
      case "tool_result":
        this.result(e);
        break;
      case "tool_outcome_resolved":
        this.resolution(e);
        break;
      default:
      // other types say nothing about this call
    }
  }

  /** The call's idempotency key now: from its request, or from the latest RETRY (core/ `IdempotencyKey.of`). */
  key(): string {
    return `${this.sessionId}/${this.keySeq}/${this.callId}`;
  }

  /** The highest epoch a `session_claimed` after the request gave; 0 when none was folded. */
  claimEpoch(): number {
    return this.claimEpochSeen;
  }

  /** What to do next, as the log stands so far. */
  next(): Next {
    if (!this.requestSeen) {
      throw new Error(`seq ${this.requestSeq} of ${this.sessionId} is not an assistant_message asking for call ${this.callId}`);
    }
    if (this.finished !== undefined) {
      return { kind: "finished", result: this.finished };
    }
    if (this.unknown !== undefined) {
      return { kind: "finished", result: this.unknown };
    }
    if (this.running) {
      return { kind: "reconcile", attempt: this.attempts, idempotencyKey: this.key(), externalKey: this.externalKey };
    }
    if (this.interruptSeq > this.keySeq) {
      return {
        kind: "finished",
        result: Object.freeze({
          kind: "cancelled",
          callId: this.callId,
          reason: `its turn was interrupted at seq ${this.interruptSeq} before it started`,
          seq: this.interruptSeq,
        }),
      };
    }
    return this.authorized ? { kind: "start", attempt: this.attempts + 1, idempotencyKey: this.key() } : { kind: "wait", awaitingApproval: this.awaitingApproval };
  }

  private request(e: SessionEvent): void {
    if (e.type !== "assistant_message" || !Array.isArray(e.json.toolCalls)) {
      return;
    }
    for (const call of e.json.toolCalls as unknown[]) {
      if (typeof call === "object" && call !== null && (call as Record<string, unknown>).callId === this.callId) {
        const c = call as Record<string, unknown>;
        this.tool = typeof c.tool === "string" ? c.tool : "";
        this.argumentsJson = typeof c.argumentsJson === "string" ? c.argumentsJson : "{}";
        this.requestSeen = true;
      }
    }
  }

  private result(e: SessionEvent): void {
    const raw = str(e, "status") ?? "UNKNOWN";
    // a status a newer service added: fail closed
    const status: ToolStatus = raw === "OK" || raw === "ERROR" || raw === "CANCELLED" ? raw : "UNKNOWN";
    const key = str(e, "idempotencyKey") ?? this.key();
    const content = str(e, "content") ?? "";
    switch (status) {
      case "UNKNOWN":
        this.unknown = Object.freeze({ kind: "outcome_unknown", callId: this.callId, idempotencyKey: key, reason: content, seq: e.seq });
        this.running = false;
        this.authorized = false;
        break;
      case "CANCELLED":
        this.finished = Object.freeze({ kind: "cancelled", callId: this.callId, reason: content === "" ? "cancelled" : content, seq: e.seq });
        break;
      case "ERROR":
        this.finished = this.running
          ? this.completed(e, key, status)
          : Object.freeze({ kind: "denied", callId: this.callId, reason: content === "" ? "refused" : content, seq: e.seq }); // the approval-service's answer: it never ran
        break;
      case "OK":
        this.finished = this.completed(e, key, status);
        break;
    }
  }

  private completed(e: SessionEvent, key: string, status: "OK" | "ERROR"): ToolCompleted {
    return Object.freeze({ kind: "completed", callId: this.callId, idempotencyKey: key, status, content: str(e, "content"), resultSeq: e.seq, how: "REPORTED_BEFORE" });
  }

  private resolution(e: SessionEvent): void {
    const resolution = str(e, "resolution") ?? "";
    if (resolution === "RETRY") {
      // a new key derived from the RETRY's seq; the call may start once more (a new attempt, its own external key)
      this.keySeq = e.seq;
      this.authorized = true;
      this.running = false;
      this.externalKey = undefined;
      this.unknown = undefined;
    } else {
      this.finished = Object.freeze({
        kind: "resolved_by_person",
        callId: this.callId,
        resolution,
        approver: str(e, "approver") ?? "",
        reason: str(e, "reason") ?? "",
        seq: e.seq,
      });
    }
  }
}

/** A text field of the event, as the Java SDK's `SessionEvent.text` reads it (another JSON value as its JSON text). */
function str(e: SessionEvent, field: string): string | undefined {
  const v = e.json[field];
  return v === undefined || v === null ? undefined : typeof v === "string" ? v : JSON.stringify(v);
}
