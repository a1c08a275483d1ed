import { createHash, randomUUID } from "node:crypto";
import { hostname } from "node:os";
import { RunContext, UserError, type AgentInputItem, type Agent, type FunctionTool, type RunState, type RunToolApprovalItem } from "@openai/agents-core";
import type { SessionHistoryTransactionArgs, SessionHistoryTransactionAwareSession } from "@openai/agents-core";
import {
  EventTexts,
  HarnessTool,
  HarnessToolRunner,
  NewEvent,
  SessionLog,
  TetherError,
  ToolOutput,
  type Claimed,
  type HarnessRunResult,
  type NewEvent as Event,
  type NewSession,
  type Reconciliation,
  type TetherClient,
  type ToolInvocation,
  type ToolMode,
} from "@tether/client";
import { HistoryFold, type LoggedCall } from "./history.js";
import { FRAMEWORK, HISTORY, RUN_STATE, canonical, planItem, requireItems, restore, shownOf, type BatchCalls, type HistoryRecord, type Item, type ItemRef } from "./items.js";
import { ToolRunFailed, noted, runOutcome, type FailureNote, type tetherTool } from "./tool-errors.js";

/** A function tool the agent runs through Tether as a harness-run tool (docs/ARCHITECTURE.md §6). */
export interface TetherToolSpec {
  /**
   * The tool as the agent would have run it: {@link tetherTool}`({...})` (the SDK's `tool({...})`, whose failures the
   * session sees: Tether's rules for a tool that throws decide the call's result, the model is told what its
   * `errorFunction` says), or the SDK's own `tool({...})` (a failure recognised only by the SDK's default error text; see
   * the README, "When a tool fails").
   */
  readonly tool: FunctionTool<any, any, any>;
  /** It changes something outside the conversation: gated by default (an approver decides each call). Default false. */
  readonly mutating?: boolean;
  /**
   * Finds out, by the attempt's idempotency key (`attempt.idempotencyKey`: the key its start handed the tool, what
   * {@link idempotencyKeyOf} gave it; the log key for an attempt started by an SDK before external keys), whether an
   * attempt that started and has no result took effect (see `ToolReconciler` of @tether/client). Without one, such an
   * attempt ends UNKNOWN for a person to decide.
   */
  readonly reconcile?: (attempt: ToolInvocation) => Reconciliation | Promise<Reconciliation>;
}

export interface TetherSessionOptions {
  /** Tether, with an agent's token: the session is its tenant's. */
  readonly client: TetherClient;
  /** The Tether session's id; default a new one (`oa-<uuid>`). Give the same id to continue a conversation. */
  readonly sessionId?: string;
  /** This process, as its claims name it; default `openai-agents-<host>-<pid>`. */
  readonly workerId?: string;
  /** The harness version to claim the session as; default the session's own. */
  readonly harnessVersion?: string;
  /** What a new session is created with; every field has a default. */
  readonly session?: {
    readonly objective?: string;
    readonly modelId?: string;
    readonly toolMode?: ToolMode;
    readonly systemPrompt?: string;
    readonly constraints?: readonly string[];
    readonly tokenBudget?: number;
  };
  /** The function tools that run through Tether; give the agent {@link TetherSession.tools}. */
  readonly tools?: readonly TetherToolSpec[];
  /** The other tools' calls: recorded-only (`recorded`, the default: `*`) or Tether's tool-executor's (`executor`). */
  readonly otherTools?: "recorded" | "executor";
  /**
   * How long a tool's call waits for its authorization when it runs (an approver's decision comes through the run's
   * interruption); default 60 s. A call still not authorized then stops the run with {@link ToolCallPendingError}.
   */
  readonly authorizationTimeoutMs?: number;
}

/**
 * A Tether-run tool's call that was not authorized within `authorizationTimeoutMs` (an approver has not decided, or
 * Tether's approval-service has not answered yet): the run stops with it (the SDK's `ToolCallError` carries it:
 * {@link ToolCallPendingError.in}), and nothing stands in the history as the call's output. Nothing ran. Once it is decided, {@link TetherSession.resume} runs the call if it was granted and puts
 * the call and its result into the history; then run the agent again.
 */
export class ToolCallPendingError extends Error {
  override readonly name = "ToolCallPendingError";
  constructor(
    readonly callId: string,
    readonly tool: string,
  ) {
    super(`the call ${callId} of ${tool} waits for its authorization (an approver): nothing ran; resume() once it is decided`);
  }

  /** The pending call a run failed with: the error itself, or the one the SDK's `ToolCallError` carries; undefined for any other. */
  static in(error: unknown): ToolCallPendingError | undefined {
    if (error instanceof ToolCallPendingError) {
      return error;
    }
    const inner = (error as { error?: unknown; cause?: unknown } | undefined)?.error ?? (error as { cause?: unknown } | undefined)?.cause;
    return inner instanceof ToolCallPendingError ? inner : undefined;
  }
}

