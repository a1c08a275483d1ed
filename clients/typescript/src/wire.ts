import { MalformedAnswerError, type ApiError } from "./errors.js";
import type {
  Approval,
  CallCursor,
  CallRecord,
  Checkpoint,
  EventPage,
  ModelContext,
  RecoveryCall,
  RecoveryReport,
  SessionEvent,
  SessionInfo,
} from "./models.js";
import type { components as ApprovalApi } from "./generated/approval-service.js";
import type { components as ProjectorApi } from "./generated/projector-service.js";
import type { components as SessionApi } from "./generated/session-service.js";
import type { Appended, Claimed, Created, Erased, Forked, SubagentStarted } from "./results.js";

/**
 * The services' JSON answers read into the SDK's types, one function per answer — the Java SDK's `Wire`. Lenient where
 * that keeps an older client working with a newer service (unknown fields are ignored, states stay strings); strict
 * only about what the answer cannot do without (a {@link MalformedAnswerError} then). Not part of the API.
 *
 * @module
 */

type Obj = Readonly<Record<string, unknown>>;

/** The answers' schemas in the services' OpenAPI documents (docs/openapi), as openapi-typescript generated them. */
type Session = SessionApi["schemas"];
type Projector = ProjectorApi["schemas"];
type Approvals = ApprovalApi["schemas"];

declare const documented: unique symbol;

/**
 * An answer's JSON object that the service's OpenAPI document describes as `S`. The accessors below take only a field
 * the document gives `S`, of a type the accessor reads ({@link FieldOf}), so reading a field the document does not
 * have, or has with another type, fails `tsc`: the SDK's reading cannot drift from the contract.
 */
type Doc<S> = Obj & { readonly [documented]?: S };

/** The fields of `S` whose values, null aside, are `V`. */
export type FieldOf<S, V> = { [K in keyof S]-?: [NonNullable<S[K]>] extends [V] ? K : never }[keyof S] & string;

/** The fields every member of a union of schemas has (the envelope of an event), as one schema. */
type Common<S> = Pick<S, keyof S>;

type ElementOf<T> = T extends readonly (infer E)[] ? E : never;

/** `text` as JSON; a {@link MalformedAnswerError} if it is not. */
export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new MalformedAnswerError(`the answer is not JSON: ${(e as Error).message}`);
  }
}

/** `{"error", "message", ...}` as an {@link ApiError}; anything else as code `http_<status>` with an {@link excerpt} of the body. */
export function apiError(status: number, body: string): ApiError {
  let node: unknown;
  try {
    node = body === "" ? undefined : JSON.parse(body);
  } catch {
    node = undefined; // not JSON: a proxy's page
  }
  if (isObject(node) && node.error !== undefined && node.error !== null) {
    const details: Record<string, string | number | boolean> = {};
    for (const [key, value] of Object.entries(node)) {
      if (key !== "error" && key !== "message" && value !== null && value !== undefined) {
        details[key] = typeof value === "string" || typeof value === "number" || typeof value === "boolean" ? value : JSON.stringify(value);
      }
    }
    const error: Doc<Session["Error"]> = node;
    return Object.freeze({ status, code: text(error, "error") ?? "", message: text(error, "message") ?? "", details: Object.freeze(details) });
  }
  return Object.freeze({ status, code: `http_${status}`, message: excerpt(body), details: Object.freeze({}) });
}

/** The most of a body that is not Tether's {@link excerpt} keeps. */
export const EXCERPT_CHARS = 200;
/** How much of such a body is looked at: a proxy's page says what it is near its top, and the patterns stay cheap. */
const EXCERPT_SCAN_CHARS = 4096;
const TITLE = /<title[^>]*>([\s\S]*?)<\/title>/i;
const TAG_OR_SPACE = /<!--[\s\S]*?-->|<(script|style)\b[\s\S]*?<\/\1\s*>|<[^>]*>|[\s\p{Cc}]+/giu;

