import { NewEvent, type JsonValue, type NewEvent as Event } from "@tether/client";
import { FRAMEWORK, MESSAGE, lcClass, type LcMessage } from "./records.js";
import type { ThreadLog } from "./thread-log.js";

/**
 * How LangChain messages become Tether events, and back. A message goes into the log once, as the typed event that
 * fits it — a human message as `user_message`, an AI message as `assistant_message` (its tool calls become Tether's
 * calls, its usage Tether's token count), a tool message as the `tool_result` of its call — so Tether's model
 * context, recovery report and secret scrubbing see the thread. What the typed event does not hold (ids, metadata,
 * additional kwargs) is kept beside it as the message's residual, so it comes back exactly as LangGraph wrote it.
 * A message no typed event fits — a system message, a tool message of a call Tether does not know or that its
 * harness-run runner has not answered — is stored whole, as a `framework_state` message record.
 *
 * @module
 */

/** How one message goes into the log. */
export type MessagePlan =
  /** As a new typed event, with the residual its references keep. */
  | { readonly kind: "typed"; readonly event: Event; readonly residual: LcMessage | CompactResidual }
  /** As an event already in the log: the `tool_result` a harness-run call's runner appended. */
  | { readonly kind: "existing"; readonly seq: number; readonly residual: LcMessage | CompactResidual }
  /** Whole, as a message record. */
  | { readonly kind: "record"; readonly event: Event };

/** Calls asked for earlier in the batch being planned: not in the log yet. */
export interface BatchCalls {
  /** callId → the seq its assistant message will get, and whether the batch answers it already. */
  readonly asked: Map<string, { readonly askSeq: number; readonly tool: string; answered: boolean }>;
}

/**
 * The plan for `message`, to be the event at seq `seq` when it is new: which typed event fits, given the session's log
 * (`log`) and the calls asked for earlier in the same batch (`batch`).
 */
export function planMessage(message: LcMessage, seq: number, log: ThreadLog, batch: BatchCalls): MessagePlan {
  const kwargs = message.kwargs;
  // half of a surrogate pair (a text cut inside an emoji) has no UTF-8 form, and Tether refuses it in any text: the
  // event's text has U+FFFD instead, and the residual keeps the message's own text (it differs from the event's)
  const text = textOf(kwargs.content)?.toWellFormed();
  const typed = (event: Event): MessagePlan => ({ kind: "typed", event, residual: residualOf(message, event.type, event.fields) });
  switch (lcClass(message).replace(/Chunk$/, "")) {
    case "HumanMessage":
      if (text !== undefined) {
        return typed(NewEvent.userMessage(text));
      }
      break;
    case "AIMessage": {
      const calls = aiToolCalls(kwargs.tool_calls);
      // content blocks (Anthropic's text and tool_use turns): the event holds their text; the residual keeps the blocks
      const aiText = text ?? blocksText(kwargs.content)?.toWellFormed();
      if (aiText !== undefined && calls !== undefined && calls.every((c) => log.call(c.callId) === undefined && !batch.asked.has(c.callId))) {
        for (const c of calls) {
          batch.asked.set(c.callId, { askSeq: seq, tool: c.tool, answered: false });
        }
        return typed(NewEvent.assistantMessage(aiText, calls, usageOf(kwargs.usage_metadata)));
      }
      break;
    }
    case "ToolMessage": {
      const callId = kwargs.tool_call_id;
      if (text === undefined || typeof callId !== "string") {
        break;
      }
      const logged = log.call(callId);
      if (logged?.resultSeq !== undefined) {
        // answered already, by its harness-run runner (or an earlier write of the same message): refer to that result
        const result = log.event(logged.resultSeq);
        return { kind: "existing", seq: logged.resultSeq, residual: residualOf(message, result.type, result.json) };
      }
      const pending = batch.asked.get(callId);
      const askSeq = logged?.askSeq ?? pending?.askSeq;
      const tool = logged?.tool ?? pending?.tool;
      if (askSeq !== undefined && tool !== undefined && log.runnerOf(tool) === "RECORDED" && pending?.answered !== true) {
        if (pending !== undefined) {
          pending.answered = true;
        }
        const status = kwargs.status === "error" ? "ERROR" : "OK";
        return typed(NewEvent.toolResult(callId, status, text, idempotencyKey(log.sessionId, askSeq, callId)));
      }
      break;
    }
    default:
  }
  return { kind: "record", event: messageRecord(message) };
}

/** The `framework_state` event that holds `message` whole. */
export function messageRecord(message: LcMessage): Event {
  const id = typeof message.kwargs.id === "string" && message.kwargs.id !== "" ? message.kwargs.id : "-";
  return NewEvent.of("framework_state", { framework: FRAMEWORK, kind: MESSAGE, key: printable(id), content: JSON.stringify(message) });
}