/** What {@link TetherSession.settleApprovals} did with a run's interruptions. */
export interface SettledApprovals {
  readonly approved: readonly string[];
  readonly rejected: readonly string[];
  /** Calls nobody has decided yet: run the state again once they are (or it interrupts again). */
  readonly pending: readonly string[];
}

/** What {@link TetherSession.resume} found and did. */
export interface ResumeReport {
  /** The harness-run calls the runner took up again: reconciled, run, or left to a person. */
  readonly calls: readonly HarnessRunResult[];
  /** Items added to the history for calls Tether knows and the history did not have yet. */
  readonly restoredItems: number;
}

/**
 * A `Session` of the OpenAI Agents SDK (@openai/agents-core 0.20) whose history is a Tether session — see the README.
 *
 * - **Typed, once.** Items go into the log as the typed events that fit them (user and assistant messages, function
 *   calls, function call outputs), each once; other items are kept whole. A history record per change refers to them,
 *   so storage grows with the items, and Tether's context, recovery report and secret scrubbing see the conversation.
 * - **Append-only.** `popItem`, `clearSession`, a replaced suffix and a compaction are records too: the originals stay
 *   in the log (and in time-travel reads); only the history the model is given changes. Clearing and compacting are
 *   also Tether compactions, so Tether's own context agrees.
 * - **Atomic, idempotent transactions.** `applyHistoryTransaction` appends its events and record in one append at the
 *   log's last seq (a replaced suffix is checked against the log as it is then); a retried operation id is recognised
 *   from the log, a different transaction under the same id refused (until a clear, which forgets them).
 * - **One writer, tools once, approvals that survive a restart** — see {@link tools}, {@link saveRunState},
 *   {@link settleApprovals} and {@link resume}.
 */
export class TetherSession implements SessionHistoryTransactionAwareSession {
  /** The wrappers of the `tools` option, for the agent: each call runs through Tether, once. */
  readonly tools: readonly FunctionTool<any, any, any>[];
  readonly sessionId: string;
  private readonly client: TetherClient;
  private readonly fold: HistoryFold;
  private readonly log: SessionLog;
  private readonly texts: EventTexts;

  constructor(private readonly options: TetherSessionOptions) {
    this.client = options.client;
    this.texts = new EventTexts(options.client);
    this.sessionId = options.sessionId ?? `oa-${randomUUID()}`;
    this.fold = new HistoryFold(this.sessionId);
    this.log = new SessionLog(options.client, this.sessionId, {
      workerId: options.workerId ?? `openai-agents-${hostname()}-${process.pid}`,
      harnessVersion: options.harnessVersion,
      newSession: () => this.newSession(),
      fold: this.fold,
      afterSync: () => this.readOffloaded(),
    });
    this.tools = Object.freeze((options.tools ?? []).map((spec) => this.wrap(spec)));
  }

  // --- Session -------------------------------------------------------------------------------------------------------

  async getSessionId(): Promise<string> {
    return this.sessionId;
  }

  async getItems(limit?: number): Promise<AgentInputItem[]> {
    return this.log.exclusive(async () => {
      if (!(await this.log.sync())) {
        return [];
      }
      const refs = this.fold.history();
      const wanted = limit === undefined ? refs : limit <= 0 ? [] : refs.slice(Math.max(0, refs.length - limit));
      return (await Promise.all(wanted.map((r) => this.item(r)))) as AgentInputItem[];
    });
  }

  async addItems(items: AgentInputItem[]): Promise<void> {
    if (requireItems(items, "addItems: items").length === 0) {
      return;
    }
    await this.log.exclusive(() => this.addInParts(items as Item[]));
  }

  /**
   * Adds `items` as one change; when Tether refuses that as too large for one append (the session-service takes at most
   * 512 KiB once content over 64 KiB is offloaded: a few hundred items, or several just under 64 KiB — an imported
   * conversation, a turn's tool outputs), in parts, each a whole change: the first half, then the rest, so a crash
   * between parts leaves a prefix of the items, each once. One item too large is refused as before. Inside `exclusive`.
   */
  private async addInParts(items: readonly Item[]): Promise<void> {
    try {
      await this.changeHeld(`add/${digest(canonical(items))}/${randomUUID()}`, async (plan) => plan.history({ op: "add", drop: 0, items }, await this.callItems()));
    } catch (e) {
      if (items.length < 2 || !tooLarge(e)) {
        throw e;
      }
      const half = Math.ceil(items.length / 2);
      await this.addInParts(items.slice(0, half));
      await this.addInParts(items.slice(half));
    }
  }

  async popItem(): Promise<AgentInputItem | undefined> {
    let popped: Item | undefined;
    // looked at and changed in one turn on the log, as clearSession: a call made after this one (an addItems) comes after it
    await this.log.exclusive(async () => {
      if (!(await this.hasHistory())) {
        return; // nothing to pop: no session made, none claimed (a claim would fence the writer that has it)
      }
      await this.changeHeld(`pop/${randomUUID()}`, async (plan) => {
        const refs = this.fold.history();
        if (refs.length === 0) {
          popped = undefined;
          return;
        }
        popped = await this.item(refs[refs.length - 1]!);
        await plan.history({ op: "pop", drop: 1, items: [] });
      });
    });
    return popped as AgentInputItem | undefined;
  }

