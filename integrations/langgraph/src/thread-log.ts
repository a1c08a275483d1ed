import { offloadedSha, type HarnessTool, type SessionEvent } from "@tether/client";
import {
  CHECKPOINT,
  FRAMEWORK,
  MESSAGE,
  REF,
  WRITES,
  recordOf,
  type CheckpointRecord,
  type LcMessage,
  type MessageRef,
  type MessagesValue,
  type StoredValue,
  type WritesRecord,
} from "./records.js";

/** Who runs a tool call, as the session's declaration says (Tether's `CallRunner`). */
export type CallRunner = "EXECUTOR" | "HARNESS" | "RECORDED";

/** A tool call the log asked for, and its result if it has one. */
export interface LoggedCall {
  readonly callId: string;
  readonly tool: string;
  /** The seq of the `assistant_message` that asked for it. */
  readonly askSeq: number;
  readonly runner: CallRunner;
  /** The seq of its `tool_result`, once there is one. */
  resultSeq?: number;
  /** The seq of the event that opened its latest approval item: its `approval_requested`, or an UNKNOWN result. */
  itemSeq?: number;
}

/** A record and the seq of the event that holds it. */
export interface At<R> {
  readonly seq: number;
  readonly record: R;
}

/**
 * One thread's session log as TetherSaver reads it: the fold of its events into what the saver looks up — the
 * checkpoint and writes records by namespace and id, the events that hold messages (and which one the records refer to
 * for a message id), the tool calls and who runs them, the last seq. Events are added in seq order ({@link add}), and taken back only by {@link rollback}. Not thread-safe
 * (the saver serialises the work on one thread).
 */
export class ThreadLog {
  private last = 0;
  private readonly events = new Map<number, SessionEvent>();
  private readonly checkpoints = new Map<string, Map<string, At<CheckpointRecord>>>();
  /** The newest checkpoint of each namespace (LangGraph's ids sort by time), kept as they come. */
  private readonly newest = new Map<string, At<CheckpointRecord>>();
  private readonly writes = new Map<string, At<WritesRecord>[]>();
  private readonly calls = new Map<string, LoggedCall>();
  /** The last reference the records made to a message, by the message's id. */
  private readonly messages = new Map<string, MessageRef>();
  private declared: readonly HarnessTool[] = [];
  private thread: string | undefined;
  /** The last seq a `context_compacted` of the log takes out of Tether's context (0 when none does). */
  private compacted = 0;

  constructor(readonly sessionId: string) {}

  /** The last seq folded (0 before any event). */
  get lastSeq(): number {
    return this.last;
  }

  /** LangGraph's thread id, as the first record written names it; undefined before any record. */
  get threadId(): string | undefined {
    return this.thread;
  }

  /** Forgets everything: the session was erased (the new log, if any, follows from seq 1). */
  reset(): void {
    this.last = 0;
    this.events.clear();
    this.checkpoints.clear();
    this.newest.clear();
    this.writes.clear();
    this.calls.clear();
    this.messages.clear();
    this.records.clear();
    this.declared = [];
    this.thread = undefined;
    this.compacted = 0;
  }

  /**
   * Forgets the events after `seq` — folded when TetherSaver planned them, in an append that was not accepted — by
   * folding the rest again (the records of offloaded content kept as read). Rare: only after a conflict or a refusal.
   */
  rollback(seq: number): void {
    const kept = [...this.events.values()].filter((e) => e.seq <= seq);
    const read = [...this.records].filter(([at]) => at <= seq);
    this.reset();
    kept.forEach((e) => this.add(e));
    for (const [at, { kind, record }] of read) {
      if (!this.records.has(at)) {
        this.index(at, kind, record);
      }
    }
  }

