import { UserError } from "@openai/agents-core";
import { NewEvent, type NewEvent as Event } from "@tether/client";
import { SDK_TOOL_ERROR_TEXT } from "./tool-errors.js";

/**
 * How the OpenAI Agents SDK's history items become Tether events, and back. An item goes into the log once, as the
 * typed event that fits it — a user message as `user_message`, an assistant message as `assistant_message`, a
 * function call as an `assistant_message` asking for that call, a function call's output as its `tool_result` — so
 * Tether's model context, recovery report and secret scrubbing see the conversation. The item less its text (the
 * residual) is kept with the reference to the event, with a marker where the text goes back, so `getItems` returns
 * the item exactly. Any other item (reasoning, a hosted tool call, a compaction, a system message) is stored whole, as a
 * `framework_state` item record.
 *
 * @module
 */

/** The `framework` of every `framework_state` event this package writes. */
export const FRAMEWORK = "openai-agents";
/** `kind` of a history record ({@link HistoryRecord}). */
export const HISTORY = "history";
/** `kind` of an item no typed event fits. */
export const ITEM = "item";
/** `kind` of a saved run state. */
export const RUN_STATE = "run_state";

/** An item as the SDK hands it over (`AgentInputItem`): plain JSON. */
export type Item = Readonly<Record<string, unknown>>;

/** Where the typed event's text goes back into a residual. */
export const TEXT = Object.freeze({ "$tether.text": 1 });

/** One item of a history: the event at seq `s`; `r` the item with {@link TEXT} where the event's text goes (absent for an item record). */
export interface ItemRef {
  readonly s: number;
  readonly r?: unknown;
}

/**
 * One change of the history, a `framework_state` record appended with the events it adds: the list of the record at
 * `base` (none: empty), less its last `drop` items, then `add`. `op` says what the SDK asked for; `id` and `tx` are a
 * history transaction's operation id and the sha256 of its canonical JSON (so a retry is recognised and a different
 * transaction under the same id refused).
 */
export interface HistoryRecord {
  readonly op: "add" | "pop" | "clear" | "replace_suffix" | "compaction" | "restore";
  readonly base?: number;
  readonly drop?: number;
  readonly add: readonly ItemRef[];
  readonly id?: string;
  readonly tx?: string;
}

/** How an item goes into the log. */
export type ItemPlan =
  | { readonly kind: "typed"; readonly event: Event; readonly residual: unknown }
  | { readonly kind: "existing"; readonly seq: number; readonly residual: unknown }
  | { readonly kind: "record"; readonly event: Event };

/** What the planner needs to know of the log: a call's request and result, and who runs it. */
export interface CallsView {
  readonly sessionId: string;
  /** The seq of the assistant message that asked for `callId`, and the seq of its result if it has one. */
  call(callId: string): { readonly askSeq: number; readonly resultSeq: number | undefined; readonly tool: string } | undefined;
  /** Who runs a call of `tool`: the declaration of the session's start. */
  runnerOf(tool: string): "EXECUTOR" | "HARNESS" | "RECORDED";
  /** The fields of the event at `seq` (in the log). */
  fields(seq: number): Readonly<Record<string, unknown>>;
  /** The whole text of the result at `seq` (an offloaded one included), when it was read for the plan. */
  text(seq: number): string | undefined;
}

/** Calls asked for earlier in the batch being planned. */
export type BatchCalls = Map<string, { readonly askSeq: number; readonly tool: string; answered: boolean }>;