/**
 * What a body that is not Tether's says, briefly: a proxy's error page (`502 Bad Gateway`, a gateway's "upstream
 * connect error"). An HTML page's title if it has one, else its text without tags; control characters and runs of
 * spaces made one space; at most {@link EXCERPT_CHARS} characters.
 */
export function excerpt(body: string): string {
  const head = body.slice(0, EXCERPT_SCAN_CHARS);
  const text = (TITLE.exec(head)?.[1] ?? head).replace(TAG_OR_SPACE, " ").trim();
  return text.length <= EXCERPT_CHARS ? text : text.slice(0, EXCERPT_CHARS - 1).trimEnd() + "…";
}

// --- session-service -----------------------------------------------------------------------------------------------

export function created(n: unknown): Created {
  const o = object<Session["SessionCreated"]>(n, "a create's answer");
  return freeze({
    kind: "created",
    sessionId: requiredText(o, "sessionId"),
    seq: requiredNumber(o, "seq"),
    harnessVersion: text(o, "harnessVersion"),
    modelId: text(o, "modelId"),
    redactions: number(o, "redactions", 0),
    sessionStartedAt: date(o, "sessionStartedAt"),
  });
}

export function subagentStarted(n: unknown): SubagentStarted {
  const o = object<Session["SubagentCreated"]>(n, "a subagent's answer");
  return freeze({
    kind: "subagent_started",
    sessionId: requiredText(o, "sessionId"),
    parentSessionId: requiredText(o, "parentSessionId"),
    seq: requiredNumber(o, "seq"),
    harnessVersion: text(o, "harnessVersion"),
    modelId: text(o, "modelId"),
    toolMode: text(o, "toolMode") === "WRITE" ? "WRITE" : "READ_ONLY", // a mode the SDK does not know reads as the narrower one
    redactions: number(o, "redactions", 0),
    sessionStartedAt: date(o, "sessionStartedAt"),
  });
}

export function erased(n: unknown): Erased {
  const o = object<Session["Erased"]>(n, "an erase's answer");
  return freeze({ kind: "erased", sessionId: requiredText(o, "erased"), events: number(o, "events", 0) });
}

export function forked(n: unknown): Forked {
  const o = object<Session["Forked"]>(n, "a fork's answer");
  return freeze({
    kind: "forked",
    sessionId: requiredText(o, "sessionId"),
    parentSessionId: requiredText(o, "parentSessionId"),
    atSeq: requiredNumber(o, "atSeq"),
    seq: requiredNumber(o, "seq"),
    harnessVersion: requiredText(o, "harnessVersion"),
    modelId: requiredText(o, "modelId"),
    tokenBudget: optionalNumber(o, "tokenBudget"),
    sessionStartedAt: date(o, "sessionStartedAt"),
  });
}

export function claimed(n: unknown, sessionId: string, workerId: string): Claimed {
  const o = object<Session["Claimed"]>(n, "a claim's answer");
  const lastSeq = requiredNumber(o, "lastSeq");
  const reason = text(o, "reason");
  return freeze({
    kind: "claimed",
    sessionId,
    workerId,
    epoch: requiredNumber(o, "epoch"),
    resumeReason: reason,
    resumed: reason !== undefined,
    lastSeq,
    nextSeq: lastSeq + 1,
    sessionStartedAt: date(o, "sessionStartedAt"),
  });
}

export function appended(n: unknown): Appended {
  const o = object<Session["Appended"]>(n, "an append's answer");
  const events = requiredElements(o, "appended").map((a) =>
    freeze({ eventId: requiredText(a, "eventId"), seq: requiredNumber(a, "seq"), duplicate: bool(a, "duplicate") }),
  );
  return freeze({
    kind: "appended",
    events: Object.freeze(events),
    seqs: Object.freeze(events.map((e) => e.seq)),
    allDuplicates: events.every((e) => e.duplicate),
    lastSeq: requiredNumber(o, "lastSeq"),
    redactions: number(o, "redactions", 0),
  });
}

