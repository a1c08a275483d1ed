import { offloadedSha, type HarnessTool, type SessionEvent, type SessionFold } from "@tether/client";
import { FRAMEWORK, HISTORY, ITEM, RUN_STATE, type HistoryRecord, type Item, type ItemRef } from "./items.js";

/** A tool call the log asked for. */
export interface LoggedCall {
  readonly callId: string;
  readonly tool: string;
  readonly argumentsJson: string;
  readonly askSeq: number;
  resultSeq?: number;
  /** The seq of the event that opened its latest approval item (its `approval_requested`, or an UNKNOWN result). */
  itemSeq?: number;
  authorized?: boolean;
  /** Denied (by an approver or an expiry), or cancelled before it started. */
  refused?: string;
}

/**
 * One session's log as TetherSession reads it: the fold of its events into the history records, the item records,
 * the tool calls and who runs them, the saved run states. Events come in seq order (the SDK's SessionLog).
 */
export class HistoryFold implements SessionFold {
  private readonly events = new Map<number, SessionEvent>();
  private readonly histories = new Map<number, HistoryRecord>();
  private readonly items = new Map<number, Item>();
  private readonly calls = new Map<string, LoggedCall>();
  private readonly operations = new Map<string, { readonly seq: number; readonly tx: string }>();
  /** The calls the SDK answered itself (a function_call_result kept as an item record: Tether had no result for it). */
  private readonly answeredBySdk = new Set<string>();
  private declared: readonly HarnessTool[] = [];
  private latestHistory: number | undefined;
  /** The seq of the latest `clear` history record: the operations recorded before it are forgotten. */
  private latestClear: number | undefined;
  private runState: { readonly seq: number; readonly json: string } | undefined;
  /** The seq of the latest run_state record (a cleared one included). */
  private runStateSeq: number | undefined;
  /** The seqs of the records read (inline, or from their artifact): an offloaded one is read once, maybe after later ones. */
  private readonly read = new Set<number>();
  private last = 0;
  /** The last history resolved: the record's seq and its references. */
  private resolved: { readonly seq: number; readonly refs: readonly ItemRef[] } | undefined;

  constructor(readonly sessionId: string) {}

  get lastSeq(): number {
    return this.last;
  }

  reset(): void {
    this.events.clear();
    this.histories.clear();
    this.items.clear();
    this.calls.clear();
    this.operations.clear();
    this.answeredBySdk.clear();
    this.declared = [];
    this.latestHistory = undefined;
    this.latestClear = undefined;
    this.runState = undefined;
    this.runStateSeq = undefined;
    this.read.clear();
    this.resolved = undefined;
    this.last = 0;
  }

  add(event: SessionEvent): void {
    this.last = event.seq;
    this.events.set(event.seq, event);
    const json = event.json;
    switch (event.type) {
      case "session_started":
      case "session_forked":
        this.declared = Array.isArray(json.harnessTools) ? (json.harnessTools as HarnessTool[]) : [];
        break;
      case "assistant_message":
        for (const c of (Array.isArray(json.toolCalls) ? json.toolCalls : []) as Record<string, unknown>[]) {
          this.calls.set(String(c.callId), { callId: String(c.callId), tool: String(c.tool), argumentsJson: String(c.argumentsJson ?? "{}"), askSeq: event.seq });
        }
        break;
      case "tool_call_authorized":
        this.withCall(json.callId, (c) => (c.authorized = true));
        break;
      case "approval_requested":
        this.withCall(json.callId, (c) => (c.itemSeq = event.seq));
        break;
      case "approval_denied":
        this.withCall(json.callId, (c) => (c.refused = `denied: ${String(json.reason ?? "")}`));
        break;
      case "tool_result":
        this.withCall(json.callId, (c) => {
          c.resultSeq = event.seq;
          if (json.status === "UNKNOWN") {
            c.itemSeq = event.seq;
          }
        });
        break;
      case "framework_state":
        if (json.framework === FRAMEWORK && typeof json.content === "string" && !offloaded(event)) {
          this.record(event.seq, String(json.kind), JSON.parse(json.content) as unknown);
        }
        break;
      default:
    }
  }

  /** Indexes a record whose content was read (inline, or from its artifact). */
  record(seq: number, kind: string, content: unknown): void {
    // an offloaded record is read after the events that follow it: the latest history and run state are by seq
    this.read.add(seq);
    if (kind === HISTORY) {
      const record = content as HistoryRecord;
      this.histories.set(seq, record);
      if (this.latestHistory === undefined || seq > this.latestHistory) {
        this.latestHistory = seq;
      }
      if (record.op === "clear" && (this.latestClear === undefined || seq > this.latestClear)) {
        this.latestClear = seq;
      }
      // an id applied again after a clear: the latest by seq (an offloaded record is read after later ones)
      if (record.id !== undefined && record.tx !== undefined && !((this.operations.get(record.id)?.seq ?? 0) > seq)) {
        this.operations.set(record.id, { seq, tx: record.tx });
      }
    } else if (kind === ITEM) {
      const item = content as Item;
      this.items.set(seq, item);
      if (item.type === "function_call_result" && typeof item.callId === "string") {
        this.answeredBySdk.add(item.callId);
      }
    } else if (kind === RUN_STATE) {
      if (this.runStateSeq === undefined || seq > this.runStateSeq) {
        this.runStateSeq = seq;
        this.runState = content === null ? undefined : { seq, json: JSON.stringify(content) };
      }
    }
  }