  /**
   * Leaves the session as a new one would be, as the SDK's `MemorySession.clearSession` does: no items, no operation id
   * of {@link applyHistoryTransaction} recognised (the same id applies again), and no run state for
   * {@link loadRunState}. Tether's log is append-only, so nothing is deleted from it: a `clear` history record, with a
   * cleared run state and a Tether compaction of the items, says from where on the session starts afresh; the events
   * before it stay in the log (and in time-travel reads). What Tether keeps by call id stays too: a call of a Tether-run
   * tool repeated exactly after the clear is still the earlier call (its result, not a second run).
   */
  async clearSession(): Promise<void> {
    await this.log.exclusive(async () => {
      if (!(await this.log.sync()) || !this.fold.hasAnythingToClear()) {
        return; // nothing to clear: no session made, none claimed
      }
      await this.changeHeld(`clear/${randomUUID()}`, async (plan) => {
        if (!this.fold.hasAnythingToClear()) {
          return;
        }
        const refs = this.fold.history();
        if (refs.length > 0) {
          // Tether's context drops them too: a compaction through the log's last event, the originals kept
          plan.events.push(NewEvent.contextCompacted(this.fold.lastSeq, "The conversation's history was cleared by the application.", sources(refs, this.fold.lastSeq)));
        }
        if (this.fold.savedRunState !== undefined) {
          plan.events.push(NewEvent.frameworkState(FRAMEWORK, RUN_STATE, "run:none", "null"));
        }
        await plan.history({ op: "clear", drop: refs.length, items: [] });
      });
    });
  }

  /** Whether the session exists and its history has an item, as read now (a change checks again under the claim); inside `exclusive`. */
  private async hasHistory(): Promise<boolean> {
    return (await this.log.sync()) && this.fold.history().length > 0;
  }

  async applyHistoryTransaction(args: SessionHistoryTransactionArgs): Promise<void> {
    const { operationId, transaction } = (args ?? {}) as Partial<SessionHistoryTransactionArgs>;
    if (typeof operationId !== "string" || operationId.trim() === "") {
      throw new UserError("Session history transaction operationId must be a non-empty string.");
    }
    if (typeof transaction !== "object" || transaction === null) {
      throw new UserError("applyHistoryTransaction: transaction must be an object ({ type: 'append_items' | 'replace_suffix', ... })");
    }
    // refused before the operation id is recorded: nothing is written
    if (transaction.type === "append_items") {
      requireItems(transaction.items, "applyHistoryTransaction: transaction.items");
    } else if (transaction.type === "replace_suffix") {
      requireItems(transaction.expectedSuffix, "applyHistoryTransaction: transaction.expectedSuffix");
      requireItems(transaction.replacement, "applyHistoryTransaction: transaction.replacement");
    }
    const tx = digest(canonical(transaction));
    // the same operation again after a clear is a new one: its own eventIds, not duplicates of the one before
    const step = () => `tx/${digest(operationId)}/${tx}${this.fold.clearSeq === undefined ? "" : `/after/${this.fold.clearSeq}`}`;
    await this.change(step, async (plan) => {
      const done = this.fold.operation(operationId);
      if (done !== undefined) {
        if (done.tx !== tx) {
          throw new UserError("Session history operation was already applied with a different transaction.");
        }
        return; // a retry: nothing to do
      }
      if (transaction.type === "append_items") {
        await plan.history({ op: "add", drop: 0, items: transaction.items as Item[], id: operationId, tx }, await this.callItems());
      } else if (transaction.type === "replace_suffix") {
        const refs = this.fold.history();
        const expected = transaction.expectedSuffix as Item[];
        const actual = refs.length < expected.length ? undefined : await Promise.all(refs.slice(refs.length - expected.length).map((r) => this.item(r)));
        if (actual === undefined || canonical(actual) !== canonical(expected)) {
          throw new UserError("Session history suffix no longer matches the transaction precondition.");
        }
        await plan.history({ op: "replace_suffix", drop: expected.length, items: transaction.replacement as Item[], id: operationId, tx });
      } else {
        throw new UserError(`Session history transaction of an unknown type: ${String((transaction as { type?: unknown }).type)}`);
      }
    });
  }

  async replaceHistoryWithCompaction(items: AgentInputItem[]): Promise<void> {
    requireItems(items, "replaceHistoryWithCompaction: items");
    await this.change(`compaction/${digest(canonical(items))}/${randomUUID()}`, async (plan) => {
      const refs = this.fold.history();
      const current = await Promise.all(refs.map((r) => this.item(r)));
      // what stays is referred to, not stored again; what goes is Tether's compaction too, when it is the oldest
      const kept = new Map(current.map((item, i) => [canonical(item), refs[i]!] as const));
      const keptSeqs = (items as Item[]).map((i) => kept.get(canonical(i))?.s).filter((s): s is number => s !== undefined);
      const dropped = refs.filter((r) => !keptSeqs.includes(r.s)).map((r) => r.s);
      const through = dropped.length === 0 ? undefined : Math.max(...dropped);
      if (through !== undefined && keptSeqs.every((s) => s > through)) {
        plan.events.push(NewEvent.contextCompacted(through, "Compacted by the OpenAI Agents SDK.", [...new Set(dropped)].sort((a, b) => a - b)));
      }
      await plan.history({ op: "compaction", base: null, items: items as Item[], reuse: kept });
    });
  }