export function event(n: unknown): SessionEvent {
  if (!isObject(n)) {
    throw new MalformedAnswerError("an event is a JSON object");
  }
  const e: Doc<Common<Session["Event"]>> = n;
  const actor = objectOrUndefined(e, "actor");
  return freeze({
    seq: requiredNumber(e, "seq"),
    eventId: requiredText(e, "eventId"),
    type: requiredText(e, "type"),
    sessionId: text(e, "sessionId"),
    occurredAt: date(e, "occurredAt"),
    actor: freeze(actor === undefined ? { kind: "UNKNOWN", id: "" } : { kind: text(actor, "kind") ?? "UNKNOWN", id: text(actor, "id") ?? "" }),
    harnessVersion: text(e, "harnessVersion"),
    json: deepFreeze(n),
  });
}

export function page(n: unknown): EventPage {
  const o = object<Session["EventPage"]>(n, "a page of events");
  const lastSeq = requiredNumber(o, "lastSeq");
  const nextSeq = requiredNumber(o, "nextSeq");
  return freeze({ events: Object.freeze(requiredElements(o, "events").map(event)), lastSeq, nextSeq, atEnd: nextSeq > lastSeq });
}

export function sessionInfo(n: unknown): SessionInfo {
  const o = object<Session["SessionSummary"]>(n, "a session");
  return freeze({
    sessionId: requiredText(o, "sessionId"),
    tenantId: text(o, "tenantId"),
    owner: text(o, "owner"),
    status: text(o, "status"),
    lastSeq: number(o, "lastSeq", 0),
    epoch: number(o, "epoch", 0),
    workerId: text(o, "workerId"),
    modelId: text(o, "modelId"),
    harnessVersion: text(o, "harnessVersion"),
    parentSessionId: text(o, "parentSessionId"),
    sessionStartedAt: date(o, "sessionStartedAt"),
  });
}

/** A page of the session list: its sessions, and where the next page starts (undefined on the last). */
export function sessionPage(n: unknown): { sessions: readonly SessionInfo[]; nextAfter: string | undefined } {
  const o = object<Session["Sessions"]>(n, "a page of sessions");
  return { sessions: Object.freeze(requiredElements(o, "sessions").map(sessionInfo)), nextAfter: text(o, "nextAfter") };
}

// --- projector-service ---------------------------------------------------------------------------------------------

export function checkpoint(n: unknown): Checkpoint {
  const o = object<Projector["Checkpoint"]>(n, "a checkpoint");
  const pending = objectOrUndefined(o, "pendingAction");
  const progress = objectOrUndefined(o, "progress");
  const lease = objectOrUndefined(o, "lease");
  const used = objectOrUndefined(o, "usedTokens");
  return freeze({
    sessionId: requiredText(o, "sessionId"),
    tenantId: text(o, "tenantId"),
    schemaVersion: number(o, "schemaVersion", 0),
    lastSeq: requiredNumber(o, "lastSeq"),
    owner: text(o, "owner"),
    objective: text(o, "objective"),
    constraints: strings(o, "constraints"),
    modelId: text(o, "modelId"),
    harnessVersion: text(o, "harnessVersion"),
    toolMode: text(o, "toolMode"),
    status: requiredText(o, "status"),
    step: number(o, "step", 0),
    usedTokens: freeze({ inputTokens: number(used, "inputTokens", 0), outputTokens: number(used, "outputTokens", 0) }),
    tokenBudget: optionalNumber(o, "tokenBudget"),
    pendingAction:
      pending === undefined ? undefined : freeze({ kind: text(pending, "kind"), callId: text(pending, "callId"), sinceSeq: number(pending, "sinceSeq", 0) }),
    toolCursor: Object.freeze(
      elements(o, "toolCursor").map(
        (c): CallCursor =>
          freeze({
            callId: requiredText(c, "callId"),
            tool: text(c, "tool"),
            requestSeq: number(c, "requestSeq", 0),
            idempotencyKey: text(c, "idempotencyKey"),
            state: text(c, "state"),
            resultSeq: optionalNumber(c, "resultSeq"),
            awaitingApproval: bool(c, "awaitingApproval"),
            runBy: text(c, "runBy") ?? "EXECUTOR",
            attempt: number(c, "attempt", 0),
          }),
      ),
    ),
    plan: Object.freeze(
      elements(o, "plan").map((p) => {
        const t = text(p, "text");
        return freeze({ text: t === undefined || t.trim() === "" ? "(no text)" : t, status: text(p, "status") ?? "PENDING" });
      }),
    ),
    progress: freeze({
      lastVerifiedStep: number(progress, "lastVerifiedStep", 0),
      stepsCompleted: number(progress, "stepsCompleted", 0),
      lastNote: text(progress, "lastNote"),
    }),
    lease:
      lease === undefined
        ? undefined
        : freeze({
            workerId: text(lease, "workerId"),
            epoch: number(lease, "epoch", 0),
            harnessVersion: text(lease, "harnessVersion"),
            claimedAt: date(lease, "claimedAt"),
          }),
    updatedAt: date(o, "updatedAt"),
    json: deepFreeze(o),
  });
}

