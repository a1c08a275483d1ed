/**
 * What TetherSaver writes into a session's log besides typed events: `framework_state` events of framework
 * `langgraph`, whose `content` is one of the records below (JSON). Tether stores them and never interprets them; they
 * are this package's format, read back by {@link ThreadLog}. Field names are short on purpose: a record is written at
 * every superstep.
 *
 * @module
 */

/** The `framework` of every `framework_state` event this package writes. */
export const FRAMEWORK = "langgraph";
/** `kind` of a checkpoint record ({@link CheckpointRecord}). */
export const CHECKPOINT = "checkpoint";
/** `kind` of a record of pending writes ({@link WritesRecord}). */
export const WRITES = "writes";
/** `kind` of a message no typed event can hold (a system message, a tool message of a call Tether does not know...). */
export const MESSAGE = "message";

/**
 * A value as LangGraph's serializer typed it: its JSON inline when the type is `json` (`m: 1` when messages in it are
 * replaced by references, `{"$tether.message": MessageRef}`), base64 otherwise.
 */
export type TypedValue = { readonly t: string; readonly j: unknown; readonly m?: 1 } | { readonly t: string; readonly b: string };

/**
 * Where one message of a message list is: the event at seq `s` — a typed event (`user_message`, `assistant_message`,
 * `tool_result`) or a {@link MESSAGE} record. `r` is the serialized message (LangChain's `lc` constructor JSON) without
 * what the typed event holds: its `kwargs.content` is left out when it equals the event's text. Absent for a message
 * record, which holds the whole message.
 */
export interface MessageRef {
  readonly s: number;
  /** The message less what its event holds: `{k: kwargs}` when its class and the other kwargs are what the event implies. */
  readonly r?: LcMessage | { readonly k: Readonly<Record<string, unknown>>; readonly x?: readonly string[] };
}

/**
 * A list of messages stored as references: the value of the same channel in the checkpoint record at seq `base`
 * (when present), followed by `add`. A value that extends its parent's is stored as its new messages only — the
 * reason a thread's storage grows with its messages, not with messages × checkpoints.
 */
export interface MessagesValue {
  readonly t: "messages";
  readonly base?: number;
  readonly add: readonly MessageRef[];
}

/** The key of a reference to a message inside a stored value ({@link TypedValue} with `m: 1`): `{"$tether.message": MessageRef}`. */
export const REF = "$tether.message";

/** A stored channel value or pending write. */
export type StoredValue = TypedValue | MessagesValue;

/** Where a channel's value is, for a checkpoint: `at` the seq of the checkpoint record that stored it (0: this one), at version `v`. */
export interface ValueLocation {
  readonly at: number;
  readonly v: number | string;
}

/** One checkpoint of a thread: LangGraph's checkpoint without its channel values, which are located instead. */
export interface CheckpointRecord {
  /** LangGraph's thread id, when the session's id is a hash of it (else it is the session's id without the prefix). */
  readonly thread?: string;
  /** The checkpoint namespace; written only when not "" (ThreadLog reads it back as ""). */
  readonly ns?: string;
  readonly id: string;
  /** The checkpoint it was written after (`config.configurable.checkpoint_id` of the put), if any. */
  readonly parent: string | null;
  /** The checkpoint without `channel_values` and `id` (the record's), serialized. */
  readonly checkpoint: TypedValue;
  readonly metadata: TypedValue;
  /** Where each channel's value is (channels without a value are absent). */
  readonly values: Readonly<Record<string, ValueLocation>>;
  /** The values this record stores: those of the put's `newVersions`. */
  readonly stored: Readonly<Record<string, StoredValue>>;
}

/**
 * The format of the checkpoint records this package writes (their `f`); a record without `f` is of format 1, as every
 * record written before format 2 is, and reads as it always did.
 *
 * Format 2 is format 1 with no channel or node name as a JSON key: {@link CheckpointRecord}'s `values` and `stored`,
 * and the serialized checkpoint's `channel_versions` and `versions_seen` (node, then channel), are lists of
 * `[name, value]` pairs ({@link StoredCheckpointRecord}). Tether scrubs the value of a key whose name says it is a
 * secret (`apiKey`, `token`, `password`, `credentials`...), every string in it when it is an object or array: a
 * channel so named had its location, its stored value's type tag and its version replaced by markers, and the thread
 * could not be read back. A name that is an element of a list is no key, so only the saver's own structure moves:
 * the values themselves are stored as before, and a secret in one is scrubbed as before (by name too).
 */
export const FORMAT = 2;

/** A channel-keyed map as format 2 stores it: `[name, value]` pairs, in the map's order. */
export type Pairs<V> = readonly (readonly [string, V])[];

