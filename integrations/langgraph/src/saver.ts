import { createHash } from "node:crypto";
import { hostname } from "node:os";
import { isBaseMessage } from "@langchain/core/messages";
import type { RunnableConfig } from "@langchain/core/runnables";
import {
  BaseCheckpointSaver,
  TASKS,
  WRITES_IDX_MAP,
  compareWritesSortKeys,
  getCheckpointId,
  maxChannelVersion,
  writesSortKey,
  type ChannelVersions,
  type Checkpoint,
  type CheckpointListOptions,
  type CheckpointMetadata,
  type CheckpointPendingWrite,
  type CheckpointTuple,
  type PendingWrite,
  type SerializerProtocol,
} from "@langchain/langgraph-checkpoint";
import type { DynamicStructuredTool } from "@langchain/core/tools";
import {
  EventTexts,
  NewEvent,
  SessionLog,
  offloadedSha,
  SessionTakenOverError,
  TetherClient,
  TetherError,
  type Appended,
  type Claimed,
  type HarnessTool,
  type NewEvent as Event,
  type NewSession,
  type SessionEvent,
  type ToolMode,
} from "@tether/client";
import { asRead, canonicalJson, planMessage, residualOf, restore, type BatchCalls } from "./messages.js";
import type { TetherPort } from "./port.js";
import { declarationOf, wrapTool, type TetherToolSpec, type ToolHost } from "./tools.js";
import {
  CHECKPOINT,
  FRAMEWORK,
  MESSAGE,
  WRITES,
  type CheckpointRecord,
  type LcMessage,
  type MessageRef,
  type MessagesValue,
  type StoredValue,
  type TypedValue,
  type ValueLocation,
  type WritesRecord,
  REF,
  isLcMessage,
  recordOf,
  storedForm,
  storedWritesForm,
  type StoredCheckpointRecord,
  type StoredWritesRecord,
} from "./records.js";
import { ThreadLog, type At } from "./thread-log.js";

/** What a session TetherSaver starts for a new thread is created with; every field has a default. */
export interface ThreadSession {
  /** Default `LangGraph thread <thread id>`. */
  readonly objective?: string;
  /** The model the session is pinned to; default `langgraph` (unless the harness version names one). */
  readonly modelId?: string;
  /** Default `WRITE`. */
  readonly toolMode?: ToolMode;
  readonly systemPrompt?: string;
  readonly constraints?: readonly string[];
  readonly tokenBudget?: number;
}

export interface TetherSaverOptions {
  /** Tether: a `TetherClient` with an agent's token (the saver sees the threads of that token's tenant only). */
  readonly client: TetherPort;
  /**
   * Put before every thread id to make its session id (default `lg-`). Two savers with different prefixes, neither of
   * which starts the other, never see each other's threads: `lg-` and `lg-x-` do (thread `x-t` of the first is thread
   * `t` of the second, the session `lg-x-t`), and `list()` under `lg-` lists the second's sessions too. `list()` without
   * a thread id lists the sessions with this prefix. A thread id that does not make a valid session id (1-128 letters,
   * digits, `. _ -`) is hashed.
   */
  readonly threadPrefix?: string;
  /** This process, as its claims name it; default `langgraph-<host>-<pid>`. */
  readonly workerId?: string;
  /** The harness version this process claims threads as; default each session's own. */
  readonly harnessVersion?: string;
  /** What a new thread's session is created with, per thread. */
  readonly session?: (threadId: string) => ThreadSession;
  /**
   * The tools the graph runs through Tether as harness-run tools (approval, a recorded start, exactly once with their
   * idempotency key, reconciled after a crash): give the graph's ToolNode {@link TetherSaver.tools}, their wrappers.
   * Declared when a thread's session is created. Needs `client` to be a `TetherClient`.
   */
  readonly tools?: readonly TetherToolSpec[];
  /** How long a wrapped tool's call waits for its authorization before it interrupts the graph, in ms (finite, not negative); default 30 s. */
  readonly authorizationTimeoutMs?: number;
  /**
   * What the other tools' calls are: `recorded` (default: declared with `*` as recorded-only — their results are
   * recorded from the tool messages, with no approval gate and no exactly-once guarantee) or `executor` (Tether's
   * tool-executor runs the calls of its built-in tools; the graph must not run them itself).
   */
  readonly otherTools?: "recorded" | "executor";
  readonly serde?: SerializerProtocol;
  /**
   * The most threads whose logs the saver keeps in memory while none of its calls is using them (at least 1; default
   * 256): a long-running process serving many threads would otherwise keep every log it ever read. The least recently
   * used is let go, its claim kept; the next call on it reads its log from Tether again, as a new process would (its
   * values as Tether keeps them, a secret scrubbed).
   */
  readonly maxCachedThreads?: number;
}

/** {@link TetherSaverOptions.maxCachedThreads}'s default. */
export const DEFAULT_MAX_CACHED_THREADS = 256;

/** TetherSaver could not do what LangGraph asked, and says why (the session refused the write, or was not found). */
export class TetherSaverError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "TetherSaverError";
  }
}

/**
 * Another process claimed the thread after this saver did: Tether fenced this one, and nothing it writes to the thread
 * is appended (the thread's chain of checkpoints never forks). Stop working on the thread; it is the other writer's.
 */
export class ThreadTakenOverError extends TetherSaverError {
  constructor(
    readonly threadId: string,
    readonly sessionId: string,
    readonly epoch: number,
    readonly currentEpoch: number,
  ) {
    super(
      `thread ${threadId} (session ${sessionId}) was claimed by another writer (epoch ${currentEpoch}; this saver's was ${epoch}): ` +
        "Tether refused this write, so the thread has one writer and its checkpoints do not fork; stop working on it here",
    );
    this.name = "ThreadTakenOverError";
  }
}

const DEFAULT_PREFIX = "lg-";
const SESSION_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

interface Thread {
  readonly sessionId: string;
  /** LangGraph's id of the thread; for a thread first seen by `list()`, guessed from the session id until a call names it. */
  threadId: string;
  /** The fold of the session's log: its records, messages and calls. */
  readonly log: ThreadLog;
  /** The session's log as this saver writes it: the claim, the optimistic appends, the serialised work. */
  readonly session: SessionLog;
  /** The saver's calls using the thread now: it is not let go while any is (see {@link TetherSaverOptions.maxCachedThreads}). */
  users: number;
  /** The last message list written or read per channel, its messages' JSON and references: the next put usually extends it. */
  readonly lists: Map<string, { readonly seq: number; readonly items: readonly ListItem[] }>;
  /** Messages appended ahead of the batch that refers to them (one too large for an append), by their JSON: their seqs. */
  readonly ahead: Map<string, number>;
  /**
   * The message events this saver appended whose log form differs from what it wrote (a secret Tether scrubbed; an
   * append answered with redactions is read back), by seq, as written: this process goes on with its messages as the
   * graph holds them (a new one reads them scrubbed).
   */
  readonly written: Map<number, SessionEvent>;
  /**
   * The same for the checkpoint and writes records this saver appended (a secret Tether scrubbed from a channel value,
   * a pending write, metadata), by seq, as written — the ones the newest checkpoint of each namespace is read from
   * only (see {@link keepWritten}): the graph goes on with the values it wrote, as with LangGraph's own savers, and
   * the older checkpoints of the thread read as Tether keeps them, as a new process reads them all.
   */
  readonly records: Map<number, CheckpointRecord | WritesRecord>;
}

interface ListItem {
  readonly json: string;
  readonly ref: MessageRef;
}