/** The plan for `item`, to be the event at seq `seq` when it is new. */
export function planItem(item: Item, seq: number, log: CallsView, batch: BatchCalls): ItemPlan {
  const exact = wellFormed(item);
  if (!exact && item.type !== "function_call_result") {
    // half a surrogate pair (a text cut inside an emoji): the UTF-8 a typed event goes as would carry `?` instead; a
    // record's JSON text carries it escaped (\udXXX), so the item comes back as it was
    return { kind: "record", event: itemRecord(item) };
  }
  const typed = (event: Event, text: string, residual: unknown): ItemPlan => ({ kind: "typed", event, residual: text === textOf(event.fields) ? residual : item });
  if (item.role === "user") {
    const place = textPlace(item);
    if (place !== undefined) {
      return typed(NewEvent.userMessage(place.text), place.text, place.residual);
    }
  } else if (item.role === "assistant" && (item.type === undefined || item.type === "message")) {
    const place = textPlace(item);
    if (place !== undefined) {
      return typed(NewEvent.assistantMessage(place.text), place.text, place.residual);
    }
  } else if (item.type === "function_call" && typeof item.callId === "string" && typeof item.name === "string" && typeof item.arguments === "string") {
    const logged = log.call(item.callId);
    const residual = { ...item, arguments: TEXT };
    if (logged !== undefined) {
      // asked for already, by the tool's wrapper before it ran: refer to that request
      return { kind: "existing", seq: logged.askSeq, residual: argumentsOf(log.fields(logged.askSeq)) === item.arguments ? residual : item };
    }
    if (!batch.has(item.callId) && isJsonObject(item.arguments) && fitsToolCall(item.callId, item.name)) {
      batch.set(item.callId, { askSeq: seq, tool: item.name, answered: false });
      return { kind: "typed", event: NewEvent.assistantMessage("", [{ callId: item.callId, tool: item.name, arguments: item.arguments }]), residual };
    }
  } else if (item.type === "function_call_result" && typeof item.callId === "string") {
    // one well-formed text goes back into the residual; any other output (an image, a file, several parts, half a
    // surrogate pair) is kept whole in it
    const place = exact ? outputPlace(item) : undefined;
    const logged = log.call(item.callId);
    if (logged?.resultSeq !== undefined) {
      const text = log.text(logged.resultSeq) ?? textOf(log.fields(logged.resultSeq));
      return { kind: "existing", seq: logged.resultSeq, residual: place !== undefined && text === place.text ? place.residual : item };
    }
    const pending = batch.get(item.callId);
    const askSeq = logged?.askSeq ?? pending?.askSeq;
    const tool = logged?.tool ?? pending?.tool;
    if (askSeq !== undefined && tool !== undefined && log.runnerOf(tool) === "RECORDED" && pending?.answered !== true) {
      if (pending !== undefined) {
        pending.answered = true;
      }
      // a tool that threw: the SDK marks its output `completed` all the same, with its default errorFunction's text (an
      // errorFunction of the application's own makes an output that cannot be told from a result: recorded OK)
      const status = item.status === "incomplete" || place?.text === SDK_TOOL_ERROR_TEXT ? "ERROR" : "OK";
      const key = `${log.sessionId}/${askSeq}/${item.callId}`;
      if (place !== undefined) {
        return typed(NewEvent.toolResult(item.callId, status, place.text, key), place.text, place.residual);
      }
      // still the call's result: a call left without one stays open in Tether (its context shows a call never answered,
      // and the session takes no more calls once 512 are open)
      return { kind: "typed", event: NewEvent.toolResult(item.callId, status, shownOf(item.output), key), residual: item };
    }
  }
  return { kind: "record", event: itemRecord(item) };
}

/**
 * `value` as items the log can hold, or a UserError naming the first field it cannot (`name` says whose: `addItems:
 * items`): an item is a plain object of JSON values — strings, finite numbers, booleans, null, arrays and plain objects;
 * an `undefined` member is left out, as JSON leaves it. Checked before anything is written, so nothing is half-stored and
 * no value comes back changed (`NaN` as null, bytes as an object of numbers, a Date as a string).
 */
export function requireItems(value: unknown, name: string): Item[] {
  if (!Array.isArray(value)) {
    throw new UserError(`${name} must be an array of items, not ${kindOf(value)}`);
  }
  value.forEach((item: unknown, i) => {
    if (!isPlainObject(item)) {
      throw new UserError(`${name}[${i}] must be an item (an object), not ${kindOf(item)}`);
    }
    requireJson(item, `${name}[${i}]`, new Set());
  });
  return value as Item[];
}

function requireJson(value: unknown, path: string, ancestors: Set<object>): void {
  if (value === null || typeof value === "string" || typeof value === "boolean") {
    return;
  }
  if (typeof value === "number") {
    if (!Number.isFinite(value)) {
      throw new UserError(`${path} is ${value}, which JSON cannot hold: nothing was stored`);
    }
    return;
  }
  if (Array.isArray(value) || isPlainObject(value)) {
    if (ancestors.has(value)) {
      throw new UserError(`${path} refers to itself (a cycle), which JSON cannot hold: nothing was stored`);
    }
    ancestors.add(value);
    if (Array.isArray(value)) {
      value.forEach((v: unknown, i) => requireJson(v, `${path}[${i}]`, ancestors));
    } else {
      for (const [key, v] of Object.entries(value)) {
        if (v !== undefined) {
          requireJson(v, /^[A-Za-z_$][\w$]*$/.test(key) ? `${path}.${key}` : `${path}[${JSON.stringify(key)}]`, ancestors);
        }
      }
    }
    ancestors.delete(value);
    return;
  }
  const hint = value instanceof Uint8Array ? " (give bytes as a base64 data URL, as the SDK's runner stores them)" : "";
  throw new UserError(`${path} is ${kindOf(value)}, which JSON cannot hold${hint}: nothing was stored`);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null) {
    return false;
  }
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}

/** `null`, `undefined`, `an array`, `a bigint`, `a Uint8Array` …: what a value is, for a message. */
function kindOf(value: unknown): string {
  if (value === null || value === undefined) {
    return String(value);
  }
  if (Array.isArray(value)) {
    return "an array";
  }
  if (typeof value === "object") {
    const name = (value as { constructor?: { name?: unknown } }).constructor?.name;
    return typeof name === "string" && name !== "" ? `a ${name}` : "an object";
  }
  return `a ${typeof value}`;
}

/** The `framework_state` event that holds `item` whole. */
export function itemRecord(item: Item): Event {
  const id = typeof item.id === "string" && item.id !== "" ? item.id : typeof item.callId === "string" ? item.callId : "-";
  return NewEvent.frameworkState(FRAMEWORK, ITEM, printable(`${String(item.type ?? item.role ?? "item")}:${id}`), JSON.stringify(item));
}

