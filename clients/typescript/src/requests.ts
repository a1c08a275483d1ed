import { eventIdOf, requireId, requireText } from "./ids.js";
import { jsonText, type JsonValue } from "./json-text.js";
import type { components as SessionApi } from "./generated/session-service.js";
import type { TokenUsage } from "./models.js";

/**
 * What the SDK's writes and reads are asked with: events to append and the batches that carry them, a new session,
 * a claim, which state of a projection to read, approval filters and decisions. All plain frozen data, built by the
 * functions below (which check what the services would refuse, before a call).
 *
 * @module
 */

/**
 * An event to append: its wire type (e.g. `user_message`) and payload fields as docs/ARCHITECTURE.md §4 names them.
 * Its eventId is derived from its batch's step ({@link eventIdOf}) unless `eventId` fixes one. The envelope (seq,
 * actor, time, harness version) is the sequencer's to set.
 */
export interface NewEvent {
  readonly type: string;
  readonly fields: Readonly<Record<string, JsonValue>>;
  /** A fixed eventId instead of the one the batch's step derives. */
  readonly eventId?: string | undefined;
}

/** A tool call an assistant message asks for. */
export interface ToolCall {
  /** Unique in the session (the model's, e.g. `call_abc`). */
  readonly callId: string;
  /** The tool's name, e.g. `read_file`. */
  readonly tool: string;
  /** Its arguments: a JSON object's text (e.g. `{"path":"src/Foo.java"}`), or an object the SDK writes as JSON. Default `{}`. */
  readonly arguments?: string | Readonly<Record<string, JsonValue>>;
}

/** How a tool call ended. UNKNOWN: the effect may or may not have happened. */
export type ToolStatus = "OK" | "ERROR" | "CANCELLED" | "UNKNOWN";

/** The session-service's request schemas (docs/openapi/session-service.json), as openapi-typescript generated them. */
type SessionDoc = SessionApi["schemas"];

/** The payload fields the document gives a client's event of type `T` (without its eventId and type). */
type Payload<T extends SessionDoc["NewEvent"]["type"]> = Omit<Extract<SessionDoc["NewEvent"], { type: T }>, "eventId" | "type">;

/** An event whose payload `tsc` checks against the document: every required field, no field it does not have. */
function documented<T extends SessionDoc["NewEvent"]["type"]>(type: T, fields: Payload<T>): NewEvent {
  return NewEvent.of(type, fields as Readonly<Record<string, JsonValue>>);
}

/** `value` with every array and object in it frozen: an event planned and folded is the event sent, also on a resend. */
function deepFrozen<T>(value: T): T {
  if (typeof value === "object" && value !== null && !Object.isFrozen(value)) {
    Object.values(value).forEach(deepFrozen);
    Object.freeze(value);
  }
  return value;
}