  // --- run states and approvals --------------------------------------------------------------------------------------

  /**
   * Keeps a run's state in the session (a `framework_state` record), e.g. when a run stopped for approvals: another
   * process resumes it with {@link loadRunState}.
   */
  async saveRunState(state: RunState<any, any>): Promise<void> {
    const json = state.toString();
    // a step of its own: the same state saved again after another (or a clear) is the latest again, not a duplicate
    await this.change(`run-state/${digest(json)}/${randomUUID()}`, async (plan) => {
      plan.events.push(NewEvent.frameworkState(FRAMEWORK, RUN_STATE, `run:${digest(json).slice(0, 16)}`, json));
    });
  }

  /** Forgets the run state last saved (the run it belongs to completed): {@link loadRunState} answers undefined. */
  async clearRunState(): Promise<void> {
    await this.log.exclusive(async () => {
      if (!(await this.log.sync()) || this.fold.savedRunState === undefined) {
        return; // nothing to clear: no session made, none claimed (a claim would fence the writer that has it)
      }
      await this.changeHeld(`run-state/cleared/${randomUUID()}`, async (plan) => {
        if (this.fold.savedRunState !== undefined) {
          plan.events.push(NewEvent.frameworkState(FRAMEWORK, RUN_STATE, "run:none", "null"));
        }
      });
    });
  }

  /** The run state last saved, for `agent` (the agent the run was at is found by name from it); undefined if none. */
  async loadRunState<TAgent extends Agent<any, any>>(agent: TAgent): Promise<RunState<any, TAgent> | undefined> {
    const json = await this.log.exclusive(async () => ((await this.log.sync()) ? this.fold.savedRunState : undefined));
    if (json === undefined) {
      return undefined;
    }
    const { RunState: State } = await import("@openai/agents-core");
    return State.fromString(agent, json);
  }

  /**
   * Applies Tether's decisions to a run's interruptions: a call an approver granted (or the policy authorized) is
   * approved, one denied or cancelled rejected; one nobody decided stays. Run the state again afterwards.
   */
  async settleApprovals(state: RunState<any, any>): Promise<SettledApprovals> {
    await this.log.exclusive(() => this.log.sync());
    const approved: string[] = [];
    const rejected: string[] = [];
    const pending: string[] = [];
    for (const item of state.getInterruptions() as RunToolApprovalItem[]) {
      const callId = callIdOf(item);
      const call = callId === undefined ? undefined : this.fold.call(callId);
      if (call?.authorized === true) {
        state.approve(item);
        approved.push(callId!);
      } else if (call?.refused !== undefined || call?.resultSeq !== undefined) {
        state.reject(item);
        rejected.push(callId!);
      } else {
        pending.push(callId ?? "?");
      }
    }
    return { approved, rejected, pending };
  }

  /**
   * What a new process does before it continues a conversation whose last run was cut short (a crash): the
   * harness-run calls that started and have no result are reconciled (or left to a person: never run again blindly),
   * authorized ones not started are run (not one the SDK answered itself, which is cancelled, nor one the saved run
   * state holds: running that state takes it up, in its own run and context), and the history gets the calls Tether
   * knows of and the history does not (a call asked for, or answered, after the last history change; never a result
   * without its call, nor a call the application popped, cleared or compacted away), so the model sees what happened.
   */
  async resume(): Promise<ResumeReport> {
    const claim = await this.log.exclusive(async () => {
      const claimed = await this.log.claimed();
      await this.log.sync();
      return claimed;
    });
    // the calls a saved run state will take up itself when it runs again (an approval it stopped for): run there, in that
    // run (its context, its hooks), not here with an empty one
    const saved = this.fold.savedRunState;
    const pendingInState = saved === undefined ? new Set<string>() : callIdsIn(JSON.parse(saved));
    const calls = (this.options.tools?.length ?? 0) === 0 ? [] : await this.runner(claim).resume({ skip: pendingInState });
    let restored = 0;
    await this.change(`restore/${randomUUID()}`, async (plan) => {
      const present = new Set<string>();
      for (const ref of this.fold.history()) {
        const item = await this.item(ref);
        if (typeof item.callId === "string") {
          present.add(`${String(item.type)}:${item.callId}`);
        }
      }
      // only what came after the last change: a call the application popped, cleared or compacted away stays away
      const since = this.fold.historySeq ?? 0;
      const items: Item[] = [];
      for (const call of this.fold.allCalls()) {
        if (pendingInState.has(call.callId) || this.fold.runnerOf(call.tool) === "EXECUTOR") {
          continue;
        }
        let asked = present.has(`function_call:${call.callId}`);
        if (!asked && call.askSeq > since) {
          items.push({ type: "function_call", callId: call.callId, name: call.tool, arguments: call.argumentsJson, status: "completed" });
          asked = true;
        }
        // never an output without its call (the model refuses one)
        if (asked && call.resultSeq !== undefined && call.resultSeq > since && !present.has(`function_call_result:${call.callId}`)) {
          const result = this.fold.event(call.resultSeq);
          const text = await this.texts.of(result);
          items.push({ type: "function_call_result", callId: call.callId, name: call.tool, status: "completed", output: { type: "text", text: text ?? "" } });
        }
      }
      restored = items.length;
      if (items.length > 0) {
        await plan.history({ op: "restore", drop: 0, items });
      }
    });
    return { calls, restoredItems: restored };
  }

