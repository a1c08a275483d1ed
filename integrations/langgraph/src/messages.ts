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
  | { readonly kind: "typed"; readonly event: Event; readonly residual: LcMessage }
  /** As an event already in the log: the `tool_result` a harness-run call's runner appended. */
  | { readonly kind: "existing"; readonly seq: number; readonly residual: LcMessage }
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
  const text = textOf(kwargs.content);
  const residual = text === undefined ? message : withoutContent(message);
  switch (lcClass(message).replace(/Chunk$/, "")) {
    case "HumanMessage":
      if (text !== undefined) {
        return { kind: "typed", event: NewEvent.userMessage(text), residual };
      }
      break;
    case "AIMessage": {
      const calls = aiToolCalls(kwargs.tool_calls);
      if (text !== undefined && calls !== undefined && calls.every((c) => log.call(c.callId) === undefined && !batch.asked.has(c.callId))) {
        for (const c of calls) {
          batch.asked.set(c.callId, { askSeq: seq, tool: c.tool, answered: false });
        }
        return { kind: "typed", event: NewEvent.assistantMessage(text, calls, usageOf(kwargs.usage_metadata)), residual };
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
        return { kind: "existing", seq: logged.resultSeq, residual: result.json.content === text ? withoutContent(message) : message };
      }
      const pending = batch.asked.get(callId);
      const askSeq = logged?.askSeq ?? pending?.askSeq;
      const tool = logged?.tool ?? pending?.tool;
      if (askSeq !== undefined && tool !== undefined && log.runnerOf(tool) === "RECORDED" && pending?.answered !== true) {
        if (pending !== undefined) {
          pending.answered = true;
        }
        const status = kwargs.status === "error" ? "ERROR" : "OK";
        return { kind: "typed", event: NewEvent.toolResult(callId, status, text, idempotencyKey(log.sessionId, askSeq, callId)), residual };
      }
      break;
    }
    default:
  }
  return { kind: "record", event: messageRecord(message) };
}

/** The `framework_state` event that holds `message` whole. */
export function messageRecord(message: LcMessage): Event {
  const id = typeof message.kwargs.id === "string" && message.kwargs.id !== "" ? message.kwargs.id.slice(0, 512) : "-";
  return NewEvent.of("framework_state", { framework: FRAMEWORK, kind: MESSAGE, key: printable(id), content: JSON.stringify(message) });
}

/**
 * The serialized message a reference stands for: a message record's content, or the residual with the typed event's
 * text put back as `kwargs.content` when it was left out. `text` is the event's whole text (read from its artifact
 * when it was offloaded).
 */
export function restore(residual: LcMessage | undefined, text: string | undefined, record: unknown): LcMessage {
  if (residual === undefined) {
    return record as LcMessage;
  }
  if ("content" in residual.kwargs) {
    return residual;
  }
  return { ...residual, kwargs: { ...residual.kwargs, content: text ?? "" } };
}

/** What a reference to a typed event whose text is `text` keeps of `message`: all of it but its content when that is the text. */
export function residualOf(message: LcMessage, text: unknown): LcMessage {
  return typeof text === "string" && message.kwargs.content === text ? withoutContent(message) : message;
}

/** Tether's idempotency key of a call: `<sessionId>/<seq of the event that asked for it>/<callId>` (IdempotencyKey in Java). */
export function idempotencyKey(sessionId: string, askSeq: number, callId: string): string {
  return `${sessionId}/${askSeq}/${callId}`;
}

/** The text a typed event holds for `content`: a string as it is; anything else (content blocks) is not typed. */
function textOf(content: unknown): string | undefined {
  return typeof content === "string" ? content : undefined;
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
    seen.add(c.id);
    calls.push({ callId: c.id, tool: c.name, arguments: c.args as Record<string, JsonValue> });
  }
  return calls;
}

function usageOf(value: unknown): { inputTokens: number; outputTokens: number } {
  const u = (typeof value === "object" && value !== null ? value : {}) as Record<string, unknown>;
  const count = (n: unknown) => (typeof n === "number" && Number.isSafeInteger(n) && n >= 0 ? n : 0);
  return { inputTokens: count(u.input_tokens), outputTokens: count(u.output_tokens) };
}

/** `text` without control characters (a record's key may hold none). */
function printable(text: string): string {
  // eslint-disable-next-line no-control-regex
  const clean = text.replace(/[\u0000-\u001f\u007f]/g, "?");
  return clean === "" ? "-" : clean;
}