export function context(n: unknown): ModelContext {
  const o = object<Projector["ModelContext"]>(n, "a model context");
  const messages = o.messages;
  if (!Array.isArray(messages)) {
    throw new MalformedAnswerError("the context has no messages");
  }
  return freeze({
    format: requiredText(o, "format"),
    system: text(o, "system"),
    messages: deepFreeze(messages),
    stablePrefixSize: number(o, "stablePrefixSize", 0),
    tokens: number(o, "tokens", 0),
    tokenizer: text(o, "tokenizer"),
    window: number(o, "window", 0),
    compactionAdvised: bool(o, "compactionAdvised"),
    atSeq: number(o, "atSeq", 0),
    droppedEvents: number(o, "droppedEvents", 0),
    json: deepFreeze(o),
  });
}

export function recovery(n: unknown): RecoveryReport {
  const o = object<Projector["RecoveryReport"]>(n, "a recovery report");
  const identity = objectOrUndefined(o, "identity");
  const position = objectOrUndefined(o, "position");
  const effects = objectOrUndefined(o, "effects");
  const authority = objectOrUndefined(o, "authority");
  const totals = objectOrUndefined(effects, "totals");
  if (identity === undefined || position === undefined) {
    throw new MalformedAnswerError("the recovery report has no identity or position");
  }
  return freeze({
    identity: freeze({
      sessionId: requiredText(identity, "sessionId"),
      tenantId: text(identity, "tenantId"),
      owner: text(identity, "owner"),
      modelId: text(identity, "modelId"),
      harnessVersion: text(identity, "harnessVersion"),
      epoch: number(identity, "epoch", 0),
      workerId: text(identity, "workerId"),
    }),
    position: freeze({
      lastSeq: requiredNumber(position, "lastSeq"),
      step: number(position, "step", 0),
      lastVerifiedStep: number(position, "lastVerifiedStep", 0),
      status: text(position, "status"),
      lastNote: text(position, "lastNote"),
    }),
    effects: freeze({
      confirmed: calls(elements(effects, "confirmed")),
      cancelled: calls(elements(effects, "cancelled")),
      unknown: calls(elements(effects, "unknown")),
      inFlight: calls(elements(effects, "inFlight")),
      totals: freeze({
        ok: number(totals, "ok", 0),
        error: number(totals, "error", 0),
        cancelled: number(totals, "cancelled", 0),
        unknown: number(totals, "unknown", 0),
      }),
      harnessRun: Object.freeze(
        elements(effects, "harnessRun").map((c) =>
          freeze({
            callId: requiredText(c, "callId"),
            tool: text(c, "tool"),
            outcome: text(c, "outcome"),
            state: text(c, "state"),
            recordedOnly: bool(c, "recordedOnly"),
            exactlyOnce: bool(c, "exactlyOnce"),
            attempt: number(c, "attempt", 0),
            startedEpoch: optionalNumber(c, "startedEpoch"),
            idempotencyKey: text(c, "idempotencyKey"),
          }),
        ),
      ),
    }),
    authority: freeze({
      approvalsInForce: Object.freeze(
        elements(authority, "approvalsInForce").map((g) =>
          freeze({ grantSeq: number(g, "grantSeq", 0), tool: text(g, "tool"), pathGlob: text(g, "pathGlob"), approver: text(g, "approver") }),
        ),
      ),
      pendingApprovals: calls(elements(authority, "pendingApprovals")),
    }),
    nextSafeActions: strings(o, "nextSafeActions"),
    json: deepFreeze(o),
  });
}