/**
 * A LangGraph.js checkpointer that keeps each thread in a Tether session (docs in the package README).
 *
 * - **Messages once.** Messages of a message list channel (e.g. `messages`) go into the log once, as typed events
 *   (`user_message`, `assistant_message` with its tool calls, `tool_result`); a checkpoint refers to them. A list that
 *   extends its parent's is stored as its new messages only, so a thread's storage grows with its messages, not with
 *   messages × steps. Tether's model context, recovery report and secret scrubbing see the thread.
 * - **Other channels only when they change** (LangGraph's `newVersions`); a checkpoint locates the rest in its
 *   ancestors. Everything else LangGraph keeps (versions, metadata, pending writes) is stored as `framework_state`
 *   records, which Tether offloads when large and never interprets.
 * - **One writer.** The saver claims a thread's session the first time it writes to it and appends under that epoch;
 *   once another process claims it, writes throw {@link ThreadTakenOverError}.
 * - **Atomic.** A checkpoint (its records and its new message events) is one append: all of it or none — unless its
 *   new messages are more than one append takes (413): they then go first, in appends of their own.
 *
 * Safe for concurrent calls (the work on one thread is serialised); one saver per process is enough.
 */
export class TetherSaver extends BaseCheckpointSaver implements ToolHost {
  /**
   * The wrappers of the `tools` option, for the graph's ToolNode: each call runs through Tether, exactly once (see
   * {@link TetherToolSpec}). Empty without that option.
   */
  readonly tools: readonly DynamicStructuredTool[];
  readonly client: TetherClient;
  private readonly port: TetherPort;
  private readonly prefix: string;
  private readonly workerId: string;
  /** The threads in memory by session id, the least recently used first. */
  private readonly threads = new Map<string, Thread>();
  /** The claims of the threads let go (see {@link TetherSaverOptions.maxCachedThreads}), by session id. */
  private readonly claims = new Map<string, Claimed>();
  private readonly maxCachedThreads: number;
  private readonly texts: EventTexts;

  constructor(private readonly options: TetherSaverOptions) {
    super(options.serde);
    this.port = options.client;
    this.client = options.client as TetherClient;
    this.texts = new EventTexts(options.client);
    if ((options.tools?.length ?? 0) > 0 && !(options.client instanceof TetherClient)) {
      throw new TypeError("the tools option runs tools through Tether's harness-run protocol: it needs client to be a TetherClient");
    }
    const timeout = options.authorizationTimeoutMs ?? 30_000;
    if (!Number.isFinite(timeout) || timeout < 0) {
      throw new RangeError(`authorizationTimeoutMs must be a finite number of ms, not negative: ${timeout}`);
    }
    this.tools = Object.freeze((options.tools ?? []).map((spec) => wrapTool(this, spec, timeout)));
    this.prefix = options.threadPrefix ?? DEFAULT_PREFIX;
    if (this.prefix !== "" && !/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/.test(this.prefix)) {
      throw new TypeError(`threadPrefix must be up to 64 letters, digits, '.', '_' or '-', starting with a letter or digit: ${this.prefix}`);
    }
    this.workerId = options.workerId ?? `langgraph-${hostname()}-${process.pid}`;
    this.maxCachedThreads = options.maxCachedThreads ?? DEFAULT_MAX_CACHED_THREADS;
    if (!Number.isInteger(this.maxCachedThreads) || this.maxCachedThreads < 1) {
      throw new RangeError(`maxCachedThreads must be a whole number of at least 1: ${this.maxCachedThreads}`);
    }
  }

  /** The threads whose logs the saver holds in memory now (at most `maxCachedThreads` while none is in use). */
  get cachedThreads(): number {
    return this.threads.size;
  }

  /** The session id of a thread: the prefix and the thread id, or the prefix and a hash when that is no valid session id. */
  sessionIdOf(threadId: string): string {
    const direct = `${this.prefix}${threadId}`;
    return SESSION_ID.test(direct) ? direct : `${this.prefix}h${createHash("sha256").update(threadId, "utf8").digest("hex").slice(0, 40)}`;
  }

  /** This saver's claim of the thread's session, claiming it (and creating the session) first if it has none. */
  async claimFor(threadId: string): Promise<Claimed> {
    return this.using(threadId, (thread) => this.exclusive(thread, () => this.writable(thread)));
  }

  /** The seq of the assistant message that asked for call `callId` in the thread. */
  async requestOf(threadId: string, callId: string): Promise<number> {
    return this.using(threadId, (thread) => this.exclusive(thread, async () => {
      await this.sync(thread);
      const call = thread.log.call(callId);
      if (call === undefined) {
        // LangGraph's "exit" durability writes no step before the graph ends: the call cannot be authorized or started yet
        throw new TetherSaverError(`thread ${threadId} has no tool call ${callId} in its log yet, so Tether cannot run it: a harness-run`
          + ` tool runs once the message that asked for it is checkpointed — invoke the graph with durability "sync" or "async", not "exit"`);
      }
      return call.askSeq;
    }));
  }

  /** The approval item (`<sessionId>~<seq>`) a person decides for call `callId`: its approval, or its unknown outcome. */
  async approvalOf(threadId: string, callId: string): Promise<string | undefined> {
    return this.using(threadId, (thread) => this.exclusive(thread, async () => {
      await this.sync(thread);
      const seq = thread.log.call(callId)?.itemSeq;
      return seq === undefined ? undefined : `${thread.sessionId}~${seq}`;
    }));
  }

  // --- BaseCheckpointSaver ---------------------------------------------------------------------------------------------

  override async getTuple(config: RunnableConfig): Promise<CheckpointTuple | undefined> {
    const threadId = config.configurable?.thread_id as string | undefined;
    if (threadId === undefined || threadId === null) {
      return undefined;
    }
    const ns = (config.configurable?.checkpoint_ns as string | undefined) ?? "";
    const id = getCheckpointId(config);
    return this.using(String(threadId), (thread) => this.exclusive(thread, async () => {
      if (!(await this.sync(thread))) {
        return undefined;
      }
      const at = id ? thread.log.checkpoint(ns, id) : thread.log.latest(ns);
      return at === undefined ? undefined : this.tuple(thread, at);
    }));
  }

  override async *list(config: RunnableConfig, options?: CheckpointListOptions): AsyncGenerator<CheckpointTuple> {
    const { before, filter } = options ?? {};
    let limit = options?.limit;
    const threadId = config.configurable?.thread_id as string | undefined;
    const wantedNs = config.configurable?.checkpoint_ns as string | undefined;
    const wantedId = config.configurable?.checkpoint_id as string | undefined;
    const beforeId = before?.configurable?.checkpoint_id as string | undefined;
    const sessionIds = threadId !== undefined && threadId !== null
      ? [this.sessionIdOf(String(threadId))]
      : (await this.port.sessions()).map((s) => s.sessionId).filter((s) => s.startsWith(this.prefix));
    for (const sessionId of sessionIds) {
      const named = threadId === undefined || threadId === null ? undefined : String(threadId);
      const tuples = await this.usingSession(sessionId, named, (thread) => this.exclusive(thread, async () => {
        if (!(await this.sync(thread))) {
          return [];
        }
        const found: CheckpointTuple[] = [];
        for (const ns of thread.log.namespaces()) {
          if (wantedNs !== undefined && ns !== wantedNs) {
            continue;
          }
          for (const at of thread.log.checkpointsOf(ns)) {
            if ((wantedId && at.record.id !== wantedId) || (beforeId && at.record.id >= beforeId)) {
              continue;
            }
            if (filter !== undefined) {
              const metadata = (await this.load(asWritten(thread, at).metadata)) as Record<string, unknown>;
              if (!Object.entries(filter).every(([k, v]) => metadata?.[k] === v)) {
                continue;
              }
            }
            if (limit !== undefined) {
              if (limit <= 0) {
                return found;
              }
              limit -= 1;
            }
            found.push(await this.tuple(thread, at));
          }
        }
        return found;
      }));
      yield* tuples;
      if (limit !== undefined && limit <= 0) {
        return;
      }
    }
  }