/** Builders of the event types clients write. */
export const NewEvent = {
  /** An event of any type; its payload fields as JSON values (`undefined` ones left out). */
  of(type: string, fields: Readonly<Record<string, JsonValue | undefined>> = {}): NewEvent {
    requireText(type, "type");
    if ("type" in fields || "eventId" in fields) {
      throw new TypeError("type and eventId are not payload fields");
    }
    const copy: Record<string, JsonValue> = {};
    for (const [key, value] of Object.entries(fields)) {
      if (value !== undefined) {
        jsonText(value, key); // refused here, naming the field, rather than sent as something else (a Date as {})
        copy[key] = deepFrozen(structuredClone(value) as JsonValue);
      }
    }
    return Object.freeze({ type, fields: Object.freeze(copy) });
  },

  /** `user_message`: what the user said. */
  userMessage(content: string): NewEvent {
    return documented("user_message", { content: text(content, "content") });
  },

  /** `assistant_message`: a model turn, the tool calls it asks for, and the tokens it used. */
  assistantMessage(content: string, toolCalls: readonly ToolCall[] = [], usage: TokenUsage = { inputTokens: 0, outputTokens: 0 }): NewEvent {
    return documented("assistant_message", {
      content: text(content, "content"),
      toolCalls: toolCalls.map((c, i) => ({
        callId: requireText(c.callId, "callId"),
        tool: requireText(c.tool, "tool"),
        argumentsJson: c.arguments === undefined ? "{}" : typeof c.arguments === "string" ? c.arguments : jsonText(c.arguments, `toolCalls[${i}].arguments`),
      })),
      usage: { inputTokens: nonNegative(usage.inputTokens, "usage.inputTokens"), outputTokens: nonNegative(usage.outputTokens, "usage.outputTokens") },
    });
  },

  /**
   * `tool_result`: how a call the harness ran itself ended. Calls the executor runs get theirs from the executor. A
   * harness-run call's result carries the attempt's `idempotencyKey` (the sequencer refuses another);
   * `HarnessToolRunner` writes these for you.
   */
  toolResult(callId: string, status: ToolStatus, content?: string, idempotencyKey?: string): NewEvent {
    return documented("tool_result", {
      callId: requireText(callId, "callId"),
      status,
      ...(content === undefined ? {} : { content }),
      ...(idempotencyKey === undefined ? {} : { idempotencyKey: requireText(idempotencyKey, "idempotencyKey") }),
    });
  },

  /**
   * `tool_call_started`: attempt `attempt` of harness-run call `callId` starts now, under `idempotencyKey` (the call's
   * key in the log, `<sessionId>/<seq>/<callId>`), by the worker of `epoch` (docs/ARCHITECTURE.md §6, "Harness-run
   * tools"). `externalKey` is the key the harness hands the tool for this attempt, `<idempotencyKey>~<epoch ms of the
   * session's first event's occurredAt>`, by which a reconciliation looks the effect up later; the session-service
   * refuses any other (`events[i].externalKey`); left out, the start records none (as SDKs before it did).
   * `HarnessToolRunner` writes these for you.
   */
  toolCallStarted(callId: string, idempotencyKey: string, epoch: number, attempt: number, externalKey?: string): NewEvent {
    return documented("tool_call_started", {
      callId: requireText(callId, "callId"),
      idempotencyKey: requireText(idempotencyKey, "idempotencyKey"),
      epoch: nonNegative(epoch, "epoch"),
      attempt: nonNegative(attempt, "attempt"),
      ...(externalKey === undefined ? {} : { externalKey: requireText(externalKey, "externalKey") }),
    });
  },

  /**
   * `tool_outcome_resolved`: how a call whose outcome was unknown is settled, `MARK_DONE`, `RETRY` or `ABANDON`, in the
   * name of `approver` (the authenticated caller). A harness writes only RETRY, for its own started call its
   * reconciliation hook proved had no effect.
   */
  toolOutcomeResolved(callId: string, resolution: "MARK_DONE" | "RETRY" | "ABANDON", approver: string, reason: string): NewEvent {
    requireText(resolution, "resolution");
    return documented("tool_outcome_resolved", {
      callId: requireText(callId, "callId"),
      resolution,
      approver: requireText(approver, "approver"),
      reason: text(reason, "reason"),
    });
  },

  /** `turn_interrupted`: the model turn was cut off; its partial text is kept and marked in the context. */
  turnInterrupted(partialText: string, reason: string): NewEvent {
    return documented("turn_interrupted", { partialText: text(partialText, "partialText"), reason: text(reason, "reason") });
  },

  /** `context_compacted`: the events through `throughSeq` are summarized by `summary`, built from the original events `summarySourceSeqs`. */
  contextCompacted(throughSeq: number, summary: string, summarySourceSeqs: readonly number[]): NewEvent {
    return documented("context_compacted", {
      throughSeq: positive(throughSeq, "throughSeq"),
      summary: text(summary, "summary"),
      summarySourceSeqs: summarySourceSeqs.map((seq, i) => positive(seq, `summarySourceSeqs[${i}]`)),
    });
  },

  /** `plan_updated`: the agent's plan as it stands now. */
  planUpdated(items: readonly { readonly text: string; readonly status: "PENDING" | "IN_PROGRESS" | "DONE" | "CANCELLED" }[]): NewEvent {
    return documented("plan_updated", { items: items.map((i) => ({ text: requireText(i.text, "text"), status: i.status })) });
  },

  /** `step_completed`: step `step` is done; `verified` when the agent checked it. */
  stepCompleted(step: number, note: string, verified: boolean): NewEvent {
    return documented("step_completed", { step: positive(step, "step"), note: text(note, "note"), verified });
  },

  /**
   * `framework_state`: state an agent framework keeps with its session that Tether stores, offloads, scrubs and replays
   * but never interprets (a LangGraph checkpoint's channel versions and values, its pending writes), e.g.
   * `frameworkState("langgraph", "checkpoint", checkpointId, checkpoint)`. The model context and the checkpoint ignore
   * it; read it back with the session's events (large content comes back as an `artifact` to fetch).
   *
   * `framework` and `kind` (e.g. `checkpoint`, `writes`) are 1-64 characters of `[a-z0-9._-]` starting with a letter or
   * digit; `key` (what it is the state of, e.g. a checkpoint id) 1-512 characters without a control character.
   * `content` is JSON text that must parse as one JSON value, or any other JSON value, which the SDK writes as JSON text
   * (a JSON string value is passed as its text: `'"done"'`).
   */
  frameworkState(framework: string, kind: string, key: string, content: string | Exclude<JsonValue, string>): NewEvent {
    const fields = { framework: frameworkName(framework, "framework"), kind: frameworkName(kind, "kind"), key: frameworkKey(key) };
    const json = typeof content === "string" ? content : jsonText(content, "content");
    try {
      JSON.parse(json);
    } catch {
      throw new TypeError("content must be JSON text that parses as one JSON value");
    }
    return documented("framework_state", { ...fields, content: json });
  },

  /** `session_closed`: the session is over; nothing may be appended after it. */
  sessionClosed(outcome: string): NewEvent {
    return documented("session_closed", { outcome: text(outcome, "outcome") });
  },

  /** The same event with this eventId instead of the one its batch's step would give it. */
  withEventId(event: NewEvent, eventId: string): NewEvent {
    return Object.freeze({ ...event, eventId: requireText(eventId, "eventId") });
  },
} as const;

