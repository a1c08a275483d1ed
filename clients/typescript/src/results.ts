import type { Approval } from "./models.js";
import { UnexpectedOutcomeError } from "./errors.js";
import type { ToolMode } from "./requests.js";

/**
 * The typed outcomes of Tether's writes, as discriminated unions on `kind` — the Java SDK's sealed result types
 * (client/ `CreateResult`, `SubagentStartResult`, `ClaimResult`, `AppendResult`, `DecisionResult`, `AwaitResult`). A `switch (result.kind)`
 * with no `default` makes the compiler check every case is handled; `assertNever` in the default does it at run time.
 *
 * @module
 */

/** The session exists and starts with `session_started` (also when this was a retry of a create that went through). */
export interface Created {
  readonly kind: "created";
  /** The session's id: the one asked for, or the one the SDK chose. */
  readonly sessionId: string;
  /** The seq of `session_started`: 1. */
  readonly seq: number;
  /** The harness version the session is pinned to. */
  readonly harnessVersion: string | undefined;
  /** The model the session is pinned to. */
  readonly modelId: string | undefined;
  /** How many secrets were scrubbed from the request before it reached the log. */
  readonly redactions: number;
  /**
   * When the sequencer accepted the session's first event: which session of its id this is. An append that carries it
   * (`AppendBatch.sessionStartedAt`) is `not_found` once the session is erased, even if another is made under its id.
   * Undefined from a service before it, and for a session stored before it was kept.
   */
  readonly sessionStartedAt: Date | undefined;
}

/**
 * The worker owns the session now: `session_claimed` (and, on a re-claim, `session_resumed`) is in the log. Every
 * later append should carry {@link epoch}; once another worker claims the session they answer {@link Fenced}. They
 * should carry {@link sessionStartedAt} too; once the session is erased they answer {@link NotFound}, even if another
 * session is made under its id (whose epochs start again at 1). `client.writer(claimed)` does both for you.
 */
export interface Claimed {
  readonly kind: "claimed";
  readonly sessionId: string;
  readonly workerId: string;
  /** 1 for the first claim, one more for each later one. */
  readonly epoch: number;
  /** Why the session was resumed (`CRASH`, `DEPLOY`); undefined for a first claim. */
  readonly resumeReason: string | undefined;
  /** True when another worker had the session before: read the recovery report before acting. */
  readonly resumed: boolean;
  /** The session's last seq after the claim. */
  readonly lastSeq: number;
  /** The seq the next event will get: where a subscription that follows this worker's work starts. */
  readonly nextSeq: number;
  /**
   * When the sequencer accepted the session's first event: which session of its id this is. An append that carries it
   * (`AppendBatch.sessionStartedAt`) is `not_found` once the session is erased, even if another is made under its id.
   * Undefined from a service before it, and for a session stored before it was kept.
   */
  readonly sessionStartedAt: Date | undefined;
}

/** One event of an appended batch. */
export interface AppendedEvent {
  readonly eventId: string;
  readonly seq: number;
  /** True when it was in the log already (a re-sent eventId); nothing was appended for it. */
  readonly duplicate: boolean;
}

/**
 * The whole batch is in the log, in order (a batch is all or nothing). Events whose eventId was already there — a
 * retry — keep their original seq and are marked `duplicate`.
 */
export interface Appended {
  readonly kind: "appended";
  /** One entry per event of the batch, in the batch's order. */
  readonly events: readonly AppendedEvent[];
  /** The seqs of the batch's events, in order. */
  readonly seqs: readonly number[];
  /** True when every event was already in the log: this was a retry of a batch that had gone through. */
  readonly allDuplicates: boolean;
  /** The session's last seq after the append. */
  readonly lastSeq: number;
  /** How many secrets were scrubbed from the batch before it reached the log. */
  readonly redactions: number;
}

/**
 * The batch's `expectedSeq` is not the session's last seq: someone appended in between (another writer, the
 * executor's `tool_result`, an approval). Nothing was appended; re-read from `lastSeq` and decide again.
 */