  override async put(config: RunnableConfig, checkpoint: Checkpoint, metadata: CheckpointMetadata, newVersions: ChannelVersions): Promise<RunnableConfig> {
    const threadId = requiredThreadId(config, "put a checkpoint");
    recordKey(checkpoint.id, "put a checkpoint");
    const ns = (config.configurable?.checkpoint_ns as string | undefined) ?? "";
    const parentId = (config.configurable?.checkpoint_id as string | undefined) || undefined;
    // the checkpoint's id is the record's, and its values are located instead
    const { channel_values: values, id: _id, ...rest } = checkpoint;
    void _id;
    const what = `cannot put checkpoint ${checkpoint.id} of thread ${threadId}`;
    const [checkpointValue, metadataValue] = await Promise.all([this.dump(rest, `${what}: the checkpoint`), this.dump(metadata, `${what}: its metadata`)]);
    await this.using(threadId, (thread) => this.appendPlanned(thread, `langgraph/${digest(ns)}/${checkpoint.id}`, async (batch) => {
      const parent = parentId === undefined ? undefined : thread.log.checkpoint(ns, parentId);
      // a message this step's input or its nodes' writes put in the log already is referred to, not appended again
      const scope = this.scope(thread, parent === undefined ? [] : [asWritten(thread, parent), ...thread.log.writesOf(ns, parent.record.id).map((w) => asWritten(thread, w))]);
      const located: Record<string, ValueLocation> = {};
      const stored: Record<string, StoredValue> = {};
      for (const [channel, version] of Object.entries(checkpoint.channel_versions)) {
        if (channel in newVersions && channel in values) {
          const inParent = parent?.record.values[channel];
          const base = inParent === undefined ? undefined : inParent.at === 0 ? parent!.seq : inParent.at;
          const value = (values as Record<string, unknown>)[channel];
          stored[channel] = await this.encode(thread, batch, scope, value, { channel, base, ns }, `${what}: channel ${channel}`);
          located[channel] = { at: 0, v: version };
        } else {
          const inParent = parent?.record.values[channel];
          if (inParent !== undefined && inParent.v === version) {
            located[channel] = { at: inParent.at === 0 ? parent!.seq : inParent.at, v: version };
          } else if (channel in values) {
            // not its parent's: a copy of another checkpoint (LangGraph's updateState(config, undefined, "__copy__")
            // forks the copied checkpoint's parent, with no new versions), whose values an older record stores
            const at = await this.storedAt(thread, ns, channel, version, (values as Record<string, unknown>)[channel], `${what}: channel ${channel}`);
            if (at !== undefined) {
              located[channel] = { at, v: version };
            }
          }
        }
      }
      const record: CheckpointRecord = {
        ...this.threadField(thread),
        ...(ns === "" ? {} : { ns }),
        id: checkpoint.id,
        parent: parentId ?? null,
        checkpoint: checkpointValue,
        metadata: metadataValue,
        values: located,
        stored,
      };
      batch.events.push(frameworkState(CHECKPOINT, checkpoint.id, storedForm(record)));
    }));
    return { configurable: { thread_id: threadId, checkpoint_ns: ns, checkpoint_id: checkpoint.id } };
  }

  override async putWrites(config: RunnableConfig, writes: PendingWrite[], taskId: string, taskPath?: string): Promise<void> {
    const threadId = requiredThreadId(config, "put writes");
    const ns = (config.configurable?.checkpoint_ns as string | undefined) ?? "";
    const checkpointId = config.configurable?.checkpoint_id as string | undefined;
    if (checkpointId === undefined || checkpointId === "") {
      throw new TetherSaverError('cannot put writes: the config has no "checkpoint_id" in its "configurable" property');
    }
    recordKey(checkpointId, "put writes");
    const what = `cannot put writes of task ${taskId} of thread ${threadId}`;
    const serialized = await Promise.all(writes.map(async ([channel, value]) => [channel, await this.dump(value, `${what}: channel ${channel}`)] as const));
    const content = digest(JSON.stringify([taskPath ?? "", serialized]));
    const step = `langgraph-w/${digest(ns)}/${checkpointId}/${digest(taskId)}/${content}`;
    // the same writes again are the same step (its eventIds): a resend is stored once. A special channel's write (an
    // error, an interrupt, a resume) is read as the task's last one, so the same write again after another one is
    // stored again, under a step of its own (the same write's n-th record): `d` says which records are the same
    const special = writes.some(([channel]) => WRITES_IDX_MAP[channel] !== undefined);
    await this.using(threadId, (thread) => {
      const sameAsBefore = () => thread.log.writesOf(ns, checkpointId).filter((w) => w.record.task === taskId);
      const stepOf = () => {
        const same = sameAsBefore().filter((w) => w.record.d === content).length;
        return special && same > 0 ? `${step}/${same}` : step;
      };
      return this.appendPlanned(thread, stepOf, async (batch) => {
        if (special && sameAsBefore().at(-1)?.record.d === content) {
          return; // the task's last write is this one already
        }
        const pendingOn = thread.log.checkpoint(ns, checkpointId);
        const scope = this.scope(thread, pendingOn === undefined ? [] : [asWritten(thread, pendingOn)]);
        const stored: [string, number, StoredValue][] = [];
        for (let i = 0; i < writes.length; i++) {
          const [channel, value] = writes[i]!;
          stored.push([channel, WRITES_IDX_MAP[channel] ?? i, await this.encode(thread, batch, scope, value, undefined, `${what}: channel ${channel}`)]);
        }
        const record: WritesRecord = {
          ...this.threadField(thread),
          ...(ns === "" ? {} : { ns }),
          checkpoint: checkpointId,
          task: taskId,
          path: taskPath ?? "",
          writes: stored,
          ...(special ? { d: content } : {}),
        };
        batch.events.push(frameworkState(WRITES, checkpointId, storedWritesForm(record)));
      });
    });
  }

  override async deleteThread(threadId: string): Promise<void> {
    await this.using(threadId, (thread) => this.exclusive(thread, async () => {
      try {
        const erased = await this.port.eraseSession(thread.sessionId);
        if (erased.kind === "rejected") {
          throw new TetherSaverError(`cannot delete thread ${threadId}: ${erased.code} ${erased.message}`);
        }
      } finally {
        // whatever the answer (a lost one may have erased it), the thread is read again from Tether, claimed again
        this.threads.delete(thread.sessionId);
        this.claims.delete(thread.sessionId);
      }
    }));
  }

  // --- reading ---------------------------------------------------------------------------------------------------------

  private async tuple(thread: Thread, at: At<CheckpointRecord>): Promise<CheckpointTuple> {
    const record = asWritten(thread, at);
    const checkpoint = (await this.load(record.checkpoint)) as Checkpoint;
    checkpoint.id = record.id;
    const channelValues: Record<string, unknown> = {};
    for (const [channel, location] of Object.entries(record.values)) {
      const seq = location.at === 0 ? at.seq : location.at;
      const holder = seq === at.seq ? record : checkpointAt(thread, seq);
      const value = holder.stored[channel];
      if (value !== undefined) {
        channelValues[channel] = await this.decode(thread, channel, value, seq, true);
      }
    }
    checkpoint.channel_values = channelValues;
    if (checkpoint.v < 4 && record.parent !== null) {
      await this.migratePendingSends(thread, checkpoint, record.ns ?? "", record.parent);
    }
    const config = { configurable: { thread_id: thread.log.threadId ?? thread.threadId, checkpoint_ns: record.ns ?? "", checkpoint_id: record.id } };
    const tuple: CheckpointTuple = {
      config,
      checkpoint,
      metadata: (await this.load(record.metadata)) as CheckpointMetadata,
      pendingWrites: await this.pendingWrites(thread, record.ns ?? "", record.id),
    };
    if (record.parent !== null) {
      tuple.parentConfig = { configurable: { thread_id: config.configurable.thread_id, checkpoint_ns: record.ns ?? "", checkpoint_id: record.parent } };
    }
    return tuple;
  }