/**
 * Events appended together, all or nothing, in order: typically everything one step of the agent produced. Each
 * event's id is `eventIdOf(sessionId, step, index)` unless the event fixes its own, so sending the batch again — after
 * a timeout, after a crash and restart — appends nothing twice and answers the original seqs.
 *
 * A step key must name the work, not the attempt, and must not be reused for other events in the same session: a batch
 * whose ids are all in the log already is answered with their seqs, whatever its events say.
 */
export interface AppendBatch {
  /** The step's key, e.g. `turn-3`. */
  readonly step: string;
  readonly events: readonly NewEvent[];
  /** Appended only if the session's last seq is this (else `conflict`). */
  readonly expectedSeq?: number | undefined;
  /** Appended only if the session's epoch is still this (else `fenced`). */
  readonly epoch?: number | undefined;
  /**
   * Appended only if the session is still the one that started then (a claim's `sessionStartedAt`; else `not_found`):
   * not one made again under its id after an erasure, whose epochs and seqs repeat the erased one's.
   */
  readonly sessionStartedAt?: Date | undefined;
}

/** The eventIds the batch's events get in `sessionId`, in order. */
export function eventIdsOf(sessionId: string, batch: AppendBatch): string[] {
  requireText(batch.step, "step");
  if (batch.events.length === 0) {
    throw new TypeError("a batch needs at least one event");
  }
  return batch.events.map((e, i) => e.eventId ?? eventIdOf(sessionId, batch.step, i));
}

/** Which tools a session may use. */
export type ToolMode = "READ_ONLY" | "WRITE";

/**
 * A tool the session's harness runs itself, declared when the session starts (`NewSession.harnessTools`): Tether gives
 * its calls the same approval, fencing, idempotency key and recovery as the tool-executor's, but the harness runs them
 * and reports their results (docs/ARCHITECTURE.md §6, "Harness-run tools"). `HarnessToolRunner` runs them. Build one
 * with {@link HarnessTool.mutating}, {@link HarnessTool.readOnly} or {@link HarnessTool.recorded}.
 *
 * The name `*` ({@link HARNESS_TOOL_WILDCARD}) declares every tool the session does not declare by its name, built-in
 * tools included (`HarnessTool.recorded("*", false)`: every other call is recorded-only); a declaration by name wins over
 * it. A session declares it at most once, and a READ_ONLY session only as not mutating. A `HarnessToolRunner` given a
 * function for `*` runs with it every call it has no function of its own for.
 */