  // --- tools ---------------------------------------------------------------------------------------------------------

  private get authorizationTimeoutMs(): number {
    return this.options.authorizationTimeoutMs ?? 60_000;
  }

  private wrap(spec: TetherToolSpec): FunctionTool<any, any, any> {
    const original = spec.tool;
    return {
      ...original,
      needsApproval: async (_runContext, input, callId) => {
        if (callId === undefined) {
          return false;
        }
        const call = await this.ask(callId, original.name, JSON.stringify(input ?? {}));
        const decided = await this.awaitDecisionPoint(call.callId);
        return decided.itemSeq !== undefined && decided.authorized !== true && decided.refused === undefined && decided.resultSeq === undefined;
      },
      invoke: async (runContext, input, details) => {
        const callId = (details as { toolCall?: { callId?: string } } | undefined)?.toolCall?.callId;
        if (callId === undefined) {
          throw new UserError(`tool ${original.name} runs through Tether: it needs its call's id`);
        }
        const call = await this.ask(callId, original.name, input);
        const claim = await this.log.exclusive(() => this.log.claimed());
        const signal = (details as { signal?: AbortSignal } | undefined)?.signal;
        // what the tool answered when it ran here: the SDK makes its item of the output itself (an object as JSON, an
        // image as an image part); Tether's result holds its text. Or the exception it failed with, which the SDK raises
        // (its errorFunction null): once Tether's runner has recorded the call ERROR, the run fails with it as the SDK's would
        let ran: { readonly output: unknown } | { readonly error: unknown } | undefined;
        const result = await this.runner(claim, spec, async (invocation) => {
          if (signal?.aborted === true) {
            // the run stopped waiting for the call before Tether authorized it (cancelled, the tool's timeoutMs, a sibling's
            // failure) and gave the model an output of its own: the call must not take effect now, unseen
            return ToolOutput.cancelled(`${original.name} was not run: the run stopped waiting for it (${String(signal.reason)})`);
          }
          return runOnce(original, () => original.invoke(runContext, input, withKey(details, invocation)), (r) => (ran = r));
        }).run(call.askSeq, callId, this.authorizationTimeoutMs);
        if (result.kind === "completed" && result.how === "RAN" && ran !== undefined) {
          if ("error" in ran) {
            throw ran.error;
          }
          return ran.output;
        }
        const output = outputOf(result, original.name, callId);
        // an output Tether recorded (a run taking the call up again): a tool with an output schema answers its JSON value,
        // which the SDK serialises itself (its text as it is would reach the model quoted)
        return result.kind === "completed" && original.outputSchema !== undefined ? parsedOr(output) : output;
      },
    } as FunctionTool<any, any, any>;
  }

  /** Makes sure Tether knows the call (the SDK may run a tool before it saves the call's item): its request. */
  private async ask(callId: string, tool: string, argumentsJson: string): Promise<LoggedCall> {
    return this.log.exclusive(async () => {
      await this.log.claimed();
      await this.log.sync();
      const known = this.fold.call(callId);
      if (known !== undefined) {
        if (known.tool !== tool || !sameArguments(known.argumentsJson, argumentsJson)) {
          // a model that numbers its calls per turn: this is another call under an id the session used, and must not get
          // that call's authorization or result (Tether keys both by the id)
          throw new UserError(
            `call ${callId} (${tool} ${argumentsJson}) reuses the id of an earlier call of this session (${known.tool} ${known.argumentsJson}): ` +
              "Tether cannot tell the two apart, so it runs neither; use a model that gives each call its own id",
          );
        }
        return known;
      }
      await this.log.appendPlanned(`call/${digest(callId)}`, () => [NewEvent.assistantMessage("", [{ callId, tool, arguments: argumentsJson }])]);
      return this.fold.call(callId)!;
    });
  }