  /** The writes pending on a checkpoint, as LangGraph's savers keep them: the first write per (task, index) (special channels: the last), sorted by `writesSortKey`. */
  private async pendingWrites(thread: Thread, ns: string, checkpointId: string): Promise<CheckpointPendingWrite[]> {
    const byKey = new Map<string, { path: string; task: string; idx: number; channel: string; value: StoredValue; seq: number }>();
    for (const at of thread.log.writesOf(ns, checkpointId)) {
      const { seq } = at;
      const record = asWritten(thread, at);
      const first = new Set(byKey.keys());
      for (const [channel, idx, value] of record.writes) {
        const key = `${record.task},${idx}`;
        if (idx >= 0 && first.has(key)) {
          continue;
        }
        byKey.set(key, { path: record.path, task: record.task, idx, channel, value, seq });
      }
    }
    const entries = [...byKey.values()];
    entries.sort((a, b) => compareWritesSortKeys(writesSortKey(a.path, a.task, a.idx), writesSortKey(b.path, b.task, b.idx)));
    return Promise.all(entries.map(async (e) => [e.task, e.channel, await this.decode(thread, e.channel, e.value, e.seq, false)] as CheckpointPendingWrite));
  }

  private async migratePendingSends(thread: Thread, checkpoint: Checkpoint, ns: string, parentId: string): Promise<void> {
    const sends = (await this.pendingWrites(thread, ns, parentId)).filter(([, channel]) => channel === TASKS).map(([, , value]) => value);
    checkpoint.channel_values ??= {};
    checkpoint.channel_values[TASKS] = sends;
    checkpoint.channel_versions ??= {};
    checkpoint.channel_versions[TASKS] = Object.keys(checkpoint.channel_versions).length > 0
      ? maxChannelVersion(...Object.values(checkpoint.channel_versions))
      : this.getNextVersion(undefined);
  }

  /** A stored value as LangGraph wrote it; `checkpoint`: a checkpoint's channel value (else a pending write). */
  private async decode(thread: Thread, channel: string, value: StoredValue, seq: number, checkpoint: boolean): Promise<unknown> {
    if (value.t !== "messages") {
      const typed = value as TypedValue;
      if ("j" in typed && typed.m === 1) {
        const j = await mapDeep(typed.j, isRef, (node) => this.message(thread, (node as RefNode)[REF].s, (node as RefNode)[REF].r));
        return this.serde.loadsTyped(typed.t, JSON.stringify(j));
      }
      return this.load(typed);
    }
    const messages = value as MessagesValue;
    if (!checkpoint) {
      const lcs = await Promise.all(messages.add.map((r) => this.message(thread, r.s, r.r)));
      return this.serde.loadsTyped("json", JSON.stringify(lcs));
    }
    // each read revives its own message objects (as LangGraph's savers do): a caller or a node that changes one in
    // place changes neither another read nor what the next put finds stored
    const items = (await this.listAt(thread, channel, seq))!;
    const list: object[] = [];
    for (const item of items) {
      list.push((await this.serde.loadsTyped("json", item.json)) as object);
    }
    return list;
  }

  /** The serialized message the event at `seq` holds, with `residual` (as read back: {@link asRead}). */
  private async message(thread: Thread, seq: number, residual: MessageRef["r"]): Promise<LcMessage> {
    const event = messageEvent(thread, seq);
    if (event.type === "framework_state") {
      // a reference that differs from the record (an id the reducer gave the message since) holds the message whole
      return asRead((residual ?? messageRecord(thread, seq)) as LcMessage);
    }
    return asRead(restore(residual, await this.texts.of(event), undefined, event.type, event.json));
  }

  // --- writing ---------------------------------------------------------------------------------------------------------

  /**
   * A channel value or pending write to store. A message list is stored as references — for a checkpoint's channel
   * (`list`), the messages of its parent's list (at `list.base`) as that base when the new list extends it; anything
   * else serialized, with every message in it replaced by a reference. A message is referred to where `scope` has it
   * already, else planned as a new event of the batch.
   */
  private async encode(
    thread: Thread,
    batch: Batch,
    scope: Scope,
    value: unknown,
    list: { readonly channel: string; readonly base: number | undefined; readonly ns: string } | undefined,
    what: string,
  ): Promise<StoredValue> {
    if (isMessageList(value)) {
      return this.encodeList(thread, batch, scope, value as object[], list);
    }
    const typed = await this.dump(value, what);
    if (!("j" in typed) || !containsMessage(typed.j)) {
      return typed;
    }
    const used = new Set<number>();
    const j = await mapDeep(typed.j, isLcMessage, async (lc) => ({ [REF]: await this.refFor(thread, batch, scope, lc as LcMessage, used) }));
    return { t: typed.t, j, m: 1 };
  }

  private async encodeList(
    thread: Thread,
    batch: Batch,
    scope: Scope,
    messages: readonly object[],
    list: { readonly channel: string; readonly base: number | undefined; readonly ns: string } | undefined,
  ): Promise<MessagesValue> {
    const jsons = await Promise.all(messages.map((m) => this.messageJson(m)));
    const known = list?.base === undefined ? undefined : await this.listAt(thread, list.channel, list.base);
    const prefix = known !== undefined && known.length <= jsons.length && known.every((item, i) => item.json === jsons[i]) ? known : [];
    const extending = list?.base !== undefined && prefix.length > 0;
    if (!extending) {
      // a rewrite (a message removed, replaced or changed) keeps the references of the messages that stay
      for (const item of known ?? []) {
        scope.add(withoutId(item.json), item.ref.s, idOf(JSON.parse(item.json) as LcMessage));
      }
    }
    const fixed = !extending && known !== undefined && list?.ns === "" ? this.compaction(thread, batch, known, jsons) : new Map<number, MessageRef>();
    const add: MessageRef[] = [];
    const items: ListItem[] = [...prefix];
    // the messages of the list it extends are those of its base: a new one is none of them
    const used = new Set<number>(prefix.map((item) => item.ref.s));
    for (let i = prefix.length; i < jsons.length; i++) {
      const json = jsons[i]!;
      const ref = fixed.get(i) ?? (await this.refFor(thread, batch, scope, JSON.parse(json) as LcMessage, used));
      add.push(ref);
      items.push({ json, ref });
    }
    if (list !== undefined) {
      batch.lists.set(list.channel, items);
    }
    return { t: "messages", ...(extending ? { base: list!.base! } : {}), add };
  }