export interface Conflict {
  readonly kind: "conflict";
  /** The session's last seq now. */
  readonly lastSeq: number;
  readonly message: string;
}

/**
 * Another worker has claimed the session since the caller's claim: the caller's epoch is stale and nothing it sends is
 * appended. A fenced worker stops working on the session.
 */
export interface Fenced {
  readonly kind: "fenced";
  /** The session's epoch now. */
  readonly currentEpoch: number;
  readonly message: string;
}

/** The session is pinned to another harness version than the claiming worker runs; only an operator's migration moves it. */
export interface VersionPinned {
  readonly kind: "version_pinned";
  readonly message: string;
}

/**
 * The session (or approval) does not exist for the caller: it never did, it was erased, or it belongs to another
 * tenant — the services answer all three alike, so existence does not leak across tenants. An append that carries its
 * session's start gets it too when that session was erased and another has been made under its id since.
 */
export interface NotFound {
  readonly kind: "not_found";
  readonly message: string;
}

/**
 * The service refused the request and said why: a wrong field (400 `invalid_field`, `malformed_json`), a role that may
 * not do this (403 `forbidden`), a request too large (413 `too_large`), an event the session may not take (422
 * `illegal_event`, `session_closed`, `budget_exceeded`), a model the version does not run (409 `model_pinned`).
 * Sending the same request again gets the same answer.
 */
export interface Rejected {
  readonly kind: "rejected";
  readonly status: number;
  /** The stable error code. */
  readonly code: string;
  readonly message: string;
  /** The request field named as wrong, e.g. `events[0].type`; undefined when the refusal is about no field. */
  readonly field: string | undefined;
}

/** The decision is in the session's log, in the approver's name. */
export interface Decided {
  readonly kind: "decided";
  /** The item as it stands after the decision. */
  readonly approval: Approval;
}

/**
 * The item is no longer pending: another approver decided it, or it expired or was cancelled, before this decision.
 * Nothing was recorded; read the item to see how it ended.
 */
export interface AlreadyDecided {
  readonly kind: "already_decided";
  /** `already_decided`; `item_ended` for an item that ended with no decision taking effect (expired, its turn interrupted); `conflict` for a race lost in the log. */
  readonly code: string;
  readonly message: string;
}

/** The item left PENDING: decided by a human (`approval.decision`), or ended without one (`approval.endedBecause`). */
export interface Settled {
  readonly kind: "settled";
  readonly approval: Approval;
}

/** The wait ran out and the item is still pending. */
export interface StillPending {
  readonly kind: "still_pending";
  /** The item as last read. */
  readonly approval: Approval;
}

/** The session is gone: a tombstone for each of its events and for its checkpoint; its id may be used again. */
export interface Erased {
  readonly kind: "erased";
  readonly sessionId: string;
  /** How many events it had. */
  readonly events: number;
}

/** A fork created: a new session starting with `session_forked`, pinned as its parent was at `atSeq`. */
export interface Forked {
  readonly kind: "forked";
  /** The new session. */
  readonly sessionId: string;
  readonly parentSessionId: string;
  readonly atSeq: number;
  /** The seq of its `session_forked`: 1. */
  readonly seq: number;
  readonly harnessVersion: string;
  readonly modelId: string;
  /** The most tokens the fork may use: what its parent had left at `atSeq`; undefined when unbounded. */
  readonly tokenBudget: number | undefined;
  /** When the sequencer accepted the new session's `session_forked`: its start, as {@link Created.sessionStartedAt}. */
  readonly sessionStartedAt: Date | undefined;
}

/**
 * The subagent's session exists and starts with `session_started` naming its parent (also when this was a retry of a
 * start that had gone through).
 */
export interface SubagentStarted {
  readonly kind: "subagent_started";
  /** The subagent's session: the one asked for, or the one the SDK chose. */
  readonly sessionId: string;
  readonly parentSessionId: string;
  /** The seq of its `session_started`: 1. */
  readonly seq: number;
  /** The harness version it is pinned to: its parent's. */
  readonly harnessVersion: string | undefined;
  /** The model it is pinned to: its parent's. */
  readonly modelId: string | undefined;
  /** Its tool mode (one the SDK does not know reads as the narrower, `READ_ONLY`). */
  readonly toolMode: ToolMode;
  /** How many secrets were scrubbed from the request before it reached the log. */
  readonly redactions: number;
  /** When the sequencer accepted its `session_started`: its start, as {@link Created.sessionStartedAt}. */
  readonly sessionStartedAt: Date | undefined;
}