export function callRecord(n: unknown): CallRecord {
  const o = object<Projector["CallStory"]>(n, "a call record");
  return freeze({
    sessionId: requiredText(o, "sessionId"),
    callId: requiredText(o, "callId"),
    tool: text(o, "tool"),
    argumentsJson: text(o, "argumentsJson"),
    requestSeq: number(o, "requestSeq", 0),
    idempotencyKey: text(o, "idempotencyKey"),
    authorizedSeq: optionalNumber(o, "authorizedSeq"),
    basis: text(o, "basis"),
    resultSeq: optionalNumber(o, "resultSeq"),
    resultStatus: text(o, "resultStatus"),
    json: deepFreeze(o),
  });
}

// --- approval-service ----------------------------------------------------------------------------------------------

export function approval(n: unknown): Approval {
  const o = object<Approvals["ApprovalItem"]>(n, "an approval item");
  const decision = objectOrUndefined(o, "decision");
  const args = o.arguments;
  const status = requiredText(o, "status");
  return freeze({
    id: requiredText(o, "id"),
    kind: requiredText(o, "kind"),
    status,
    isPending: status === "PENDING",
    sessionId: text(o, "sessionId"),
    callId: text(o, "callId"),
    tool: text(o, "tool"),
    argumentsJson: args === undefined || args === null ? "{}" : typeof args === "string" ? args : JSON.stringify(args),
    shown: text(o, "shown"),
    seq: number(o, "seq", 0),
    requestSeq: number(o, "requestSeq", 0),
    requestedAt: date(o, "requestedAt"),
    requestedBy: text(o, "requestedBy"),
    modelId: text(o, "model"),
    expiresAt: date(o, "expiresAt"),
    outcome: text(o, "outcome"),
    decisions: strings(o, "decisions"),
    suggestedPathGlob: text(o, "suggestedPathGlob"),
    runBy: text(o, "runBy"),
    decision:
      decision === undefined
        ? undefined
        : freeze({
            decision: text(decision, "decision"),
            approver: text(decision, "approver"),
            reason: text(decision, "reason") ?? "",
            tool: text(decision, "tool"),
            pathGlob: text(decision, "pathGlob"),
            seq: number(decision, "seq", 0),
            decidedAt: date(decision, "decidedAt"),
          }),
    endedBecause: text(o, "endedBecause"),
    json: deepFreeze(o),
  });
}

export function approvalPage(n: unknown): { approvals: readonly Approval[]; nextAfter: string | undefined } {
  const o = object<Approvals["ApprovalItems"]>(n, "a page of approvals");
  return { approvals: Object.freeze(requiredElements(o, "approvals").map(approval)), nextAfter: text(o, "nextAfter") };
}

// -------------------------------------------------------------------------------------------------------------------

function calls(list: readonly Doc<RecoveryCallDoc>[]): readonly RecoveryCall[] {
  return Object.freeze(
    list.map((c) =>
      freeze({
        callId: requiredText(c, "callId"),
        tool: text(c, "tool"),
        state: text(c, "state"),
        requestSeq: number(c, "requestSeq", 0),
        resultSeq: optionalNumber(c, "resultSeq"),
        idempotencyKey: text(c, "idempotencyKey"),
      }),
    ),
  );
}