export interface HarnessTool {
  /** The tool's name as its calls name it, or `*`; not blank, at most 128 characters. */
  readonly name: string;
  /** It changes something outside the session (gated by default: an approver decides each call). */
  readonly mutating: boolean;
  /** The harness has a hook that finds out, by the idempotency key, whether an attempt took effect. */
  readonly canReconcile: boolean;
  /** The harness reports only its results, without the start step; exclusive with `canReconcile`. */
  readonly recordedOnly: boolean;
}

/** The longest harness tool name the session-service accepts. */
export const MAX_HARNESS_TOOL_NAME = 128;

/** The harness tool name that declares every tool not declared by its own name. */
export const HARNESS_TOOL_WILDCARD = "*";

export const HarnessTool = {
  /** A tool declared field by field (checked as the session-service would). */
  of(tool: HarnessTool): HarnessTool {
    requireText(tool.name, "name");
    if (tool.name.length > MAX_HARNESS_TOOL_NAME) {
      throw new RangeError(`a harness tool's name is at most ${MAX_HARNESS_TOOL_NAME} characters`);
    }
    if (tool.recordedOnly && tool.canReconcile) {
      throw new TypeError(`harness tool '${tool.name}': a recorded-only tool has no attempt to reconcile`);
    }
    return Object.freeze({ name: tool.name, mutating: tool.mutating === true, canReconcile: tool.canReconcile === true, recordedOnly: tool.recordedOnly === true });
  },
  /** A tool that changes something outside the session; `reconcilable`: with a reconciliation hook (`ToolReconciler`). */
  mutating(name: string, options: { readonly reconcilable?: boolean } = {}): HarnessTool {
    return HarnessTool.of({ name, mutating: true, canReconcile: options.reconcilable === true, recordedOnly: false });
  },
  /** A tool that only reads; `reconcilable`: with a reconciliation hook. */
  readOnly(name: string, options: { readonly reconcilable?: boolean } = {}): HarnessTool {
    return HarnessTool.of({ name, mutating: false, canReconcile: options.reconcilable === true, recordedOnly: false });
  },
  /** A recorded-only tool: its results are reported after the fact, with no start step and no exactly-once guarantee. */
  recorded(name: string, mutating: boolean): HarnessTool {
    return HarnessTool.of({ name, mutating, canReconcile: false, recordedOnly: true });
  },
} as const;

/**
 * What a new session starts with (`session_started`): the objective (the first user message, pinned verbatim), its
 * tool mode and, unless its harness version names one, its model. Without a `sessionId` the SDK picks a random one
 * before the first attempt, so a retried create never makes two sessions; without a harness version the
 * session-service assigns one by the versions' weights.
 */
export interface NewSession {
  readonly objective: string;
  readonly toolMode: ToolMode;
  /** The model; undefined: the harness version's (refused, field `modelId`, if it names none). */
  readonly modelId?: string | undefined;
  /** 1-128 letters, digits, `. _ -`, starting with a letter or digit. */
  readonly sessionId?: string | undefined;
  readonly systemPrompt?: string | undefined;
  /** Rules the agent must keep; the context shows them among the authoritative facts. */
  readonly constraints?: readonly string[] | undefined;
  /** Pins the session to this harness version instead of letting the weights choose. */
  readonly harnessVersion?: string | undefined;
  /** The most tokens the session's model turns may use in all. */
  readonly tokenBudget?: number | undefined;
  /**
   * The tools the session's harness runs itself (e.g. `runner.declarations()` of a `HarnessToolRunner`); fixed for the
   * session's life. Names must be unique and not also a tool-executor tool (else `rejected`, field `harnessTools`).
   * Left out of the request when empty, so such a request (and its derived eventId) is as before.
   */
  readonly harnessTools?: readonly HarnessTool[] | undefined;
}