  /**
   * A list that drops the oldest messages of its parent's — what a summarizing node or a window over the messages does:
   * `[summary?, ...the parent's messages from the k-th on, ...new ones]` — is recorded as Tether's compaction, so
   * Tether's model context drops them too: a `context_compacted` through the last dropped message, whose summary is the
   * new first message's text when there is one (that message then refers to the compaction) and says how many were
   * dropped otherwise. The originals stay in the log. Other rewrites (a message removed from the middle, one edited)
   * have no such event: LangGraph reads back exactly what it wrote, Tether's context keeps the old messages too.
   *
   * @returns the references of the new list's messages this fixes, by index (empty when the list is no such rewrite)
   */
  private compaction(thread: Thread, batch: Batch, known: readonly ListItem[], jsons: readonly string[]): Map<number, MessageRef> {
    const none = new Map<number, MessageRef>();
    const knownJsons = new Set(known.map((item) => item.json));
    const head = jsons.length > 0 && !knownJsons.has(jsons[0]!) ? 1 : 0;
    let from = head < jsons.length ? known.findIndex((item) => item.json === jsons[head]) : known.length;
    if (from === -1) {
      from = known.length; // nothing kept
    }
    let kept = 0;
    while (head + kept < jsons.length && from + kept < known.length && known[from + kept]!.json === jsons[head + kept]) {
      kept++;
    }
    if (from < 1 || (kept === 0 && from < known.length)) {
      return none;
    }
    const dropped = known.slice(0, from).map((item) => item.ref.s);
    const through = Math.max(...dropped);
    const keptSeqs = known.slice(from, from + kept).map((item) => item.ref.s);
    if (keptSeqs.some((seq) => seq <= through) || through > thread.log.lastSeq) {
      return none; // what stays is not after what goes: no prefix of the log to compact
    }
    const goes = new Set(dropped);
    if (thread.log.contextMessages(thread.log.compactedThrough, through).some((seq) => !goes.has(seq))) {
      return none; // the compaction would take out of Tether's context messages this list does not drop (another channel's)
    }
    const summaryMessage = head === 1 ? (JSON.parse(jsons[0]!) as LcMessage) : undefined;
    // the summary's text as Tether takes it (no half of a surrogate pair); the summary message keeps its own
    const summaryText = summaryMessage !== undefined && typeof summaryMessage.kwargs.content === "string" ? summaryMessage.kwargs.content.toWellFormed() : undefined;
    if (head === 1 && summaryText === undefined) {
      return none;
    }
    const seq = thread.log.lastSeq + 1 + batch.events.length;
    batch.events.push(NewEvent.contextCompacted(through, summaryText ?? `${dropped.length} earlier messages were removed by the graph`, [...new Set(dropped)].sort((a, b) => a - b)));
    const fixed = new Map<number, MessageRef>();
    if (summaryMessage !== undefined) {
      fixed.set(0, { s: seq, r: residualOf(summaryMessage, "context_compacted", { summary: summaryText }) });
    }
    for (let i = 0; i < kept; i++) {
      fixed.set(head + i, known[from + i]!.ref);
    }
    return fixed;
  }

  /**
   * The seq of the checkpoint record of `ns` that stores `value` as `channel` at `version`, if one does. Versions alone
   * do not tell: two branches of a thread (a time travel, a fork) each number their own versions from their common
   * ancestor, so the value is compared too.
   */
  private async storedAt(thread: Thread, ns: string, channel: string, version: number | string, value: unknown, what: string): Promise<number | undefined> {
    const holders = new Set<number>();
    for (const at of thread.log.checkpointsOf(ns)) {
      const location = at.record.values[channel];
      if (location !== undefined && location.v === version) {
        holders.add(location.at === 0 ? at.seq : location.at);
      }
    }
    if (holders.size === 0) {
      return undefined;
    }
    const wanted = await this.fingerprint(value, what);
    for (const seq of holders) {
      const stored = checkpointAt(thread, seq).stored[channel];
      if (stored !== undefined && (await this.fingerprint(await this.decode(thread, channel, stored, seq, true), what)) === wanted) {
        return seq;
      }
    }
    return undefined;
  }

  /** A value's serialized form, to compare (a message list's as `put` stores it). */
  private async fingerprint(value: unknown, what: string): Promise<string> {
    if (isMessageList(value)) {
      return JSON.stringify(await Promise.all((value as object[]).map((m) => this.messageJson(m))));
    }
    return canonical(asRead(await this.dump(value, what)));
  }

  /**
   * The reference of a message to store: to the event `scope` knows holds it, or to a new event planned in the batch.
   * `used`: the events the value being stored refers to already (a message stored without id is one of its messages once).
   */
  private async refFor(thread: Thread, batch: Batch, scope: Scope, written: LcMessage, used: Set<number>): Promise<MessageRef> {
    const lc = asRead(written);
    const key = withoutId(canonical(lc));
    const id = idOf(lc);
    const seq = (await scope.lookup(key, id, used)) ?? thread.ahead.get(canonical(lc)) ?? (await this.sameMessage(thread, lc));
    if (seq !== undefined) {
      scope.add(key, seq, id);
      used.add(seq);
      return this.refTo(thread, batch, seq, lc);
    }
    const ref = this.plan(thread, batch, lc);
    scope.add(key, ref.s, id);
    used.add(ref.s);
    return ref;
  }

  /**
   * The event of the thread that holds `lc` already, by its id (and the same content): a message another namespace
   * stored — a subgraph's state holds its parent's messages, and its output gives them back to the parent.
   */
  private async sameMessage(thread: Thread, lc: LcMessage): Promise<number | undefined> {
    const id = lc.kwargs.id;
    const ref = typeof id === "string" ? thread.log.messageRef(id) : undefined;
    if (ref === undefined) {
      return undefined;
    }
    return canonical(await this.message(thread, ref.s, ref.r)) === canonical(lc) ? ref.s : undefined;
  }

  /**
   * The messages `records` stored (a checkpoint's values, pending writes), by their JSON without id: where a message
   * of this step is already. Read when first asked. A message is the one stored when its id is the stored one's, or
   * when the stored one has none (a node's write, to which the reducer gave an id since) and the value being stored
   * has not taken it already: two messages of the same content with ids of their own are two messages.
   */
  private scope(thread: Thread, records: readonly (CheckpointRecord | WritesRecord)[]): Scope {
    const known = new Map<string, ScopeEntry[]>();
    const add = (key: string, seq: number, id: string | undefined): void => {
      const entries = known.get(key) ?? [];
      if (!entries.some((e) => e.seq === seq && e.id === id)) {
        entries.push({ seq, id });
        known.set(key, entries);
      }
    };
    let read = false;
    const lookup = async (key: string, id: string | undefined, used: Set<number>): Promise<number | undefined> => {
      if (!read) {
        read = true;
        const values = records.flatMap((r) => ("stored" in r ? Object.values(r.stored) : r.writes.map(([, , v]) => v)));
        for (const value of values) {
          const refs: MessageRef[] = value.t === "messages" ? [...(value as MessagesValue).add] : [];
          if ("j" in value && (value as TypedValue & { m?: 1 }).m === 1) {
            await mapDeep((value as { j: unknown }).j, isRef, async (node) => {
              refs.push((node as RefNode)[REF]);
              return node;
            });
          }
          for (const ref of refs) {
            const message = await this.message(thread, ref.s, ref.r);
            add(withoutId(canonical(message)), ref.s, idOf(message));
          }
        }
      }
      const entries = known.get(key) ?? [];
      const same = id === undefined ? undefined : entries.find((e) => e.id === id);
      return (same ?? entries.find((e) => e.id === undefined && !used.has(e.seq)))?.seq;
    };
    return { add, lookup };
  }

  /**
   * A reference to the message the event at `seq` holds — in the log, or planned earlier in `batch` — as `lc` (which may
   * differ from it: an id the reducer gave it since).
   */
  private refTo(thread: Thread, batch: Batch, seq: number, lc: LcMessage): MessageRef {
    const planned = seq > thread.log.lastSeq ? batch.events[seq - thread.log.lastSeq - 1] : undefined;
    const type = planned?.type ?? messageEvent(thread, seq).type;
    if (type === "framework_state") {
      const record = planned === undefined ? messageRecord(thread, seq) : JSON.parse(String(planned.fields.content));
      return canonical(record) === canonical(lc) ? { s: seq } : { s: seq, r: lc };
    }
    if (planned !== undefined) {
      return { s: seq, r: residualOf(lc, type, planned.fields) };
    }
    return { s: seq, r: residualOf(lc, type, messageEvent(thread, seq).json) };
  }