/** What `createSession` got. */
export type CreateResult = Created | Rejected;
/**
 * What `startSubagent` got: `NotFound` for a parent the caller does not see, `Rejected` for a wider tool mode
 * (`illegal_event`, field `toolMode`), a budget missing or larger than the parent has left (`budget_exceeded`, field
 * `tokenBudget`), a closed parent (`session_closed`).
 */
export type SubagentStartResult = SubagentStarted | NotFound | Rejected;
/** What `claim` got; `Fenced` is a retried claim that another worker's claim superseded. */
export type ClaimResult = Claimed | Fenced | VersionPinned | NotFound | Rejected;
/**
 * What `append` got. The sequencer checks tenant, the session's start, epoch, closed, expectedSeq in this order — so a
 * worker of an erased session learns it is gone, and a fenced worker that it is fenced, not that it should re-read. A
 * batch whose every eventId is already in the log is `Appended` with the original seqs before any check but the first
 * two.
 */
export type AppendResult = Appended | Conflict | Fenced | NotFound | Rejected;
/** What `eraseSession` got. */
export type EraseResult = Erased | NotFound | Rejected;
/** What `forkSession` got: `NotFound` for a parent the caller does not see, `Rejected` (400) for an `atSeq` past its end. */
export type ForkResult = Forked | NotFound | Rejected;
/** What `decide` got. */
export type DecisionResult = Decided | AlreadyDecided | NotFound | Rejected;
/** What `awaitDecision` got. */
export type AwaitResult = Settled | StillPending | NotFound;

/** Every outcome kind, for exhaustive checks. */
export type Outcome = CreateResult | SubagentStartResult | ClaimResult | AppendResult | EraseResult | ForkResult | DecisionResult | AwaitResult;

/** The `Created` outcome, or an {@link UnexpectedOutcomeError} carrying the other one. */
export function createdOrThrow(result: CreateResult): Created {
  return expect(result, "created");
}

/** The `SubagentStarted` outcome, or an {@link UnexpectedOutcomeError} carrying the other one. */
export function subagentStartedOrThrow(result: SubagentStartResult): SubagentStarted {
  return expect(result, "subagent_started");
}

/** The `Claimed` outcome, or an {@link UnexpectedOutcomeError} carrying the other one. */
export function claimedOrThrow(result: ClaimResult): Claimed {
  return expect(result, "claimed");
}

/** The `Appended` outcome, or an {@link UnexpectedOutcomeError} carrying the other one. */
export function appendedOrThrow(result: AppendResult): Appended {
  return expect(result, "appended");
}

/** The `Forked` outcome, or an {@link UnexpectedOutcomeError} carrying the other one. */
export function forkedOrThrow(result: ForkResult): Forked {
  return expect(result, "forked");
}

/** The `Decided` outcome, or an {@link UnexpectedOutcomeError} carrying the other one. */
export function decidedOrThrow(result: DecisionResult): Decided {
  return expect(result, "decided");
}

/** The item once it left PENDING, or an {@link UnexpectedOutcomeError} carrying the other outcome. */
export function settledOrThrow(result: AwaitResult): Approval {
  return expect(result, "settled").approval;
}

/** For the `default` of an exhaustive `switch (result.kind)`: a compile error when a case is missing, a throw at run time. */
export function assertNever(value: never): never {
  throw new UnexpectedOutcomeError(value as { kind: string });
}

function expect<R extends { readonly kind: string }, K extends R["kind"]>(result: R, kind: K): Extract<R, { kind: K }> {
  if (result.kind === kind) {
    return result as Extract<R, { kind: K }>;
  }
  throw new UnexpectedOutcomeError(result);
}