/**
 * What a subagent starts with: a session of its own under a parent (`session_started` naming its `parentSessionId`),
 * pinned to the parent's model and harness version. Its tool mode may be no wider than the parent's; when the parent
 * has a token budget, the subagent needs one, no larger than what the parent has left (else `rejected`, field
 * `tokenBudget`). When it closes, only its outcome enters the parent's log (`subagent_result`). Without a `sessionId`
 * the SDK picks a random one before the first attempt, so a retried start never makes two subagents.
 */
export interface NewSubagent {
  readonly objective: string;
  /** No wider than the parent's (else `rejected`, field `toolMode`). */
  readonly toolMode: ToolMode;
  /** 1-128 letters, digits, `. _ -`, starting with a letter or digit. */
  readonly sessionId?: string | undefined;
  readonly systemPrompt?: string | undefined;
  /** Rules the subagent must keep; its context shows them among the authoritative facts. */
  readonly constraints?: readonly string[] | undefined;
  /** The most tokens its model turns may use: required, and no more than the parent has left, when the parent has a budget. */
  readonly tokenBudget?: number | undefined;
  /** The tools the subagent's harness runs itself, as {@link NewSession.harnessTools}; left out of the request when empty. */
  readonly harnessTools?: readonly HarnessTool[] | undefined;
}

/** A worker's claim of a session. */
export interface ClaimRequest {
  readonly workerId: string;
  readonly harnessVersion: string;
  /** Part of a rollout: a re-claim is recorded as resumed for DEPLOY, not CRASH. */
  readonly rollout?: boolean | undefined;
  /**
   * Fixed to make the claim safe to repeat across a restart of the worker too; without one the SDK draws a random one
   * per `claim` call (its own retries reuse it).
   */
  readonly requestId?: string | undefined;
}

/** Which state of a projection to read. */
export type ReadAt =
  | { readonly kind: "latest" }
  | { readonly kind: "seq"; readonly seq: number }
  | { readonly kind: "atLeast"; readonly seq: number };

export const ReadAt = {
  /** What the projector has now. */
  latest(): ReadAt {
    return LATEST;
  },
  /** As it was right after `seq` (from 1): time travel. */
  seq(seq: number): ReadAt {
    return Object.freeze({ kind: "seq", seq: positive(seq, "seq") });
  },
  /** The latest, once the projection has folded `seq` (e.g. the `lastSeq` an append returned): read your own writes. */
  atLeast(seq: number): ReadAt {
    return Object.freeze({ kind: "atLeast", seq: positive(seq, "seq") });
  },
} as const;

const LATEST: ReadAt = Object.freeze({ kind: "latest" });

/** Which model context to read. */
export interface ContextQuery {
  readonly format: "openai" | "anthropic";
  /** Which state of the session; default the latest. */
  readonly at?: ReadAt | undefined;
  /** A token limit: the oldest exchanges after the compaction point are left out to fit. */
  readonly maxTokens?: number | undefined;
}

/** An approval item's status. */
export type ApprovalStatus = "PENDING" | "GRANTED" | "DENIED" | "EXPIRED" | "CANCELLED" | "MARKED_DONE" | "RETRIED" | "ABANDONED";

/** Which approval items to list: `{ status: "PENDING" }` (the default; oldest first), `{ status: "ALL" }`, narrowed by `kind`. */
export interface ApprovalFilter {
  readonly status?: ApprovalStatus | "ALL" | undefined;
  readonly kind?: "APPROVAL" | "UNKNOWN_OUTCOME" | undefined;
}

/** A decision's wire name. */
export type DecisionKind = "GRANT_ONCE" | "GRANT_SESSION" | "DENY" | "MARK_DONE" | "RETRY" | "ABANDON";

/** An approver's decision on an item. */
export interface ApprovalDecision {
  readonly decision: DecisionKind;
  /** For GRANT_SESSION: the tool the grant covers; undefined for the decided call's tool. */
  readonly tool?: string | undefined;
  /** For GRANT_SESSION: the paths it covers (e.g. `src/**`); undefined for any. */
  readonly pathGlob?: string | undefined;
  /** Why; possibly empty (except for DENY). */
  readonly reason: string;
}

