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
 * The format of the checkpoint and writes records this package writes (their `f`). A record without `f` is of format 1,
 * as every record written before format 2 is, and reads as it always did.
 *
 * - Format 2 is format 1 with no channel or node name as a JSON key: {@link CheckpointRecord}'s `values` and `stored`,
 *   and the serialized checkpoint's `channel_versions` and `versions_seen` (node, then channel), are lists of
 *   `[name, value]` pairs ({@link StoredCheckpointRecord}). Tether scrubs the value of a key whose name says it is a
 *   secret (`apiKey`, `token`, `password`, `credentials`...), every string in it when it is an object or array: a
 *   channel so named had its location, its stored value's type tag and its version replaced by markers, and the thread
 *   could not be read back. A name that is an element of a list is no key, so only the saver's own structure moves:
 *   the values themselves are stored as before, and a secret in one is scrubbed as before (by name too).
 * - Format 3 is format 2 with every name of LangGraph's a record holds escaped ({@link escapeName}: `%`, `:` and `=` as
 *   `%25`, `%3A` and `%3D`) — the thread id (`thread`), the namespace (`ns`; the metadata's `parents`), channel and
 *   node names (the metadata's `counters_since_delta_snapshot` too), a writes record's channels and task path — and
 *   writes records marked with `f` too. Tether scrubs what follows a name that says secret and a `:` or `=` in any
 *   text: a subgraph run by a node named `get_api_key` has the namespace `get_api_key:<task id>`, whose task id became
 *   a marker, and a join channel `join:a+refresh_token:b` lost its `b`, so the subgraph's checkpoints and the join's
 *   writes could not be found again.
 */
export const FORMAT = 3;

/** A channel-keyed map as formats 2 and 3 store it: `[name, value]` pairs, in the map's order. */
export type Pairs<V> = readonly (readonly [string, V])[];

/** A {@link CheckpointRecord} as format 3 stores it (see {@link FORMAT}); ThreadLog reads it back as a CheckpointRecord. */
export interface StoredCheckpointRecord extends Omit<CheckpointRecord, "values" | "stored"> {
  readonly f: typeof FORMAT;
  readonly values: Pairs<ValueLocation>;
  readonly stored: Pairs<StoredValue>;
}

/** A {@link WritesRecord} as format 3 stores it: its names escaped. */
export interface StoredWritesRecord extends WritesRecord {
  readonly f: typeof FORMAT;
}

/**
 * A name of LangGraph's as format 3 stores it: `%`, `:` and `=` as `%25`, `%3A` and `%3D`, so that no name is followed
 * by a `:` or `=` in the text Tether scrubs. Most names have none of them and are stored as they are.
 */
export function escapeName(name: string): string {
  return name.replace(/[%:=]/g, (c) => (c === "%" ? "%25" : c === ":" ? "%3A" : "%3D"));
}

/** The name {@link escapeName} stored. */
export function unescapeName(stored: string): string {
  return stored.replace(/%(25|3A|3D)/g, (_, hex: string) => (hex === "25" ? "%" : hex === "3A" ? ":" : "="));
}

const asIs = (name: string) => name;

/** `record` as format 3 stores it, the channel and node names of its checkpoint's versions included. */
export function storedForm(record: CheckpointRecord): StoredCheckpointRecord {
  const { values, stored, checkpoint, metadata, thread, ns, ...rest } = record;
  return {
    f: FORMAT,
    ...(thread === undefined ? {} : { thread: escapeName(thread) }),
    ...rest,
    ...(ns === undefined ? {} : { ns: escapeName(ns) }),
    checkpoint: mapCheckpointJson(checkpoint, "pairs", escapeName),
    metadata: mapMetadataNames(metadata, escapeName),
    values: pairsOf(values, escapeName),
    stored: pairsOf(stored, escapeName),
  };
}

/**
 * The checkpoint record a `checkpoint` record's content holds, whatever its format: format 1 as it is, formats 2 and 3
 * with their pairs made maps again (LangGraph reads its checkpoint in its own shape) and format 3's names unescaped. A
 * record read already is returned as it is (it has no `f`).
 */
export function checkpointRecordOf(content: unknown): CheckpointRecord {
  const record = content as CheckpointRecord | StoredCheckpointRecord | (Omit<StoredCheckpointRecord, "f"> & { f: 2 });
  if (!("f" in record) || record.f === undefined) {
    return record as CheckpointRecord;
  }
  const name = nameReader(record.f, `checkpoint record ${record.id}`);
  const { f: _f, values, stored, checkpoint, metadata, thread, ns, ...rest } = record;
  void _f;
  return {
    ...(thread === undefined ? {} : { thread: name(thread) }),
    ...rest,
    ...(ns === undefined ? {} : { ns: name(ns) }),
    checkpoint: mapCheckpointJson(checkpoint, "map", name),
    metadata: mapMetadataNames(metadata, name),
    values: Object.fromEntries(pairsOf(values, name)),
    stored: Object.fromEntries(pairsOf(stored, name)),
  };
}

/** `record` as format 3 stores it. */
export function storedWritesForm(record: WritesRecord): StoredWritesRecord {
  const { thread, ns, path, writes, ...rest } = record;
  return {
    f: FORMAT,
    ...(thread === undefined ? {} : { thread: escapeName(thread) }),
    ...rest,
    ...(ns === undefined ? {} : { ns: escapeName(ns) }),
    path: escapeName(path),
    writes: writes.map(([channel, index, value]) => [escapeName(channel), index, value] as const),
  };
}

/** The writes record a `writes` record's content holds, whatever its format (a record without `f` is of format 1 or 2). */
export function writesRecordOf(content: unknown): WritesRecord {
  const record = content as WritesRecord & { f?: number };
  if (record.f === undefined) {
    return record;
  }
  const name = nameReader(record.f, `writes record of checkpoint ${record.checkpoint}`);
  const { f: _f, thread, ns, path, writes, ...rest } = record;
  void _f;
  return {
    ...(thread === undefined ? {} : { thread: name(thread) }),
    ...rest,
    ...(ns === undefined ? {} : { ns: name(ns) }),
    path: name(path),
    writes: writes.map(([channel, index, value]) => [name(channel), index, value] as const),
  };
}

/**
 * The checkpoint or writes record (`kind`) a record's content holds, in the shape of format 1, whatever its format; the
 * namespace "" when the record leaves it out.
 */
export function recordOf(kind: string, content: unknown): CheckpointRecord | WritesRecord {
  return { ns: "", ...(kind === CHECKPOINT ? checkpointRecordOf(content) : writesRecordOf(content)) };
}

/** How a record of format `f` stores names; an error for a format a newer TetherSaver writes. */
function nameReader(f: number, what: string): (stored: string) => string {
  if (f === 2) {
    return asIs;
  }
  if (f !== FORMAT) {
    throw new Error(`${what} is of format ${String(f)}, which a newer TetherSaver writes: this one reads formats 1 to ${FORMAT}`);
  }
  return unescapeName;
}

/** A map's (or pairs') entries, their names mapped by `name`. */
function pairsOf<V>(map: Readonly<Record<string, V>> | Pairs<V>, name: (n: string) => string): [string, V][] {
  const entries: Pairs<V> = Array.isArray(map) ? (map as Pairs<V>) : Object.entries(map);
  return entries.map(([n, v]) => [name(n), v]);
}

/**
 * A serialized checkpoint (its JSON inline) with its `channel_versions` and each node's `versions_seen` as `pairs` or
 * as a `map`, whichever form they are in, their names mapped by `name`.
 */
function mapCheckpointJson(checkpoint: TypedValue, to: "pairs" | "map", name: (n: string) => string): TypedValue {
  if (!("j" in checkpoint) || typeof checkpoint.j !== "object" || checkpoint.j === null) {
    return checkpoint; // not JSON (another serializer's bytes, base64): no name in it is a key Tether reads
  }
  const form = (map: unknown, inner?: (v: unknown) => unknown) => {
    if (typeof map !== "object" || map === null) {
      return map;
    }
    const entries = pairsOf(map as Record<string, unknown>, name).map(([n, v]) => [n, inner === undefined ? v : inner(v)] as [string, unknown]);
    return to === "pairs" ? entries : Object.fromEntries(entries);
  };
  const j = { ...(checkpoint.j as Record<string, unknown>) };
  if (j.channel_versions !== undefined) {
    j.channel_versions = form(j.channel_versions);
  }
  if (j.versions_seen !== undefined) {
    j.versions_seen = form(j.versions_seen, (seen) => form(seen));
  }
  return { ...checkpoint, j };
}

/** The maps of LangGraph's checkpoint metadata keyed by its names: namespaces (`parents`), channels (delta channels' counters). */
const NAMED_METADATA = ["parents", "counters_since_delta_snapshot"];

/** Serialized metadata (its JSON inline) with the names that key its {@link NAMED_METADATA} maps mapped by `name`. */
function mapMetadataNames(metadata: TypedValue, name: (n: string) => string): TypedValue {
  if (name === asIs || !("j" in metadata) || typeof metadata.j !== "object" || metadata.j === null) {
    return metadata;
  }
  const j = { ...(metadata.j as Record<string, unknown>) };
  for (const key of NAMED_METADATA) {
    const map = j[key];
    if (typeof map === "object" && map !== null && !Array.isArray(map)) {
      j[key] = Object.fromEntries(pairsOf(map as Record<string, unknown>, name));
    }
  }
  return { ...metadata, j };
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