type RecoveryCallDoc = Projector["RecoveryReport.Call"];

function isObject(n: unknown): n is Obj {
  return typeof n === "object" && n !== null && !Array.isArray(n);
}

function object<S>(n: unknown, what: string): Doc<S> {
  if (!isObject(n)) {
    throw new MalformedAnswerError(`${what} is a JSON object`);
  }
  return n;
}

/** The text field; undefined when absent or null; another JSON value as its text. */
function text<S>(o: Doc<S> | undefined, field: FieldOf<S, string>): string | undefined {
  return anyText(o?.[field]);
}

function anyText(v: unknown): string | undefined {
  return v === undefined || v === null ? undefined : typeof v === "string" ? v : JSON.stringify(v);
}

function requiredText<S>(o: Doc<S>, field: FieldOf<S, string>): string {
  const v = text(o, field);
  if (v === undefined) {
    throw new MalformedAnswerError(`the answer has no ${field}`);
  }
  return v;
}

function number<S>(o: Doc<S> | undefined, field: FieldOf<S, number>, absent: number): number {
  const v = o?.[field];
  return typeof v === "number" ? v : absent;
}

function optionalNumber<S>(o: Doc<S> | undefined, field: FieldOf<S, number>): number | undefined {
  const v = o?.[field];
  return typeof v === "number" ? v : undefined;
}

function requiredNumber<S>(o: Doc<S>, field: FieldOf<S, number>): number {
  const v = o[field];
  if (typeof v !== "number") {
    throw new MalformedAnswerError(`the answer has no number ${field}`);
  }
  return v;
}

function bool<S>(o: Doc<S> | undefined, field: FieldOf<S, boolean>): boolean {
  return o?.[field] === true;
}

/** An ISO-8601 instant; undefined when absent, null or unreadable. */
function date<S>(o: Doc<S> | undefined, field: FieldOf<S, string>): Date | undefined {
  const v = text(o, field);
  if (v === undefined) {
    return undefined;
  }
  const d = new Date(v);
  return Number.isNaN(d.getTime()) ? undefined : d;
}

function strings<S>(o: Doc<S> | undefined, field: FieldOf<S, readonly string[]>): readonly string[] {
  const v = o?.[field];
  return Object.freeze(Array.isArray(v) ? v.map((e) => (typeof e === "string" ? e : JSON.stringify(e))) : []);
}

function elements<S, K extends FieldOf<S, readonly object[]>>(o: Doc<S> | undefined, field: K): Doc<ElementOf<NonNullable<S[K]>>>[] {
  const v = o?.[field];
  return Array.isArray(v) ? v.filter(isObject) : [];
}

/** The array field, which the answer must have: a list answer without its list is malformed, never an empty list. */
function requiredElements<S, K extends FieldOf<S, readonly object[]>>(o: Doc<S> | undefined, field: K): Doc<ElementOf<NonNullable<S[K]>>>[] {
  if (!Array.isArray(o?.[field])) {
    throw new MalformedAnswerError(`the answer has no list ${String(field)}`);
  }
  return elements(o, field);
}

function objectOrUndefined<S, K extends FieldOf<S, object>>(o: Doc<S> | undefined, field: K): Doc<NonNullable<S[K]>> | undefined {
  const v = o?.[field];
  return isObject(v) ? v : undefined;
}

function freeze<T extends object>(value: T): T {
  return Object.freeze(value);
}

function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const member of Object.values(value)) {
      deepFreeze(member);
    }
  }
  return value;
}

/** The seq a log read goes on from: after `from`, or the read fails (a page asking for itself again would never end). */
export function nextPage(what: string, from: number, nextSeq: number): number {
  if (!(nextSeq > from)) {
    throw new MalformedAnswerError(`${what}: the page from seq ${from} asks for seq ${nextSeq} next`);
  }
  return nextSeq;
}