export const ApprovalDecision = {
  /** Run this one call. */
  grantOnce(reason = ""): ApprovalDecision {
    return Object.freeze({ decision: "GRANT_ONCE", reason });
  },
  /** Run this call, and later calls of the same tool in this session without asking; narrowed to `tool` on paths matching `pathGlob` when given. */
  grantSession(reason = "", scope?: { readonly tool: string; readonly pathGlob: string }): ApprovalDecision {
    return Object.freeze(
      scope === undefined
        ? { decision: "GRANT_SESSION", reason }
        : { decision: "GRANT_SESSION", tool: requireText(scope.tool, "tool"), pathGlob: requireText(scope.pathGlob, "pathGlob"), reason },
    );
  },
  /** Refuse the call; the reason is required and is what the model is told. */
  deny(reason: string): ApprovalDecision {
    return Object.freeze({ decision: "DENY", reason: requireText(reason, "reason") });
  },
  /** The call whose outcome was unknown did take effect: count it as succeeded. */
  markDone(reason = ""): ApprovalDecision {
    return Object.freeze({ decision: "MARK_DONE", reason });
  },
  /** The call whose outcome was unknown did not take effect: run it once more. */
  retry(reason = ""): ApprovalDecision {
    return Object.freeze({ decision: "RETRY", reason });
  },
  /** Give the call whose outcome was unknown up: count it as cancelled. */
  abandon(reason = ""): ApprovalDecision {
    return Object.freeze({ decision: "ABANDON", reason });
  },
} as const;

// --- request bodies, in the Java SDK's field order ------------------------------------------------------------------

/** The body of `POST /v1/sessions` without its eventId, validated; the key order is the Java SDK's (the eventId is derived from its text). */
export function createBody(session: NewSession, sessionId: string): Record<string, JsonValue> {
  requireText(session.objective, "objective");
  toolMode(session.toolMode);
  tokenBudget(session.tokenBudget);
  const body = {
    sessionId,
    objective: session.objective,
    ...(session.systemPrompt === undefined ? {} : { systemPrompt: text(session.systemPrompt, "systemPrompt") }),
    ...(session.modelId === undefined ? {} : { modelId: requireText(session.modelId, "modelId") }),
    toolMode: session.toolMode,
    constraints: constraints(session.constraints),
    ...(session.harnessVersion === undefined ? {} : { harnessVersion: requireId(session.harnessVersion, "harnessVersion") }),
    ...(session.tokenBudget === undefined ? {} : { tokenBudget: session.tokenBudget }),
    ...harnessTools(session.harnessTools),
  } satisfies SessionDoc["CreateSession"];
  return body;
}

/**
 * The body of `POST /v1/sessions/{parentId}/subagents` without its eventId, validated; the key order is the Java SDK's
 * `startSubagent` (the eventId is derived from its text).
 */
export function subagentBody(subagent: NewSubagent, sessionId: string): Record<string, JsonValue> {
  requireText(subagent.objective, "objective");
  toolMode(subagent.toolMode);
  tokenBudget(subagent.tokenBudget);
  const body = {
    sessionId,
    objective: subagent.objective,
    ...(subagent.systemPrompt === undefined ? {} : { systemPrompt: text(subagent.systemPrompt, "systemPrompt") }),
    toolMode: subagent.toolMode,
    constraints: constraints(subagent.constraints),
    ...(subagent.tokenBudget === undefined ? {} : { tokenBudget: subagent.tokenBudget }),
    ...harnessTools(subagent.harnessTools),
  } satisfies SessionDoc["CreateSubagent"];
  return body;
}

function toolMode(mode: ToolMode): void {
  if (mode !== "READ_ONLY" && mode !== "WRITE") {
    throw new TypeError(`toolMode must be READ_ONLY or WRITE, not ${String(mode)}`);
  }
}

function tokenBudget(budget: number | undefined): void {
  if (budget !== undefined && (!Number.isSafeInteger(budget) || budget < 1)) {
    throw new RangeError(`tokenBudget must be an integer of at least 1, not ${budget}`);
  }
}