  /** Waits (up to 30 s, or the authorization timeout if shorter) until Tether answered the call: authorized, an approver asked, refused or answered. */
  private async awaitDecisionPoint(callId: string): Promise<LoggedCall> {
    const answered = (c: LoggedCall | undefined) => c !== undefined && (c.authorized === true || c.itemSeq !== undefined || c.refused !== undefined || c.resultSeq !== undefined);
    const deadline = Date.now() + Math.min(30_000, this.authorizationTimeoutMs);
    for (;;) {
      const call = await this.log.exclusive(async () => {
        await this.log.sync();
        return this.fold.call(callId);
      });
      if (answered(call) || Date.now() > deadline) {
        return call!;
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  /**
   * A harness-run tools runner for the session: for one spec's call with the run's own invocation (`run`), or, to
   * resume, for every spec with its tool invoked as the SDK would (a new run context, the call as its details).
   */
  private runner(claim: Claimed, spec?: TetherToolSpec, run?: (invocation: ToolInvocation) => Promise<ToolOutput>): HarnessToolRunner {
    const specs = spec === undefined ? this.options.tools ?? [] : [spec];
    return new HarnessToolRunner(this.client, claim, {
      tools: specs.map((s) => ({
        tool: declarationOf(s),
        run: async (invocation: ToolInvocation) => {
          if (run !== undefined) {
            return run(invocation);
          }
          if (this.fold.answeredWithoutTether(invocation.callId)) {
            // the run gave the model an output of its own for the call and never invoked the tool (a guardrail rejected
            // it, it was cancelled, its arguments did not parse): taking effect now would contradict what the model was told
            return ToolOutput.cancelled(`${invocation.tool} was not run: the run answered the call itself without running it`);
          }
          const call = { type: "function_call" as const, callId: invocation.callId, name: invocation.tool, arguments: invocation.argumentsJson, status: "completed" as const };
          return runOnce(s.tool, () => s.tool.invoke(new RunContext(), invocation.argumentsJson, withKey({ toolCall: call }, invocation)), () => undefined);
        },
        reconcile: s.reconcile,
      })),
    });
  }

  // --- writing -------------------------------------------------------------------------------------------------------

  /**
   * One change of the session: what `plan` puts in a batch, appended at once (see SessionLog.appendPlanned); `step`
   * names it, or says its name once the log is read.
   */
  private async change(step: string | (() => string), plan: (batch: Plan) => Promise<void>): Promise<void> {
    await this.log.exclusive(() => this.changeHeld(step, plan));
  }

  /** {@link change}, inside `exclusive`. */
  private async changeHeld(step: string | (() => string), plan: (batch: Plan) => Promise<void>): Promise<void> {
    await this.log.claimed();
    await this.log.sync();
    await this.log.appendPlanned(typeof step === "string" ? step : step(), async (firstSeq) => {
      const batch = new Plan(firstSeq, this.fold, this.texts);
      await plan(batch);
      return batch.events;
    });
  }

  private newSession(): NewSession {
    const wanted = this.options.session ?? {};
    const tools: HarnessTool[] = (this.options.tools ?? []).map(declarationOf);
    if ((this.options.otherTools ?? "recorded") === "recorded") {
      tools.push(HarnessTool.recorded("*", false));
    }
    return {
      objective: wanted.objective ?? "An OpenAI Agents SDK conversation",
      modelId: wanted.modelId ?? "openai-agents",
      toolMode: wanted.toolMode ?? "WRITE",
      systemPrompt: wanted.systemPrompt,
      constraints: wanted.constraints,
      tokenBudget: wanted.tokenBudget,
      harnessTools: tools,
    };
  }

  // --- reading -------------------------------------------------------------------------------------------------------

  /** The call items the history has, by {@link callKey}: the latest call under each id, and its result if it has one. */
  private async callItems(): Promise<Map<string, Item>> {
    const items = new Map<string, Item>();
    for (const ref of this.fold.history()) {
      noteCall(items, await this.item(ref));
    }
    return items;
  }

  /** The item a reference stands for: the caller's own copy (what it changes in it, the fold does not see). */
  private async item(ref: ItemRef): Promise<Item> {
    const event = this.fold.event(ref.s);
    if (event.type === "framework_state") {
      return structuredClone(this.fold.itemAt(ref.s));
    }
    return restore(ref, { type: event.type, fields: event.json }, await this.texts.of(event), undefined);
  }

  private async readOffloaded(): Promise<void> {
    for (const event of this.fold.offloadedRecords()) {
      const text = await this.texts.of(event);
      this.fold.record(event.seq, String(event.json.kind), JSON.parse(text ?? "null"));
    }
  }
}

/** The events of one change, planned against the log as it is: items as typed events or records, then its history record. */
class Plan {
  readonly events: Event[] = [];
  private readonly calls: BatchCalls = new Map();

  /** The whole texts of the results the items answer (an offloaded one read from its blob), by seq. */
  private readonly resultTexts = new Map<number, string | undefined>();

  constructor(
    private readonly firstSeq: number,
    private readonly fold: HistoryFold,
    private readonly texts: EventTexts,
  ) {}

  /** Plans `items` and the history record of the change (after whatever events were planned before it). */
  async history(change: { op: HistoryRecord["op"]; drop?: number; base?: null; items: readonly Item[]; id?: string; tx?: string; reuse?: Map<string, ItemRef> }, present?: ReadonlyMap<string, Item>): Promise<void> {
    for (const item of change.items) {
      const resultSeq = item.type === "function_call_result" && typeof item.callId === "string" ? this.fold.call(item.callId)?.resultSeq : undefined;
      if (resultSeq !== undefined && !this.resultTexts.has(resultSeq)) {
        this.resultTexts.set(resultSeq, await this.texts.of(this.fold.event(resultSeq)));
      }
    }
    const add: ItemRef[] = [];
    const seen = new Map(present);
    for (const item of change.items) {
      const key = callKey(item);
      const earlier = key === undefined ? undefined : seen.get(key);
      if (earlier !== undefined && (item.type !== "function_call" || sameCall(earlier, item))) {
        continue; // a call's request and its result are in a history once, whoever added them first
      }
      // a new call under an id the history has (a model that numbers its calls per turn) is another call: kept, and its result
      noteCall(seen, item);
      const reused = change.reuse?.get(canonical(item));
      add.push(reused ?? this.plan(item));
    }
    const base = change.base === null ? undefined : this.fold.historySeq;
    const record: HistoryRecord = {
      op: change.op,
      ...(base === undefined ? {} : { base }),
      ...(change.drop === undefined || change.drop === 0 ? {} : { drop: change.drop }),
      add,
      ...(change.id === undefined ? {} : { id: change.id, tx: change.tx! }),
    };
    this.events.push(NewEvent.frameworkState(FRAMEWORK, HISTORY, change.op, JSON.stringify(record)));
  }

  private plan(item: Item): ItemRef {
    const seq = this.firstSeq + this.events.length;
    const planned = planItem(item, seq, this.view(), this.calls);
    switch (planned.kind) {
      case "typed":
        this.events.push(planned.event);
        return { s: seq, r: planned.residual };
      case "existing":
        return { s: planned.seq, r: planned.residual };
      case "record":
        this.events.push(planned.event);
        return { s: seq };
    }
  }

  private view() {
    const fold = this.fold;
    return {
      sessionId: fold.sessionId,
      call: (callId: string) => {
        const c = fold.call(callId);
        return c === undefined ? undefined : { askSeq: c.askSeq, resultSeq: c.resultSeq, tool: c.tool };
      },
      runnerOf: (tool: string) => fold.runnerOf(tool),
      fields: (seq: number) => fold.event(seq).json,
      text: (seq: number) => (this.resultTexts.has(seq) ? this.resultTexts.get(seq) : undefined),
    };
  }
}

/** `function_call:<callId>` or `function_call_result:<callId>` for a call's items; undefined for any other item. */
export function callKey(item: Item): string | undefined {
  return (item.type === "function_call" || item.type === "function_call_result") && typeof item.callId === "string" ? `${item.type}:${item.callId}` : undefined;
}

/** Notes a call item by its {@link callKey}; a call's request makes the result of an earlier call under its id no longer its result. */
function noteCall(calls: Map<string, Item>, item: Item): void {
  const key = callKey(item);
  if (key !== undefined) {
    calls.set(key, item);
    if (item.type === "function_call") {
      calls.delete(`function_call_result:${String(item.callId)}`);
    }
  }
}

/** Whether two function call items are the same call: the same tool, with the same arguments. */
function sameCall(a: Item, b: Item): boolean {
  return a.name === b.name && sameArguments(String(a.arguments ?? ""), String(b.arguments ?? ""));
}

/** The seqs of a history's typed events at or before `through`: what a compaction summarises. */
function sources(refs: readonly ItemRef[], through: number): number[] {
  return [...new Set(refs.map((r) => r.s).filter((s) => s <= through))].sort((a, b) => a - b);
}

function declarationOf(spec: TetherToolSpec): HarnessTool {
  const reconcilable = spec.reconcile !== undefined;
  return spec.mutating === true ? HarnessTool.mutating(spec.tool.name, { reconcilable }) : HarnessTool.readOnly(spec.tool.name, { reconcilable });
}

/** The tool output a run's end makes for the model. */
function outputOf(result: HarnessRunResult, tool: string, callId: string): string {
  switch (result.kind) {
    case "completed":
      return result.content ?? "";
    case "denied":
      return `The call of ${tool} was denied: ${result.reason}`;
    case "cancelled":
      return `The call of ${tool} was cancelled: ${result.reason}`;
    case "resolved_by_person":
      return result.resolution === "MARK_DONE" ? `Done (marked by ${result.approver}): ${result.reason}` : `Abandoned by ${result.approver}: ${result.reason}`;
    case "outcome_unknown":
      return `The outcome of ${tool} is unknown; a person decides whether it took effect. Do not call it again.`;
    case "not_yet_authorized":
      // not an output: one in the history would stay the call's result there after the approver decided
      throw new ToolCallPendingError(callId, tool);
    case "fenced":
      throw new Error(`tool ${tool}: another process claimed the session (epoch ${result.currentEpoch}); stop working on it here`);
    case "not_found":
    case "rejected":
      throw new Error(`tool ${tool}: Tether refused the call: ${result.message}`);
  }
}

/**
 * The text of a tool's output for its `tool_result`: a string as it is; a structured output (text, image and file parts)
 * as its texts and `[image]`, `[file]`; any other value as the SDK gives it the model, JSON (not `[object Object]`).
 */
function outputText(output: unknown): string {
  if (typeof output === "string") {
    return output;
  }
  const parts: unknown[] = Array.isArray(output) ? output : [output];
  const structured = parts.length > 0 && parts.every((p) => typeof p === "object" && p !== null && ["text", "image", "file"].includes(String((p as { type?: unknown }).type)));
  if (structured) {
    return shownOf(output);
  }
  try {
    return JSON.stringify(output) ?? String(output);
  } catch {
    return String(output);
  }
}

/**
 * Invokes a Tether-run tool once, for Tether's runner: its output, recorded OK (ERROR when its `execute` never started:
 * nothing took effect). A failure — an exception that reached here (the tool's errorFunction null), or an output the
 * SDK's errorFunction made of one ({@link runOutcome}, thrown as {@link ToolRunFailed}) — is thrown to the runner, whose
 * rules for a tool that throws decide (a read-only call ends ERROR; a mutating one may have taken effect: reconciled by
 * its key, or UNKNOWN for a person), never OK. `ran` learns what the run is to get if the runner's result is this
 * attempt's: the output, or the exception the SDK raises.
 */
async function runOnce(
  tool: FunctionTool<any, any, any>,
  invoke: () => Promise<unknown>,
  ran: (ran: { readonly output: unknown } | { readonly error: unknown }) => void,
): Promise<ToolOutput> {
  const note: FailureNote = { started: false, failed: false };
  let output: unknown;
  try {
    output = await noted(tool, note, invoke);
  } catch (error) {
    ran({ error });
    throw error;
  }
  ran({ output });
  const text = outputText(output);
  switch (runOutcome(tool, output, note)) {
    case "ok":
      return ToolOutput.ok(text);
    case "not_run":
      return ToolOutput.error(text);
    case "failed":
      throw new ToolRunFailed(text);
  }
}

/** The JSON value `text` holds, or `text` itself when it holds none. */
function parsedOr(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/** The details a tool's execute gets, with the attempt Tether runs it in (see {@link idempotencyKeyOf}). */
function withKey<D extends object | undefined>(details: D, invocation: ToolInvocation): D {
  return { ...(details ?? {}), [ATTEMPT]: { idempotencyKey: invocation.idempotencyKey, attempt: invocation.attempt } } as D;
}

const ATTEMPT = "tetherAttempt";

/**
 * The idempotency key of the attempt a tool runs in — from the `details` its `execute(input, context, details)` gets —
 * to hand to the external system it changes: `<sessionId>/<seq>/<callId>~<ms of the session's start>`
 * (`ToolInvocation.idempotencyKey` of @tether/client), unique even across sessions made again under an erased session's
 * id; the key `reconcile` gets for the attempt. Undefined when the tool is not run through Tether.
 */
export function idempotencyKeyOf(details: unknown): string | undefined {
  const attempt = (details as Record<string, { idempotencyKey?: unknown }> | undefined)?.[ATTEMPT];
  return typeof attempt?.idempotencyKey === "string" ? attempt.idempotencyKey : undefined;
}

/** Every `callId` in a saved run state (read as JSON, so an id with a quote or a backslash is found too). */
function callIdsIn(value: unknown, ids = new Set<string>()): Set<string> {
  if (Array.isArray(value)) {
    value.forEach((v: unknown) => callIdsIn(v, ids));
  } else if (typeof value === "object" && value !== null) {
    for (const [key, v] of Object.entries(value)) {
      if (key === "callId" && typeof v === "string") {
        ids.add(v);
      } else {
        callIdsIn(v, ids);
      }
    }
  }
  return ids;
}

function callIdOf(item: RunToolApprovalItem): string | undefined {
  const raw = item.rawItem as { callId?: unknown };
  return typeof raw.callId === "string" ? raw.callId : undefined;
}

/** Whether two calls' argument texts say the same (the SDK hands a tool's arguments on as parsed and as sent). */
function sameArguments(a: string, b: string): boolean {
  if (a === b) {
    return true;
  }
  try {
    return canonical(parsed(a)) === canonical(parsed(b));
  } catch {
    return false; // one is not JSON, and the texts differ
  }
}

function parsed(text: string): unknown {
  return text.trim() === "" ? {} : JSON.parse(text);
}

/**
 * Whether Tether refused an append as too large for one: a 413 (`too_large` over the session-service's maxCommandBytes;
 * `http_413` from the HTTP layer over its 16 MiB body limit).
 */
function tooLarge(error: unknown): boolean {
  return error instanceof TetherError && error.apiError?.status === 413;
}

function digest(text: string): string {
  return createHash("sha256").update(text, "utf8").digest("hex").slice(0, 32);
}