/** The item a reference stands for: the residual with the event's text (its whole text) where {@link TEXT} is. */
export function restore(ref: ItemRef, event: { readonly type: string; readonly fields: Readonly<Record<string, unknown>> }, wholeText: string | undefined, record: unknown): Item {
  if (ref.r === undefined) {
    return record as Item;
  }
  const text = event.type === "assistant_message" && Array.isArray(event.fields.toolCalls) && event.fields.toolCalls.length > 0
    ? argumentsOf(event.fields)
    : wholeText;
  return replaceText(ref.r, text ?? "") as Item;
}

/** The text of a typed event's fields: a message's content, a result's content. */
function textOf(fields: Readonly<Record<string, unknown>>): string | undefined {
  return typeof fields.content === "string" ? fields.content : undefined;
}

function argumentsOf(fields: Readonly<Record<string, unknown>>): string | undefined {
  const calls = fields.toolCalls as readonly Record<string, unknown>[] | undefined;
  const first = calls?.[0];
  return first === undefined ? undefined : String(first.argumentsJson ?? first.arguments ?? "");
}

/** A message item's one text: a string content, or the text of its only text part. */
function textPlace(item: Item): { text: string; residual: unknown } | undefined {
  const content = item.content;
  if (typeof content === "string") {
    return { text: content, residual: { ...item, content: TEXT } };
  }
  if (Array.isArray(content) && content.length === 1) {
    const part = content[0] as Record<string, unknown>;
    if ((part.type === "input_text" || part.type === "output_text") && typeof part.text === "string") {
      return { text: part.text, residual: { ...item, content: [{ ...part, text: TEXT }] } };
    }
  }
  return undefined;
}

/** What a result's event shows of an output that is not one text: its texts, and `[type]` for each other part. */
export function shownOf(output: unknown): string {
  const parts: unknown[] = Array.isArray(output) ? output : [output];
  const shown = parts.map((p) => {
    const part = p as { type?: unknown; text?: unknown } | null | undefined;
    return typeof p === "string" ? p : typeof part?.text === "string" ? part.text : `[${String(part?.type ?? typeof p)}]`;
  });
  return shown.join("\n").toWellFormed();
}

/** A function call result's text: a string output, or a text output's text. */
function outputPlace(item: Item): { text: string; residual: unknown } | undefined {
  const output = item.output as unknown;
  if (typeof output === "string") {
    return { text: output, residual: { ...item, output: TEXT } };
  }
  if (typeof output === "object" && output !== null && (output as Record<string, unknown>).type === "text") {
    const text = (output as Record<string, unknown>).text;
    if (typeof text === "string") {
      return { text, residual: { ...item, output: { ...(output as object), text: TEXT } } };
    }
  }
  return undefined;
}

function replaceText(node: unknown, text: string): unknown {
  if (typeof node === "object" && node !== null && !Array.isArray(node) && "$tether.text" in node) {
    return text;
  }
  if (Array.isArray(node)) {
    return node.map((n) => replaceText(n, text));
  }
  if (typeof node === "object" && node !== null) {
    return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, replaceText(v, text)]));
  }
  return node;
}

/** Whether every text in the item (its keys too) is well-formed UTF-16: no half of a surrogate pair on its own. */
function wellFormed(node: unknown): boolean {
  if (typeof node === "string") {
    return node.isWellFormed();
  }
  if (Array.isArray(node)) {
    return node.every(wellFormed);
  }
  if (typeof node === "object" && node !== null) {
    return Object.entries(node).every(([k, v]) => k.isWellFormed() && wellFormed(v));
  }
  return true;
}

function isJsonObject(text: string): boolean {
  try {
    const value = JSON.parse(text) as unknown;
    return typeof value === "object" && value !== null && !Array.isArray(value);
  } catch {
    return false;
  }
}

/** `text` as a record's key may hold it: no control characters, at most 512 characters, no half of a surrogate pair. */
function printable(text: string): string {
  // eslint-disable-next-line no-control-regex
  const clean = text.replace(/[\u0000-\u001f\u007f-\u009f]/g, "?").slice(0, 512).toWellFormed();
  return clean === "" ? "-" : clean;
}

/** The longest call id and tool name a tool call in Tether may have (the sequencer's MAX_CALL_ID, HarnessTool.MAX_NAME). */
const MAX_CALL_ID = 128;
const MAX_TOOL_NAME = 128;

/** Whether a call of this id and tool name can be a tool call in Tether's log: not blank, and not longer than Tether takes. */
function fitsToolCall(callId: string, name: string): boolean {
  return callId.trim() !== "" && name.trim() !== "" && callId.length <= MAX_CALL_ID && name.length <= MAX_TOOL_NAME;
}

/** JSON with every object's keys sorted: the same text for the same value. */
export function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    typeof v === "object" && v !== null && !Array.isArray(v)
      ? Object.fromEntries(Object.keys(v).sort().map((k) => [k, (v as Record<string, unknown>)[k]]))
      : v,
  );
}