function constraints(list: readonly string[] | undefined): string[] {
  return array(list, "constraints").map((c, i) => text(c, `constraints[${i}]`));
}

/** A list a JavaScript caller may have given as something else (a single string): refused, naming the field. */
function array<T>(list: readonly T[] | undefined, field: string): readonly T[] {
  if (list !== undefined && !Array.isArray(list)) {
    throw new TypeError(`${field} must be an array, not ${list === null ? "null" : typeof list}`);
  }
  return list ?? [];
}

/** `harnessTools`, each checked, or nothing when there are none (so such a request, and its derived eventId, is as before them). */
function harnessTools(tools: readonly HarnessTool[] | undefined): { harnessTools?: SessionDoc["HarnessToolInput"][] } {
  const list = array(tools, "harnessTools");
  if (list.length === 0) {
    return {};
  }
  return {
    harnessTools: list.map((t) => {
      const tool = HarnessTool.of(t);
      return { name: tool.name, mutating: tool.mutating, canReconcile: tool.canReconcile, recordedOnly: tool.recordedOnly };
    }),
  };
}

/** The body of `POST /v1/sessions/{id}/events`. */
export function appendBody(batch: AppendBatch, eventIds: readonly string[]): Record<string, JsonValue> {
  const body: Record<string, JsonValue> = {
    events: batch.events.map((e, i) => {
      requireText(e.type, "type");
      // a NewEvent built by hand (not by NewEvent.of) may have them among its fields: they would replace its own
      if ("type" in e.fields || "eventId" in e.fields) {
        throw new TypeError(`events[${i}]: type and eventId are not payload fields`);
      }
      return { eventId: requireText(eventIds[i]!, "eventId"), type: e.type, ...e.fields };
    }),
  };
  if (batch.expectedSeq !== undefined) {
    body.expectedSeq = nonNegative(batch.expectedSeq, "expectedSeq");
  }
  if (batch.epoch !== undefined) {
    body.epoch = nonNegative(batch.epoch, "epoch");
  }
  if (batch.sessionStartedAt !== undefined) {
    body.sessionStartedAt = instant(batch.sessionStartedAt, "sessionStartedAt");
  }
  return body;
}

function text(value: string, name: string): string {
  if (typeof value !== "string") {
    throw new TypeError(`${name} must be a string`);
  }
  return value;
}

/** A `framework_state`'s `framework` or `kind`, as the session-service checks it. */
function frameworkName(value: string, name: string): string {
  if (typeof value !== "string" || !/^[a-z0-9][a-z0-9._-]{0,63}$/.test(value)) {
    throw new TypeError(`${name} must be 1-64 characters of lower-case letters, digits, '.', '_' and '-', starting with a letter or digit`);
  }
  return value;
}

/** A `framework_state`'s `key`: 1-512 characters (UTF-16 units, as Java counts them), no control character. */
function frameworkKey(key: string): string {
  if (typeof key !== "string" || key.length < 1 || key.length > 512) {
    throw new TypeError("key must be 1-512 characters");
  }
  if (/[\u0000-\u001f\u007f-\u009f]/.test(key)) {
    throw new TypeError("key must not contain control characters");
  }
  return key;
}

/** A valid Date as the API's ISO-8601 text. */
function instant(value: Date, name: string): string {
  if (!(value instanceof Date) || Number.isNaN(value.getTime())) {
    throw new TypeError(`${name} must be a valid Date, not ${String(value)}`);
  }
  return value.toISOString();
}

/** A seq or a step: a whole number from 1 (a fraction, NaN or 0 is refused here, naming it, as the service would). */
function positive(value: number, name: string): number {
  if (!Number.isSafeInteger(value) || value < 1) {
    throw new RangeError(`${name} starts at 1 and is whole, not ${value}`);
  }
  return value;
}

function nonNegative(value: number, name: string): number {
  if (!Number.isSafeInteger(value) || value < 0) {
    throw new RangeError(`${name} must be an integer, not negative: ${value}`);
  }
  return value;
}