  /** `framework_state` events of this package whose content was offloaded and not read yet. */
  offloadedRecords(): SessionEvent[] {
    return [...this.events.values()].filter(
      (e) => e.type === "framework_state" && e.json.framework === FRAMEWORK && offloaded(e) && !this.read.has(e.seq),
    );
  }

  event(seq: number): SessionEvent {
    const e = this.events.get(seq);
    if (e === undefined) {
      throw new Error(`${this.sessionId} has no event ${seq} (its last is ${this.last})`);
    }
    return e;
  }

  /** The whole item of an item record. */
  itemAt(seq: number): Item {
    const item = this.items.get(seq);
    if (item === undefined) {
      throw new Error(`${this.sessionId} has no item record at ${seq}`);
    }
    return item;
  }

  call(callId: string): LoggedCall | undefined {
    return this.calls.get(callId);
  }

  /**
   * Whether the SDK gave the model an output of its own for `callId` that Tether has no result for (a tool input
   * guardrail rejected the call, a parallel call's failure or the run's signal cancelled it before it ran, its arguments
   * did not parse): the model was told what became of the call, so it must not run later.
   */
  answeredWithoutTether(callId: string): boolean {
    return this.answeredBySdk.has(callId);
  }

  allCalls(): readonly LoggedCall[] {
    return [...this.calls.values()];
  }

  runnerOf(tool: string): "EXECUTOR" | "HARNESS" | "RECORDED" {
    const own = this.declared.find((t) => t.name === tool) ?? this.declared.find((t) => t.name === "*");
    return own === undefined ? "EXECUTOR" : own.recordedOnly ? "RECORDED" : "HARNESS";
  }

  /** The operation a history transaction recorded under `operationId` since the latest clear (a clear forgets them). */
  operation(operationId: string): { readonly seq: number; readonly tx: string } | undefined {
    const done = this.operations.get(operationId);
    return done !== undefined && done.seq > (this.latestClear ?? 0) ? done : undefined;
  }

  /** The seq of the latest `clear` history record (undefined before the first). */
  get clearSeq(): number | undefined {
    return this.latestClear;
  }

  /**
   * Whether a clear would change what the SDK sees of the session: its history has items, an operation is recorded
   * since the latest clear, or a run state is saved.
   */
  hasAnythingToClear(): boolean {
    return this.history().length > 0 || this.runState !== undefined || [...this.operations.values()].some((op) => op.seq > (this.latestClear ?? 0));
  }

  /** The seq of the latest history record (undefined before the first). */
  get historySeq(): number | undefined {
    return this.latestHistory;
  }

  /** The latest run state saved, as JSON text. */
  get savedRunState(): string | undefined {
    return this.runState?.json;
  }

  /** The references of the history as the latest record left it (empty before any). */
  history(): readonly ItemRef[] {
    return this.latestHistory === undefined ? [] : this.historyAt(this.latestHistory);
  }

  /** The references of the history as the record at `seq` left it: its base's, less `drop`, then `add`. */
  historyAt(seq: number): readonly ItemRef[] {
    const chain: HistoryRecord[] = [];
    let refs: readonly ItemRef[] = [];
    for (let at: number | undefined = seq; at !== undefined; ) {
      if (this.resolved?.seq === at) {
        refs = this.resolved.refs;
        break;
      }
      const record = this.histories.get(at);
      if (record === undefined) {
        throw new Error(`${this.sessionId} has no history record at ${at}`);
      }
      chain.push(record);
      at = record.base;
    }
    let list = [...refs];
    for (let i = chain.length - 1; i >= 0; i--) {
      const r = chain[i]!;
      list = [...list.slice(0, list.length - (r.drop ?? 0)), ...r.add];
    }
    this.resolved = { seq, refs: list };
    return list;
  }

  private withCall(callId: unknown, change: (c: LoggedCall) => void): void {
    const call = this.calls.get(String(callId));
    if (call !== undefined) {
      change(call);
    }
  }
}

/** Whether an event's text was offloaded to the blob store (a preview and a reference kept instead). */
export function offloaded(event: SessionEvent): boolean {
  return offloadedSha(event) !== undefined;
}