/**
 * What a reference to a typed event keeps of `message`: the message but what the event implies — its text (when
 * `kwargs.content` is the event's text), and, when the message is of the class the event's type stands for, the class
 * and the kwargs the event implies (empty `additional_kwargs` and `response_metadata`; an AI message's `tool_calls`,
 * `invalid_tool_calls` and `usage_metadata` as its `assistant_message` has them; a tool message's `tool_call_id` and
 * `status`). Such a residual is `{k: <the other kwargs>}`; any other is the message, less its text. `fields` are the
 * event's (as appended, or as the log holds it; offloaded text is not compared, so it is kept).
 */
export function residualOf(message: LcMessage, type: string, fields: Readonly<Record<string, unknown>>): LcMessage | CompactResidual {
  const text = type === "context_compacted" ? fields.summary : fields.content;
  const rest = typeof text === "string" && !offloaded(fields) && message.kwargs.content === text ? withoutContent(message) : message;
  const cls = DEFAULT_CLASS[type];
  if (cls === undefined || canonicalJson(message.id) !== canonicalJson(cls) || message.lc !== 1 || message.type !== "constructor") {
    return rest;
  }
  const implied = impliedKwargs(type, fields);
  const kept: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(rest.kwargs)) {
    if (!(key in implied) || canonicalJson(implied[key]) !== canonicalJson(value)) {
      kept[key] = value;
    }
  }
  const absent = Object.keys(implied).filter((key) => !(key in rest.kwargs));
  return absent.length === 0 ? { k: kept } : { k: kept, x: absent };
}

/** A residual that leaves out what its typed event implies (see {@link residualOf}); `x`: implied kwargs the message has not. */
export interface CompactResidual {
  readonly k: Readonly<Record<string, unknown>>;
  readonly x?: readonly string[];
}

/**
 * The serialized message a reference stands for: a message record's content (`record`), or the residual with what the
 * typed event implies put back — its text as `kwargs.content` when left out (`text`: the event's whole text, read from
 * its artifact when it was offloaded), and for a compact residual its class and implied kwargs.
 */
export function restore(residual: LcMessage | CompactResidual | undefined, text: string | undefined, record: unknown, type: string, fields: Readonly<Record<string, unknown>>): LcMessage {
  if (residual === undefined) {
    return record as LcMessage;
  }
  let whole = residual as LcMessage;
  if ("k" in residual && !("lc" in residual)) {
    const kwargs: Record<string, unknown> = { ...impliedKwargs(type, fields), ...residual.k };
    for (const key of residual.x ?? []) {
      delete kwargs[key];
    }
    whole = { lc: 1, type: "constructor", id: DEFAULT_CLASS[type]!, kwargs };
  }
  if ("content" in whole.kwargs) {
    return whole;
  }
  return { ...whole, kwargs: { ...whole.kwargs, content: text ?? "" } };
}

/** The class a typed event's message is by default. */
const DEFAULT_CLASS: Readonly<Record<string, readonly string[]>> = {
  user_message: ["langchain_core", "messages", "HumanMessage"],
  assistant_message: ["langchain_core", "messages", "AIMessage"],
  tool_result: ["langchain_core", "messages", "ToolMessage"],
};

/** The kwargs a typed event implies of its message (see {@link residualOf}). */
function impliedKwargs(type: string, fields: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const implied: Record<string, unknown> = { additional_kwargs: {}, response_metadata: {} };
  if (type === "assistant_message") {
    const calls = Array.isArray(fields.toolCalls) ? (fields.toolCalls as Record<string, unknown>[]) : [];
    implied.tool_calls = calls.map((c) => ({ id: c.callId, name: c.tool, args: JSON.parse(String(c.argumentsJson ?? "{}")) as unknown }));
    implied.invalid_tool_calls = [];
    const usage = (fields.usage ?? {}) as Record<string, unknown>;
    const input = Number(usage.inputTokens ?? 0);
    const output = Number(usage.outputTokens ?? 0);
    implied.usage_metadata = { input_tokens: input, output_tokens: output, total_tokens: input + output };
  } else if (type === "tool_result") {
    implied.tool_call_id = fields.callId;
    implied.status = fields.status === "ERROR" ? "error" : "success";
  }
  return implied;
}

function offloaded(fields: Readonly<Record<string, unknown>>): boolean {
  return ["contentRef", "artifact", "summaryRef"].some((f) => typeof fields[f] === "object" && fields[f] !== null);
}

/**
 * A serialized message as LangGraph's serializer reads it back: without the fields it wrote as undefined
 * (`{"lc": 2, "type": "undefined"}`, e.g. the `name: undefined` createReactAgent gives its AI messages, the `artifact`
 * of a tool message; in a list, null). A message that went through a checkpoint serializes so, and is the same message.
 */