  /** Where a new message goes: a typed event or a message record appended in this batch, or an event already in the log. */
  private plan(thread: Thread, batch: Batch, lc: LcMessage): MessageRef {
    const seq = thread.log.lastSeq + 1 + batch.events.length;
    const plan = planMessage(lc, seq, thread.log, batch.calls);
    if (plan.kind !== "existing") {
      batch.messages.set(batch.events.length, canonical(lc));
    }
    switch (plan.kind) {
      case "typed":
        batch.events.push(plan.event);
        return { s: seq, r: plan.residual };
      case "existing":
        return { s: plan.seq, r: plan.residual };
      case "record":
        batch.events.push(plan.event);
        return { s: seq };
    }
  }

  /**
   * The message list of `channel` that the checkpoint record at `seq` stores, each message's JSON with its reference:
   * the chain of bases walked back to a list known already (the last one written or read) or to its start, then forward.
   */
  private async listAt(thread: Thread, channel: string, seq: number): Promise<readonly ListItem[] | undefined> {
    const cached = thread.lists.get(channel);
    const chain: { seq: number; value: MessagesValue }[] = [];
    let items: readonly ListItem[] = [];
    for (let at: number | undefined = seq; at !== undefined; ) {
      if (cached !== undefined && cached.seq === at) {
        items = cached.items;
        break;
      }
      const value: StoredValue | undefined = checkpointAt(thread, at).stored[channel];
      if (value === undefined || value.t !== "messages") {
        if (at === seq) {
          return undefined;
        }
        throw new TetherSaverError(`thread ${thread.threadId}: the ${channel} of the record at ${chain[chain.length - 1]?.seq} extends the record at ${at}, which stores none`);
      }
      chain.push({ seq: at, value: value as MessagesValue });
      at = (value as MessagesValue).base;
    }
    const list = [...items];
    for (let i = chain.length - 1; i >= 0; i--) {
      for (const ref of chain[i]!.value.add) {
        list.push({ json: canonical(await this.message(thread, ref.s, ref.r)), ref });
      }
    }
    thread.lists.set(channel, { seq, items: list });
    return list;
  }

  /** A message's JSON as the serializer writes it and reads it back (keys sorted, no undefined fields: {@link asRead}). */
  private async messageJson(message: object): Promise<string> {
    // serialized at every put: a message object may have been changed in place (same id) since it was last stored
    const [type, bytes] = await this.serde.dumpsTyped(message);
    if (type !== "json") {
      throw new TetherSaverError(`a message serialized as ${type}, not json`);
    }
    const lc: unknown = JSON.parse(new TextDecoder().decode(bytes));
    if (typeof lc !== "object" || lc === null) {
      const id = (message as { id?: unknown }).id;
      throw new TetherSaverError(`the message ${typeof id === "string" ? id : "without an id"} cannot be serialized (a BigInt in it?): the serializer wrote ${JSON.stringify(lc).slice(0, 100)}`);
    }
    return canonical(asRead(lc));
  }

  /**
   * Appends what `plan` puts into a batch under the thread's claim, at the log's last seq as this saver knows it, and
   * waits until it is in the log. The plan runs on the thread's queue; the wait does not hold it, so the calls
   * LangGraph makes meanwhile (the next writes, the next checkpoint) are planned on top of this batch and sent together
   * with it or right after it, as one append (SessionLog.enqueue: a conflict reads the log and plans again, with the same
   * eventIds). The message lists the batch stores are remembered as planned; a rollback forgets them.
   */
  private async appendPlanned(thread: Thread, step: string | (() => string), plan: (batch: Batch) => Promise<void>): Promise<void> {
    let name = typeof step === "string" ? step : undefined;
    const planned = (batch: Batch) => async (firstSeq: number) => {
      await plan(batch);
      const recordSeq = firstSeq + batch.events.length - 1; // a batch always ends with its record
      for (const [channel, items] of batch.lists) {
        thread.lists.set(channel, { seq: recordSeq, items });
      }
      return batch.events;
    };
    try {
      const { appended } = await this.exclusive(thread, async () => {
        await this.writable(thread);
        // a step that depends on the log is chosen on the log as read (and planned) once the thread is writable
        name ??= (step as () => string)();
        return thread.session.enqueue(name, (firstSeq) => planned(newBatch())(firstSeq));
      });
      await appended;
    } catch (e) {
      if (!tooLarge(e) || name === undefined) {
        throw this.translated(thread, e);
      }
      // more than one append takes (512 KiB once content over 64 KiB is offloaded: many messages, several large ones):
      // its messages go first, in appends of their own, and then the batch, which refers to them; all of it holding
      // the thread, so that nothing else is planned meanwhile (it would store the same messages again)
      const whole = name;
      try {
        await this.exclusive(thread, async () => {
          try {
            await this.appendMessagesAhead(thread, whole, plan);
            await thread.session.appendPlanned(whole, (firstSeq) => planned(newBatch())(firstSeq));
          } finally {
            thread.ahead.clear();
          }
        });
      } catch (again) {
        throw this.translated(thread, again);
      }
    }
  }

  /**
   * Appends the messages that open the batch `plan` makes, as many at a time as an append takes (halving on a refusal
   * as too large), until the batch opens with none; inside {@link exclusive}. Each part is planned on the log as it is
   * then (the seqs its messages were planned at are theirs) under a step of its own (a resend finds it); its messages'
   * seqs are kept in `ahead`, where planning the batch again finds them.
   */
  private async appendMessagesAhead(thread: Thread, step: string, plan: (batch: Batch) => Promise<void>): Promise<void> {
    await this.writable(thread);
    // what was planned on top of the batch goes first (or fails): the parts are planned on the log as it then is
    await this.sync(thread);
    for (let part = 0, most = Number.MAX_SAFE_INTEGER; ; ) {
      let keys: string[] = [];
      let done: Appended | undefined;
      try {
        done = await thread.session.appendPlanned(`${step}/ahead/${part}/${most}`, async () => {
          const batch = newBatch();
          await plan(batch);
          let lead = 0;
          while (lead < most && batch.messages.has(lead)) {
            lead++;
          }
          keys = [...Array(lead).keys()].map((i) => batch.messages.get(i)!);
          return batch.events.slice(0, lead);
        });
      } catch (e) {
        if (!tooLarge(e) || keys.length < 2) {
          throw e;
        }
        most = Math.ceil(keys.length / 2);
        continue;
      }
      if (done === undefined) {
        return; // the batch opens with no message to append first
      }
      done.seqs.forEach((seq, i) => thread.ahead.set(keys[i]!, seq));
      part++;
      most = Number.MAX_SAFE_INTEGER;
    }
  }

  /** A SessionLog error as this saver says it: a takeover names the thread. */
  private translated(thread: Thread, e: unknown): unknown {
    return e instanceof SessionTakenOverError ? new ThreadTakenOverError(thread.threadId, thread.sessionId, e.epoch, e.currentEpoch) : e;
  }

  /** This saver's claim of the thread's session (the session created first when there is none). */
  private async writable(thread: Thread): Promise<Claimed> {
    try {
      return await thread.session.claimed();
    } catch (e) {
      throw this.translated(thread, e);
    }
  }

  private newSession(threadId: string): NewSession {
    const wanted = this.options.session?.(threadId) ?? {};
    const tools: HarnessTool[] = (this.options.tools ?? []).map(declarationOf);
    if ((this.options.otherTools ?? "recorded") === "recorded" && !tools.some((t) => t.name === "*")) {
      tools.push({ name: "*", mutating: false, canReconcile: false, recordedOnly: true });
    }
    return {
      objective: wanted.objective ?? `LangGraph thread ${threadId}`,
      modelId: wanted.modelId ?? "langgraph",
      toolMode: wanted.toolMode ?? "WRITE",
      systemPrompt: wanted.systemPrompt,
      constraints: wanted.constraints,
      tokenBudget: wanted.tokenBudget,
      harnessTools: tools,
    };
  }