/** A {@link CheckpointRecord} as format 2 stores it (see {@link FORMAT}); ThreadLog reads it back as a CheckpointRecord. */
export interface StoredCheckpointRecord extends Omit<CheckpointRecord, "values" | "stored"> {
  readonly f: typeof FORMAT;
  readonly values: Pairs<ValueLocation>;
  readonly stored: Pairs<StoredValue>;
}

/** `record` as format 2 stores it, the channel and node names of its checkpoint's versions included. */
export function storedForm(record: CheckpointRecord): StoredCheckpointRecord {
  const { values, stored, checkpoint, ...rest } = record;
  return { f: FORMAT, ...rest, checkpoint: mapCheckpointJson(checkpoint, toPairs), values: Object.entries(values), stored: Object.entries(stored) };
}

/**
 * The checkpoint record a `checkpoint` record's content holds, whatever its format: format 1 as it is, format 2 with
 * its pairs made maps again (LangGraph reads its checkpoint in its own shape). A record read already is returned as it
 * is (it has no `f`).
 */
export function checkpointRecordOf(content: unknown): CheckpointRecord {
  const record = content as CheckpointRecord | StoredCheckpointRecord;
  if (!("f" in record) || record.f === undefined) {
    return record as CheckpointRecord;
  }
  if (record.f !== FORMAT) {
    throw new Error(`checkpoint record ${record.id} is of format ${String(record.f)}, which a newer TetherSaver writes: this one reads formats 1 and ${FORMAT}`);
  }
  const { f: _f, values, stored, checkpoint, ...rest } = record;
  void _f;
  return { ...rest, checkpoint: mapCheckpointJson(checkpoint, fromPairs), values: Object.fromEntries(values), stored: Object.fromEntries(stored) };
}

/** A serialized checkpoint (its JSON inline) with its `channel_versions` and each node's `versions_seen` mapped by `map`. */
function mapCheckpointJson(checkpoint: TypedValue, map: (versions: unknown) => unknown): TypedValue {
  if (!("j" in checkpoint) || typeof checkpoint.j !== "object" || checkpoint.j === null) {
    return checkpoint; // not JSON (another serializer's bytes, base64): no name in it is a key Tether reads
  }
  const j = { ...(checkpoint.j as Record<string, unknown>) };
  if (j.channel_versions !== undefined) {
    j.channel_versions = map(j.channel_versions);
  }
  if (j.versions_seen !== undefined) {
    const nodes = fromPairs(j.versions_seen) as Record<string, unknown>;
    j.versions_seen = map(Object.fromEntries(Object.entries(nodes).map(([node, seen]) => [node, map(seen)])));
  }
  return { ...checkpoint, j };
}

/** A map as pairs (already pairs: as it is). */
function toPairs(map: unknown): unknown {
  return typeof map === "object" && map !== null && !Array.isArray(map) ? Object.entries(map) : map;
}

/** Pairs as a map (already a map: as it is). */
function fromPairs(pairs: unknown): unknown {
  return Array.isArray(pairs) ? Object.fromEntries(pairs as [string, unknown][]) : pairs;
}

/** The writes of one task against one checkpoint (one `putWrites`). */
export interface WritesRecord {
  readonly thread?: string;
  /** Written only when not "" (ThreadLog reads it back as ""). */
  readonly ns?: string;
  /** The checkpoint the writes are pending on. */
  readonly checkpoint: string;
  readonly task: string;
  readonly path: string;
  /** `[channel, index, value]`, in the order given. */
  readonly writes: readonly (readonly [string, number, StoredValue])[];
  /**
   * A digest of the writes as given (their path and serialized values), when one of them is to a special channel
   * (error, interrupt, resume), which is read as the task's last: the same writes again after others are stored again.
   */
  readonly d?: string;
}

/** A message as LangChain serializes it: `{lc: 1, type: "constructor", id: [..., "HumanMessage"], kwargs: {...}}`. */
export interface LcMessage {
  readonly lc: number;
  readonly type: string;
  readonly id: readonly string[];
  readonly kwargs: Readonly<Record<string, unknown>>;
}

export function isLcMessage(value: unknown): value is LcMessage {
  if (typeof value !== "object" || value === null) {
    return false;
  }
  const v = value as Record<string, unknown>;
  return v.type === "constructor" && Array.isArray(v.id) && typeof v.kwargs === "object" && v.kwargs !== null
    && v.id.length > 0 && typeof v.id[v.id.length - 1] === "string" && /Message(Chunk)?$/.test(v.id[v.id.length - 1] as string);
}

/** The class name of a serialized message, e.g. `AIMessage`. */
export function lcClass(message: LcMessage): string {
  return message.id[message.id.length - 1]!;
}