  /** Folds the next event of the log. */
  add(event: SessionEvent): void {
    if (event.seq !== this.last + 1) {
      throw new Error(`event ${event.seq} of ${this.sessionId} folded after ${this.last}: the log is read in order, without gaps`);
    }
    this.last = event.seq;
    this.events.set(event.seq, event);
    const json = event.json;
    switch (event.type) {
      case "session_started":
      case "session_forked":
        this.declared = harnessTools(json.harnessTools);
        break;
      case "assistant_message":
        for (const call of toolCalls(json.toolCalls)) {
          this.calls.set(call.callId, { callId: call.callId, tool: call.tool, askSeq: event.seq, runner: runnerOf(this.declared, call.tool) });
        }
        break;
      case "tool_result": {
        const call = this.calls.get(String(json.callId));
        if (call !== undefined) {
          call.resultSeq = event.seq;
          if (json.status === "UNKNOWN") {
            call.itemSeq = event.seq;
          }
        }
        break;
      }
      case "context_compacted":
        this.compacted = Math.max(this.compacted, Number(json.throughSeq) || 0);
        break;
      case "approval_requested": {
        const call = this.calls.get(String(json.callId));
        if (call !== undefined) {
          call.itemSeq = event.seq;
        }
        break;
      }
      case "framework_state":
        if (json.framework === FRAMEWORK) {
          this.addRecord(event);
        }
        break;
      default:
    }
  }

  /** The event at `seq`; throws if the log has none there (a record pointing at nothing is a broken log). */
  event(seq: number): SessionEvent {
    const e = this.events.get(seq);
    if (e === undefined) {
      throw new Error(`${this.sessionId} has no event ${seq} (its last is ${this.last})`);
    }
    return e;
  }

  /** The last seq a compaction of the log took out of Tether's context (0 when none did). */
  get compactedThrough(): number {
    return this.compacted;
  }

  /** The seqs of the events in `(after, through]` that are messages of Tether's context (user, assistant, tool result). */
  contextMessages(after: number, through: number): number[] {
    const seqs: number[] = [];
    for (let seq = after + 1; seq <= Math.min(through, this.last); seq++) {
      const type = this.events.get(seq)?.type;
      if (type === "user_message" || type === "assistant_message" || type === "tool_result") {
        seqs.push(seq);
      }
    }
    return seqs;
  }

  /** The checkpoint `id` of namespace `ns`. */
  checkpoint(ns: string, id: string): At<CheckpointRecord> | undefined {
    return this.checkpoints.get(ns)?.get(id);
  }

  /** The checkpoint record at `seq`. */
  checkpointAt(seq: number): CheckpointRecord {
    const record = this.recordAt(seq);
    if (record.kind !== CHECKPOINT) {
      throw new Error(`${this.sessionId} has no checkpoint record at ${seq}`);
    }
    return record.record as CheckpointRecord;
  }

  /** The namespaces that have checkpoints. */
  namespaces(): string[] {
    return [...this.checkpoints.keys()];
  }

  /** The checkpoints of `ns`, newest first (LangGraph's ids sort by time). */
  checkpointsOf(ns: string): At<CheckpointRecord>[] {
    return [...(this.checkpoints.get(ns)?.values() ?? [])].sort((a, b) => (a.record.id < b.record.id ? 1 : a.record.id > b.record.id ? -1 : 0));
  }

  /** The newest checkpoint of `ns`. */
  latest(ns: string): At<CheckpointRecord> | undefined {
    return this.newest.get(ns);
  }

  /** The writes records pending on checkpoint `id` of `ns`, in the order they were appended. */
  writesOf(ns: string, id: string): readonly At<WritesRecord>[] {
    return this.writes.get(writesKey(ns, id)) ?? [];
  }

  /** The last reference a record made to the message with id `id` (whatever namespace it is of), if any. */
  messageRef(id: string): MessageRef | undefined {
    return this.messages.get(id);
  }

  /** The call `callId` asked for in this session, if any. */
  call(callId: string): LoggedCall | undefined {
    return this.calls.get(callId);
  }

  /** Who runs a call of `tool` in this session. */
  runnerOf(tool: string): CallRunner {
    return runnerOf(this.declared, tool);
  }

  private addRecord(event: SessionEvent): void {
    const kind = String(event.json.kind);
    if (kind !== CHECKPOINT && kind !== WRITES && kind !== MESSAGE) {
      return; // a kind a newer saver writes: not ours to read
    }
    const record = contentOf(event);
    if (record === undefined) {
      return; // offloaded: read on demand (see TetherSaver)
    }
    this.index(event.seq, kind, record);
  }