  /** Reads the events appended since the log's last seq (and the offloaded records among them); false if there is no such session. */
  private async sync(thread: Thread): Promise<boolean> {
    return thread.session.sync();
  }

  /** Reads the records that were offloaded (a large checkpoint), after every read of the log. */
  private async readOffloaded(thread: Thread): Promise<void> {
    for (const event of thread.log.offloadedRecords()) {
      thread.log.index(event.seq, String(event.json.kind), JSON.parse(await this.texts.blob(offloadedSha(event)!)));
    }
  }

  /** Runs `work` on the thread, which stays in memory until it is done. */
  private using<T>(threadId: string, work: (thread: Thread) => Promise<T>): Promise<T> {
    return this.usingSession(this.sessionIdOf(threadId), threadId, work);
  }

  /** Runs `work` on the thread of session `sessionId` (`threadId`: LangGraph's id of it, if the caller knows it). */
  private async usingSession<T>(sessionId: string, threadId: string | undefined, work: (thread: Thread) => Promise<T>): Promise<T> {
    const thread = this.threadOfSession(sessionId, threadId);
    thread.users++;
    try {
      return await work(thread);
    } finally {
      thread.users--;
      this.evict();
    }
  }

  /**
   * Lets go of the least recently used threads beyond {@link TetherSaverOptions.maxCachedThreads} that no call is using
   * and that have nothing planned and not appended, keeping their claims.
   */
  private evict(): void {
    for (const [sessionId, thread] of this.threads) {
      if (this.threads.size <= this.maxCachedThreads) {
        return;
      }
      if (thread.users === 0 && thread.session.idle) {
        const claim = thread.session.claimOf;
        if (claim !== undefined) {
          this.claims.set(sessionId, claim);
        }
        this.threads.delete(sessionId);
      }
    }
  }

  private threadOfSession(sessionId: string, threadId: string | undefined): Thread {
    const known = this.threads.get(sessionId);
    if (known !== undefined) {
      if (threadId !== undefined && known.threadId !== threadId) {
        known.threadId = threadId; // list() saw the session first, and could only guess a hashed thread id from it
      }
      this.threads.delete(sessionId); // the most recently used last
      this.threads.set(sessionId, known);
      return known;
    }
    const id = threadId ?? sessionId.slice(this.prefix.length);
    const log = new ThreadLog(sessionId);
    const lists = new Map<string, { readonly seq: number; readonly items: readonly ListItem[] }>();
    const ahead = new Map<string, number>();
    const written = new Map<number, SessionEvent>();
    const records = new Map<number, CheckpointRecord | WritesRecord>();
    // the records of the events read back that this saver planned, as it wrote them: compared with the log's once
    // those are read (an offloaded one after the sync)
    const unsettled = new Map<number, CheckpointRecord | WritesRecord>();
    // the events folded when planned and taken back (the append was not accepted, or it was with a secret scrubbed:
    // the log is read again), by seq: to find which of them the log holds, and in another form
    const parked = new Map<number, SessionEvent>();
    const session = new SessionLog(this.port, sessionId, {
      workerId: this.workerId,
      harnessVersion: this.options.harnessVersion,
      claim: this.claims.get(sessionId), // a thread let go and used again writes under the claim it had
      newSession: () => this.newSession(created.threadId),
      fold: {
        add: (event, planned) => {
          // a batch planned again may hold another event under a taken-back one's eventId at its seq: only the log's
          // event is compared with the one taken back (was that one appended, scrubbed?)
          const before = planned ? undefined : parked.get(event.seq);
          const form = writtenForm(before, event);
          const record = writtenRecord(before, event);
          parked.delete(event.seq);
          if (form !== undefined) {
            written.set(event.seq, form);
          }
          if (record !== undefined) {
            unsettled.set(event.seq, record);
          }
          log.add(event);
        },
        reset: () => {
          log.reset();
          lists.clear();
          ahead.clear();
          written.clear();
          records.clear();
          unsettled.clear();
          parked.clear();
        },
        rollback: (seq) => {
          for (let at = seq + 1; at <= log.lastSeq; at++) {
            parked.set(at, log.event(at));
            written.delete(at);
            records.delete(at);
            unsettled.delete(at);
          }
          log.rollback(seq);
          lists.clear();
        },
      },
      afterSync: async () => {
        await this.readOffloaded(created);
        keepWritten(created, unsettled);
      },
    });
    const created: Thread = { sessionId, threadId: id, log, session, users: 0, lists, ahead, written, records };
    this.claims.delete(sessionId);
    this.threads.set(sessionId, created);
    return created;
  }

  /** A record's `thread`: only for a thread whose session id is a hash of it (else the session id says it). */
  private threadField(thread: Thread): { thread?: string } {
    return thread.sessionId === `${this.prefix}${thread.threadId}` ? {} : { thread: thread.threadId };
  }

  /** Runs `work` after the work queued on the thread before it. */
  private exclusive<T>(thread: Thread, work: () => Promise<T>): Promise<T> {
    return thread.session.exclusive(work);
  }

  /**
   * A value as the serializer writes it; `what` names it in the error when the serializer cannot write it. LangGraph's
   * JSON serializer writes a value it cannot (one holding a BigInt) as the text {@link UNSERIALIZABLE} in its place:
   * that is refused, not stored instead of the value.
   */
  private async dump(value: unknown, what: string): Promise<TypedValue> {
    let t: string;
    let bytes: Uint8Array;
    try {
      [t, bytes] = await this.serde.dumpsTyped(value);
    } catch (e) {
      throw new TetherSaverError(`${what}: the serializer cannot write it: ${e instanceof Error ? e.message : String(e)}`, { cause: e });
    }
    if (t !== "json") {
      return { t, b: Buffer.from(bytes).toString("base64") };
    }
    const j: unknown = JSON.parse(new TextDecoder().decode(bytes));
    if (j === UNSERIALIZABLE && value !== UNSERIALIZABLE) {
      throw new TetherSaverError(`${what}: the serializer cannot write it (a BigInt in it?), and would store "${UNSERIALIZABLE}" instead`);
    }
    return { t, j };
  }

  private load(value: TypedValue): Promise<unknown> {
    return "j" in value ? this.serde.loadsTyped(value.t, JSON.stringify(value.j)) : this.serde.loadsTyped(value.t, Buffer.from(value.b, "base64"));
  }
}

/** What LangGraph's JSON serializer (fast-safe-stringify) writes instead of a value JSON.stringify throws on (a BigInt). */
const UNSERIALIZABLE = "[unable to serialize, circular reference is too complex to analyze]";

/** Where the messages of one write already are in the log (see `TetherSaver.scope`). */
interface Scope {
  /** Records that the event at `seq` holds the message of JSON-without-id `key` and id `id`. */
  add(key: string, seq: number, id: string | undefined): void;
  /**
   * The seq of the event holding the message of JSON-without-id `key` and id `id`: one stored with that id, else one
   * stored without id whose seq is not in `used` (the events the value being stored refers to already).
   */
  lookup(key: string, id: string | undefined, used: Set<number>): Promise<number | undefined>;
}

/** A message of a scope: the event holding it, and its id (none for a node's write the reducer had not given one). */
interface ScopeEntry {
  readonly seq: number;
  readonly id: string | undefined;
}

/** The event at `seq` that holds a message, as this saver wrote it when it did (see {@link Thread.written}). */
function messageEvent(thread: Thread, seq: number): SessionEvent {
  return thread.written.get(seq) ?? thread.log.event(seq);
}

/** The message the record at `seq` holds, as this saver wrote it when it did. */
function messageRecord(thread: Thread, seq: number): unknown {
  const written = thread.written.get(seq);
  return written === undefined ? thread.log.recordAt(seq).record : JSON.parse(String(written.json.content));
}