export function asRead<T>(value: T): T {
  if (Array.isArray(value)) {
    return value.map((v: unknown) => (isUndefinedMark(v) ? null : asRead(v))) as T;
  }
  if (typeof value === "object" && value !== null) {
    return Object.fromEntries(Object.entries(value).filter(([, v]) => !isUndefinedMark(v)).map(([k, v]) => [k, asRead(v)])) as T;
  }
  return value;
}

function isUndefinedMark(value: unknown): boolean {
  return typeof value === "object" && value !== null && (value as { lc?: unknown }).lc === 2 && (value as { type?: unknown }).type === "undefined";
}

/** JSON with every object's keys sorted. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    typeof v === "object" && v !== null && !Array.isArray(v)
      ? Object.fromEntries(Object.keys(v).sort().map((k) => [k, (v as Record<string, unknown>)[k]]))
      : v,
  );
}

/**
 * Tether's idempotency key of a call in the log: `<sessionId>/<seq of the event that asked for it>/<callId>`
 * (IdempotencyKey in Java), what its `tool_result` carries. Not the key a harness-run tool is handed (that one adds the
 * session's start: `idempotencyKeyOf`, tools.ts).
 */
export function idempotencyKey(sessionId: string, askSeq: number, callId: string): string {
  return `${sessionId}/${askSeq}/${callId}`;
}

/** The text a typed event holds for `content`: a string as it is; anything else (content blocks) is not typed. */
function textOf(content: unknown): string | undefined {
  return typeof content === "string" ? content : undefined;
}

/** The text of a list of content blocks: its text blocks' text, joined; undefined for anything else. */
function blocksText(content: unknown): string | undefined {
  if (!Array.isArray(content) || !content.every((b) => typeof b === "object" && b !== null && typeof (b as { type?: unknown }).type === "string")) {
    return undefined;
  }
  return content
    .filter((b: { type: string; text?: unknown }) => b.type === "text" && typeof b.text === "string")
    .map((b: { text: string }) => b.text)
    .join("");
}

function withoutContent(message: LcMessage): LcMessage {
  const { content: _content, ...rest } = message.kwargs;
  void _content;
  return { ...message, kwargs: rest };
}

function aiToolCalls(value: unknown): { callId: string; tool: string; arguments: Record<string, JsonValue> }[] | undefined {
  if (value === undefined) {
    return [];
  }
  if (!Array.isArray(value)) {
    return undefined;
  }
  const calls = [];
  const seen = new Set<string>();
  for (const c of value as Record<string, unknown>[]) {
    if (typeof c.id !== "string" || c.id.trim() === "" || typeof c.name !== "string" || c.name.trim() === "" || seen.has(c.id)) {
      return undefined; // Tether needs a unique call id and a tool name: such a message is kept whole instead
    }
    if (typeof c.args !== "object" || c.args === null || Array.isArray(c.args)) {
      return undefined;
    }
    if (c.id.length > MAX_CALL_ID || c.name.length > MAX_TOOL_NAME || !c.id.isWellFormed() || !c.name.isWellFormed() || !wellFormed(c.args)) {
      return undefined; // more than Tether takes of a call (its id, its name), or half of a surrogate pair in it
    }
    seen.add(c.id);
    calls.push({ callId: c.id, tool: c.name, arguments: c.args as Record<string, JsonValue> });
  }
  return calls;
}

/** The longest call id and tool name a tool call in Tether may have (the sequencer's MAX_CALL_ID, HarnessTool.MAX_NAME). */
const MAX_CALL_ID = 128;
const MAX_TOOL_NAME = 128;

/** Whether every text in `node` (its keys too) is well-formed UTF-16: no half of a surrogate pair on its own. */
function wellFormed(node: unknown): boolean {
  if (typeof node === "string") {
    return node.isWellFormed();
  }
  if (Array.isArray(node)) {
    return node.every(wellFormed);
  }
  return typeof node !== "object" || node === null || Object.entries(node).every(([k, v]) => k.isWellFormed() && wellFormed(v));
}

function usageOf(value: unknown): { inputTokens: number; outputTokens: number } {
  const u = (typeof value === "object" && value !== null ? value : {}) as Record<string, unknown>;
  const count = (n: unknown) => (typeof n === "number" && Number.isSafeInteger(n) && n >= 0 ? n : 0);
  return { inputTokens: count(u.input_tokens), outputTokens: count(u.output_tokens) };
}

/** `text` as a record's key may hold it: no control characters (C0, DEL, C1), at most 512 characters. */
function printable(text: string): string {
  // eslint-disable-next-line no-control-regex
  const clean = text.replace(/[\u0000-\u001f\u007f-\u009f]/g, "?").slice(0, 512).toWellFormed();
  return clean === "" ? "-" : clean;
}