  /** Indexes a record whose content was read (inline, or from its artifact), of any format, or as indexed before (a rollback). */
  index(seq: number, kind: string, stored: unknown): void {
    const record = kind === MESSAGE ? stored : recordOf(kind, stored);
    this.records.set(seq, { kind, record });
    if (kind === CHECKPOINT) {
      const r = record as CheckpointRecord;
      this.thread ??= r.thread;
      let ns = this.checkpoints.get(r.ns ?? "");
      if (ns === undefined) {
        ns = new Map();
        this.checkpoints.set(r.ns ?? "", ns);
      }
      ns.set(r.id, { seq, record: r });
      Object.values(r.stored).forEach((value) => this.indexMessages(value));
      const newest = this.newest.get(r.ns ?? "");
      if (newest === undefined || r.id > newest.record.id) {
        this.newest.set(r.ns ?? "", { seq, record: r });
      }
    } else if (kind === WRITES) {
      const r = record as WritesRecord;
      this.thread ??= r.thread;
      const key = writesKey(r.ns ?? "", r.checkpoint);
      const list = this.writes.get(key) ?? [];
      // in log order: an offloaded record is read after the records that follow it (first and last writes win)
      const at = list.findIndex((w) => w.seq > seq);
      list.splice(at === -1 ? list.length : at, 0, { seq, record: r });
      this.writes.set(key, list);
      r.writes.forEach(([, , value]) => this.indexMessages(value));
    } else if (kind === MESSAGE) {
      const id = (record as LcMessage).kwargs?.id;
      if (typeof id === "string") {
        this.messages.set(id, { s: seq });
      }
    }
  }

  /** Indexes the references `value` makes to messages by the messages' ids. */
  private indexMessages(value: StoredValue): void {
    const refs: MessageRef[] = [];
    if (value.t === "messages") {
      refs.push(...(value as MessagesValue).add);
    } else if ("j" in value && value.m === 1) {
      collectRefs(value.j, refs);
    }
    for (const ref of refs) {
      const r = ref.r as { k?: { id?: unknown }; kwargs?: { id?: unknown } } | undefined;
      const id = r === undefined ? (this.records.get(ref.s)?.record as LcMessage | undefined)?.kwargs?.id : (r.k ?? r.kwargs)?.id;
      if (typeof id === "string") {
        this.messages.set(id, ref);
      }
    }
  }

  private readonly records = new Map<number, { kind: string; record: unknown }>();

  /** The record held by the `framework_state` event at `seq`. */
  recordAt(seq: number): { kind: string; record: unknown } {
    const r = this.records.get(seq);
    if (r === undefined) {
      throw new Error(`${this.sessionId} has no TetherSaver record at ${seq}`);
    }
    return r;
  }

  /** `framework_state` events whose content was offloaded and not read yet. */
  offloadedRecords(): SessionEvent[] {
    return [...this.events.values()].filter(
      (e) => e.type === "framework_state" && e.json.framework === FRAMEWORK && !this.records.has(e.seq) && contentOf(e) === undefined,
    );
  }
}

/** The record of a `framework_state` event whose content is inline; undefined when it was offloaded. */
export function contentOf(event: SessionEvent): unknown {
  const content = event.json.content;
  if (typeof content !== "string" || offloadedSha(event) !== undefined) {
    return undefined;
  }
  return JSON.parse(content);
}

/** Who runs a call of `tool` under `declared`: its own declaration, else a `*` declaration, else the executor. */
export function runnerOf(declared: readonly HarnessTool[], tool: string): CallRunner {
  const own = declared.find((t) => t.name === tool) ?? declared.find((t) => t.name === "*");
  return own === undefined ? "EXECUTOR" : own.recordedOnly ? "RECORDED" : "HARNESS";
}

function harnessTools(value: unknown): readonly HarnessTool[] {
  if (!Array.isArray(value)) {
    return [];
  }
  return value.map((t: Record<string, unknown>) => ({
    name: String(t.name),
    mutating: t.mutating === true,
    canReconcile: t.canReconcile === true,
    recordedOnly: t.recordedOnly === true,
  }));
}

function toolCalls(value: unknown): { callId: string; tool: string }[] {
  return Array.isArray(value) ? value.map((c: Record<string, unknown>) => ({ callId: String(c.callId), tool: String(c.tool) })) : [];
}

function collectRefs(node: unknown, into: MessageRef[]): void {
  if (Array.isArray(node)) {
    node.forEach((n) => collectRefs(n, into));
  } else if (typeof node === "object" && node !== null) {
    if (REF in node) {
      into.push((node as { [REF]: MessageRef })[REF]);
    } else {
      Object.values(node).forEach((n) => collectRefs(n, into));
    }
  }
}

function writesKey(ns: string, id: string): string {
  return JSON.stringify([ns, id]);
}