/** The record at `at` as this saver wrote it when it did (see {@link Thread.records}), else as the log holds it. */
function asWritten<R extends CheckpointRecord | WritesRecord>(thread: Thread, at: At<R>): R {
  return (thread.records.get(at.seq) as R | undefined) ?? at.record;
}

/** The checkpoint record at `seq`, as this saver wrote it when it did. */
function checkpointAt(thread: Thread, seq: number): CheckpointRecord {
  const written = thread.records.get(seq);
  return written !== undefined && "stored" in written ? written : thread.log.checkpointAt(seq);
}

/**
 * The record `planned` held, an event this saver folded when it planned it, if the log's `read` at its seq is that
 * event (its eventId), a checkpoint or writes record whose content is not the one written (scrubbed, or offloaded:
 * {@link keepWritten} compares the records once the log's is read). Else undefined.
 */
function writtenRecord(planned: SessionEvent | undefined, read: SessionEvent): CheckpointRecord | WritesRecord | undefined {
  if (planned === undefined || planned.eventId !== read.eventId || read.type !== "framework_state" || planned.type !== read.type) {
    return undefined;
  }
  const kind = read.json.kind;
  if (read.json.framework !== FRAMEWORK || (kind !== CHECKPOINT && kind !== WRITES) || planned.json.kind !== kind || planned.json.content === read.json.content) {
    return undefined;
  }
  return recordOf(kind, JSON.parse(String(planned.json.content))); // as ThreadLog.index reads it back
}

/**
 * Keeps, of the records `unsettled` holds as written, those the log holds in another form (Tether scrubbed a secret
 * from them), and then only the records the newest checkpoint of each namespace is read from — its own, those of the
 * values it locates, the writes pending on it — as written: what the graph reads back when it goes on (its next
 * invoke, a resumed step), bounded by the thread's state, not its history. After a read of the log, so that no planned
 * checkpoint that a rollback takes back decides what is dropped (records are kept only from the log as read).
 */
function keepWritten(thread: Thread, unsettled: Map<number, CheckpointRecord | WritesRecord>): void {
  for (const [seq, record] of unsettled) {
    if (canonical(record) !== canonical(thread.log.recordAt(seq).record)) {
      thread.records.set(seq, record);
    }
  }
  unsettled.clear();
  if (thread.records.size === 0) {
    return;
  }
  const needed = new Set<number>();
  for (const ns of thread.log.namespaces()) {
    const newest = thread.log.latest(ns)!;
    needed.add(newest.seq);
    Object.values(newest.record.values).forEach((location) => needed.add(location.at === 0 ? newest.seq : location.at));
    thread.log.writesOf(ns, newest.record.id).forEach((w) => needed.add(w.seq));
  }
  for (const seq of thread.records.keys()) {
    if (!needed.has(seq)) {
      thread.records.delete(seq);
    }
  }
}

/**
 * `planned`, an event this saver folded when it planned it, if the log's `read` at its seq is that event (its eventId)
 * holding a message other than written: Tether scrubbed a secret from it, or offloaded its content. Else undefined.
 */
function writtenForm(planned: SessionEvent | undefined, read: SessionEvent): SessionEvent | undefined {
  if (planned === undefined || planned.eventId !== read.eventId || planned.type !== read.type) {
    return undefined;
  }
  const holdsMessage = MESSAGE_EVENTS.has(read.type) || (read.type === "framework_state" && read.json.framework === FRAMEWORK && read.json.kind === MESSAGE);
  const fields = Object.keys(planned.json).filter((k) => !SENT_ONLY.has(k));
  return holdsMessage && fields.some((k) => canonical(planned.json[k]) !== canonical(read.json[k])) ? planned : undefined;
}

const MESSAGE_EVENTS = new Set(["user_message", "assistant_message", "tool_result", "context_compacted"]);
/** The fields of a folded planned event that are not the event's own (SessionLog adds them). */
const SENT_ONLY = new Set(["eventId", "type", "seq", "sessionId"]);

/** A serialized message's id, if it has one. */
function idOf(message: LcMessage): string | undefined {
  const id = message.kwargs?.id;
  return typeof id === "string" ? id : undefined;
}

type RefNode = { readonly [REF]: MessageRef };

function isRef(node: unknown): boolean {
  return typeof node === "object" && node !== null && !Array.isArray(node) && REF in node;
}

function containsMessage(node: unknown): boolean {
  if (isLcMessage(node)) {
    return true;
  }
  if (Array.isArray(node)) {
    return node.some(containsMessage);
  }
  return typeof node === "object" && node !== null && Object.values(node).some(containsMessage);
}

/** `node` with every part that `match`es replaced by what `replace` makes of it (parts inside a replaced one are not visited). */
async function mapDeep(node: unknown, match: (n: unknown) => boolean, replace: (n: unknown) => Promise<unknown>): Promise<unknown> {
  if (match(node)) {
    return replace(node);
  }
  if (Array.isArray(node)) {
    const out = [];
    for (const n of node) {
      out.push(await mapDeep(n, match, replace));
    }
    return out;
  }
  if (typeof node === "object" && node !== null) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(node)) {
      out[k] = await mapDeep(v, match, replace);
    }
    return out;
  }
  return node;
}

interface Batch {
  readonly events: Event[];
  /** The calls asked for earlier in this batch. */
  readonly calls: BatchCalls;
  /** The message lists this batch's checkpoint stores, to remember once it is appended. */
  readonly lists: Map<string, readonly ListItem[]>;
  /** The events that hold a new message, by index: the message's JSON. */
  readonly messages: Map<number, string>;
}

function newBatch(): Batch {
  return { events: [], calls: { asked: new Map() }, lists: new Map(), messages: new Map() };
}

/** Whether Tether refused an append as more than one append takes (413: over the session-service's maxCommandBytes). */
function tooLarge(error: unknown): boolean {
  return error instanceof TetherError && error.apiError?.status === 413;
}

function frameworkState(kind: string, key: string, record: StoredCheckpointRecord | StoredWritesRecord): Event {
  return NewEvent.of("framework_state", { framework: FRAMEWORK, kind, key, content: JSON.stringify(record) });
}

function isMessageList(value: unknown): boolean {
  return Array.isArray(value) && value.length > 0 && value.every((m) => isBaseMessage(m));
}

function requiredThreadId(config: RunnableConfig, what: string): string {
  const threadId = config.configurable?.thread_id as unknown;
  if (config.configurable === undefined || threadId === undefined || threadId === null || threadId === "") {
    throw new TetherSaverError(
      `cannot ${what}: the config has no "thread_id" in its "configurable" property (graph.invoke(input, { configurable: { thread_id: "..." } }))`,
    );
  }
  return String(threadId);
}

/**
 * A checkpoint id as the key of the records of it (`framework_state`'s `key`: 1-512 characters, no control character,
 * as the session-service checks it): refused before anything is sent, rather than by the sequencer.
 */
function recordKey(id: unknown, what: string): void {
  // eslint-disable-next-line no-control-regex
  if (typeof id !== "string" || id.length < 1 || id.length > 512 || /[\u0000-\u001f\u007f-\u009f]/.test(id)) {
    throw new TetherSaverError(`cannot ${what}: the checkpoint id must be 1-512 characters without a control character, not ${JSON.stringify(id)?.slice(0, 80)}`);
  }
}

/** A message's JSON without its id: how a message a node wrote is recognised once the reducer gave it an id. */
function withoutId(json: string): string {
  const lc = JSON.parse(json) as LcMessage;
  const { id: _id, ...kwargs } = lc.kwargs;
  void _id;
  return canonical({ ...lc, kwargs });
}

/** JSON with every object's keys sorted: the same text for the same value, whatever order its keys were written in. */
const canonical = canonicalJson;

function digest(text: string): string {
  return createHash("sha256").update(text, "utf8").digest("hex").slice(0, 24);
}

