import { MalformedAnswerError, TetherError } from "./errors.js";
import { clientId, randomId, requireId, requireText } from "./ids.js";
import { jsonText } from "./json-text.js";
import type { Approval, CallRecord, Checkpoint, EventPage, ModelContext, RecoveryReport, SessionEvent, SessionInfo } from "./models.js";
import { MAX_TIMER_MS, resolveOptions, type ResolvedOptions, type TetherClientOptions } from "./options.js";
import { appendRefusal, claimRefusal, decisionRefusal, failure, notFound, rejected } from "./outcomes.js";
import {
  appendBody,
  createBody,
  eventIdsOf,
  ReadAt,
  subagentBody,
  type AppendBatch,
  type ApprovalDecision,
  type ApprovalFilter,
  type ClaimRequest,
  type ContextQuery,
  type NewEvent,
  type NewSession,
  type NewSubagent,
} from "./requests.js";
import type {
  AppendResult,
  AwaitResult,
  ClaimResult,
  Claimed,
  CreateResult,
  DecisionResult,
  EraseResult,
  ForkResult,
  SubagentStartResult,
} from "./results.js";
import { Subscription, type SessionEventListener } from "./subscription.js";
import { errorOf, ok, Transport, type Answer } from "./transport.js";
import type { components as ApprovalApi } from "./generated/approval-service.js";
import type { components as SessionApi } from "./generated/session-service.js";
import * as wire from "./wire.js";

/** Events (or sessions) per page when reading a whole log (or list): half the session-service's default maximum (1000). */
const PAGE = 500;
const DECISION_POLL_MS = 500;

/**
 * The Tether SDK for agent harnesses and approvers' scripts: sessions and their logs (session-service), checkpoints,
 * model context and recovery reports (projector-service), approvals (approval-service). The Java SDK's `TetherClient`,
 * the same behaviour.
 *
 * Writes return a typed result — a discriminated union on `kind` (`created`, `claimed`, `appended` … or the refusals
 * that call can meet: `conflict`, `fenced`, `version_pinned`, `not_found`, `rejected` naming the field …). Reads return
 * the answer, or `undefined` when the session (or call, or approval) does not exist for the caller. What is not an
 * outcome — the service unreachable after the retries allowed, credentials refused (401), a server error — rejects
 * with a {@link TetherError}.
 *
 * Only calls that are safe to repeat are retried (see `RetryPolicy`): reads, appends (deterministic eventIds), creates,
 * subagents and forks (the SDK picks the session id and derives the first eventId from the request) and claims (a
 * request id). `decide` and `eraseSession` are never retried.
 *
 * One client per process is enough: it is cheap, holds no connection of its own (Node's `fetch` pools them), and may be
 * used by any number of concurrent calls. {@link close} ends every open subscription and every wait to retry, and makes later calls throw.
 */
export class TetherClient {
  readonly options: ResolvedOptions;
  private readonly transport: Transport;
  private readonly subscriptions = new Set<Subscription>();
  private closed = false;

  constructor(options: TetherClientOptions = {}) {
    this.options = resolveOptions(options);
    this.transport = new Transport(this.options);
  }

  // --- sessions (session-service) ------------------------------------------------------------------------------------

  /**
   * Starts a session (`session_started`). Safe to retry: the SDK picks the session's id when the request has none, and
   * the event's id is derived from the request, so the same request again answers the same `created`; a different
   * request for an existing id is `rejected` (`illegal_event`).
   */
  async createSession(session: NewSession): Promise<CreateResult> {
    this.open();
    const sessionId = session.sessionId === undefined ? randomId() : requireId(session.sessionId, "sessionId");
    const body = createBody(session, sessionId);
    // derived from the whole request as the Java SDK writes it: its retry is a duplicate, another request for the same id is refused
    body.eventId = clientId(sessionId, "session_started", jsonText(body));
    const answer = await this.transport.send("POST", this.sessionApi("/v1/sessions"), body, "safe");
    return ok(answer) ? wire.created(wire.parseJson(answer.body)) : rejected(errorOf(answer));
  }

  /**
   * Starts a subagent of `parentSessionId` (`session_started` naming its parent): a session of its own, pinned as the
   * parent is, no wider in tool mode and within what the parent's budget has left; when it closes, only its outcome
   * enters the parent's log (`subagent_result`). Safe to retry: the SDK picks the subagent's id when the request has
   * none, and the event's id is derived from the parent and the request as the Java SDK derives it, so the same request
   * again answers the same `subagent_started`. `not_found` for a parent the caller does not see; `rejected` for a wider
   * tool mode (`illegal_event`, field `toolMode`), a budget missing or larger than the parent has left
   * (`budget_exceeded`, field `tokenBudget`), a closed parent (`session_closed`).
   */
  async startSubagent(parentSessionId: string, subagent: NewSubagent): Promise<SubagentStartResult> {
    this.open();
    const parent = id(parentSessionId);
    const sessionId = subagent.sessionId === undefined ? randomId() : requireId(subagent.sessionId, "sessionId");
    const body = subagentBody(subagent, sessionId);
    // derived from the parent and the whole request as the Java SDK writes it: its retry is a duplicate, another request for the same id is refused
    body.eventId = clientId(sessionId, "session_started", parent, jsonText(body));
    const answer = await this.transport.send("POST", this.sessionApi(`/v1/sessions/${segment(parent)}/subagents`), body, "safe");
    if (ok(answer)) {
      return wire.subagentStarted(wire.parseJson(answer.body));
    }
    const e = errorOf(answer);
    return e.status === 404 ? notFound(e) : rejected(e);
  }

  /** The caller's tenant's sessions, open and closed, or with this status, in id order (read page by page). */
  async sessions(status?: "open" | "closed"): Promise<readonly SessionInfo[]> {
    return this.everyPage(
      "listing sessions",
      (after) => this.sessionApi("/v1/sessions", { status, after, limit: PAGE }),
      (n) => {
        const page = wire.sessionPage(n);
        return { elements: page.sessions, nextAfter: page.nextAfter };
      },
    );
  }

  /** One session as a list shows it; undefined if it does not exist for the caller. */
  async session(sessionId: string): Promise<SessionInfo | undefined> {
    return this.read(`reading session ${sessionId}`, this.sessionApi(`/v1/sessions/${segment(sessionId)}`), wire.sessionInfo);
  }

  /**
   * Claims the session for a worker (`session_claimed`, epoch + 1; a re-claim records `session_resumed`). Retried with
   * the same request id, so a retry is a no-op while it is the latest claim.
   */
  async claim(sessionId: string, claim: ClaimRequest): Promise<ClaimResult> {
    this.open();
    const body = {
      workerId: requireText(claim.workerId, "workerId"),
      harnessVersion: requireText(claim.harnessVersion, "harnessVersion"),
      ...(claim.rollout === true ? { rollout: true } : {}),
      requestId: claim.requestId === undefined ? randomId() : requireId(claim.requestId, "requestId"),
    } satisfies SessionApi["schemas"]["Claim"];
    const answer = await this.transport.send("POST", this.sessionApi(`/v1/sessions/${segment(sessionId)}/claim`), body, "safe");
    return ok(answer) ? wire.claimed(wire.parseJson(answer.body), sessionId, claim.workerId) : claimRefusal(errorOf(answer));
  }

  /** A writer that appends under `claim`'s epoch and session start. */
  writer(claim: Claimed): SessionWriter {
    return new SessionWriter(this, claim);
  }

  /**
   * Appends a batch, all or nothing. Each event's id is derived from the batch's step (or fixed by the event), so a
   * retry — by this SDK after a lost answer, or by a restarted worker sending the same step again — appends nothing
   * twice and answers the original seqs.
   */
  async append(sessionId: string, batch: AppendBatch): Promise<AppendResult> {
    this.open();
    const ids = eventIdsOf(id(sessionId), batch);
    // safe to repeat: every eventId is fixed, and the sequencer answers a known one with its original seq
    const answer = await this.transport.send("POST", this.sessionApi(`/v1/sessions/${segment(sessionId)}/events`), appendBody(batch, ids), "safe");
    if (!ok(answer)) {
      return appendRefusal(errorOf(answer));
    }
    const appended = wire.appended(wire.parseJson(answer.body));
    // one answer per event, each with its id: else a lost or mangled answer would read as the batch in the log
    if (appended.events.length !== ids.length || appended.events.some((e, i) => e.eventId !== ids[i])) {
      throw new MalformedAnswerError(`the answer to an append of ${ids.length} events to ${sessionId} does not name them, in order`);
    }
    return appended;
  }

  /**
   * Forks the session at `atSeq`: a new session, `newSessionId` or a random id, that starts with `session_forked`,
   * pinned as the parent was at that seq; its model context is the parent's up to `atSeq`, then its own events. Safe to
   * retry: the fork's eventId is derived from the request as the Java SDK derives it, so a retry after a lost answer
   * answers the same fork, and never makes a second one.
   */
  async forkSession(sessionId: string, atSeq: number, newSessionId?: string): Promise<ForkResult> {
    this.open();
    if (!Number.isSafeInteger(atSeq) || atSeq < 1) {
      throw new RangeError(`atSeq starts at 1, not ${atSeq}`);
    }
    const child = newSessionId === undefined ? randomId() : requireId(newSessionId, "newSessionId");
    const body = {
      atSeq,
      sessionId: child,
      eventId: clientId(child, "session_forked", id(sessionId), String(atSeq)),
    } satisfies SessionApi["schemas"]["Fork"];
    const answer = await this.transport.send("POST", this.sessionApi(`/v1/sessions/${segment(sessionId)}/fork`), body, "safe");
    if (ok(answer)) {
      return wire.forked(wire.parseJson(answer.body));
    }
    const e = errorOf(answer);
    return e.status === 404 ? notFound(e) : rejected(e);
  }

  /**
   * Erases the session (an agent of its tenant, or an admin): a tombstone for every event and for its checkpoint, and
   * the session leaves every store, so its id may be used again. Never retried (as the Java SDK's `erase`): once the id
   * may be used again, a repeat after a lost answer could erase another session made under it meanwhile; a lost answer
   * rejects with a {@link TetherError} whose `outcomeUnknown` is true.
   *
   * With `held`, the claim of a writer: the session is erased only while no other worker has claimed it since (else
   * `rejected` with code `stale_epoch`) and only if it is the session that was claimed (else `not_found`, even when
   * another was made under its id); nothing is erased then.
   */
  async eraseSession(sessionId: string, held?: Pick<Claimed, "epoch" | "sessionStartedAt">): Promise<EraseResult> {
    this.open();
    const params = held === undefined ? {} : { epoch: held.epoch, sessionStartedAt: held.sessionStartedAt?.toISOString() };
    const answer = await this.transport.send("DELETE", this.sessionApi(`/v1/sessions/${segment(sessionId)}`, params), undefined, "never");
    noVerdict(answer, `erasing ${sessionId}`);
    if (ok(answer)) {
      return wire.erased(wire.parseJson(answer.body));
    }
    const e = errorOf(answer);
    return e.status === 404 ? notFound(e) : rejected(e);
  }

  /**
   * The text of content the session-service offloaded to its blob store (an event's `artifact {uri, sha256, size}`,
   * kept instead of content over the offload threshold), as UTF-8; undefined if the caller's tenant has no such blob.
   */
  async artifactText(sha256: string): Promise<string | undefined> {
    if (!/^[0-9a-f]{64}$/.test(sha256)) {
      throw new TypeError(`sha256 must be 64 lower-case hex digits: ${String(sha256)}`);
    }
    this.open();
    const answer = await this.transport.get(this.sessionApi(`/v1/artifacts/${sha256}`));
    if (ok(answer)) {
      return answer.body;
    }
    if (answer.status === 404) {
      return undefined;
    }
    throw failure(`reading artifact ${sha256}`, errorOf(answer));
  }

  /** A page of the session's log from `fromSeq` (from 1), at most `limit` events (1 to the service's maximum). */
  async events(sessionId: string, fromSeq = 1, limit = PAGE): Promise<EventPage | undefined> {
    if (!Number.isSafeInteger(fromSeq) || fromSeq < 1) {
      throw new RangeError(`fromSeq starts at 1, not ${fromSeq}`);
    }
    if (!Number.isSafeInteger(limit) || limit < 1) {
      throw new RangeError(`limit must be at least 1, not ${limit}`);
    }
    return this.read(
      `reading the events of ${sessionId}`,
      this.sessionApi(`/v1/sessions/${segment(sessionId)}/events`, { fromSeq, limit }),
      wire.page,
    );
  }

  /** The session's whole log as it is now, page by page; undefined if the session does not exist for the caller. */
  async allEvents(sessionId: string): Promise<readonly SessionEvent[] | undefined> {
    const all: SessionEvent[] = [];
    let from = 1;
    for (;;) {
      const page = await this.events(sessionId, from, PAGE);
      if (page === undefined) {
        return undefined;
      }
      all.push(...page.events);
      if (page.events.length === 0 || page.atEnd) {
        return Object.freeze(all);
      }
      from = wire.nextPage(`reading the events of ${sessionId}`, from, page.nextSeq);
    }
  }

  /**
   * Follows the session's events from `fromSeq` (from 1): catch-up, then live; reconnects and resumes by itself after
   * a disconnect. Starts at once; an unknown session ends it with `not_found`, and so does one erased while it is
   * followed, even when another is made under its id before it reconnects. A function is taken as `onEvent`.
   *
   * @param options.sessionStartedAt the start of the session meant (from its `created`, `claimed` or `SessionInfo`):
   *   should the session under the id be another one, made after that one was erased, the subscription ends `not_found`
   *   rather than follow it; without it, whichever session has the id
   */
  subscribe(
    sessionId: string,
    fromSeq: number,
    listener: SessionEventListener | SessionEventListener["onEvent"],
    options: { readonly sessionStartedAt?: Date } = {},
  ): Subscription {
    this.open();
    const l: SessionEventListener = typeof listener === "function" ? { onEvent: listener } : listener;
    segment(sessionId); // checked as every path segment is
    const startedAt = options.sessionStartedAt;
    if (startedAt !== undefined && !(startedAt instanceof Date && Number.isFinite(startedAt.getTime()))) {
      throw new TypeError("sessionStartedAt must be a valid Date");
    }
    const subscription = new Subscription(this.transport, id(sessionId), fromSeq, l, (s) => this.subscriptions.delete(s), startedAt);
    this.subscriptions.add(subscription);
    return subscription;
  }

  /**
   * Waits for the first event from `fromSeq` on that matches, e.g. the `tool_result` of a call:
   * `awaitEvent(id, seq, (e) => e.type === "tool_result" && e.json.callId === "c1", 60_000)`.
   *
   * @param timeoutMs at least 0; `Infinity`: no limit
   * @param options.signal ends the wait when it aborts (the subscription closed), unless an event matched before
   * @returns the event; undefined if none matched within `timeoutMs`
   * @throws RangeError for a `timeoutMs` that is NaN or negative, before anything is sent
   * @throws the signal's reason (an `AbortError` when it was aborted without one) once `options.signal` aborts; at once,
   *   nothing sent, for one aborted already
   * @throws TetherError if the session does not exist for the caller, the subscription failed, or the client was closed meanwhile
   */
  async awaitEvent(
    sessionId: string,
    fromSeq: number,
    match: (e: SessionEvent) => boolean,
    timeoutMs: number,
    options: { readonly signal?: AbortSignal | undefined } = {},
  ): Promise<SessionEvent | undefined> {
    waitMs(timeoutMs);
    const signal = options.signal;
    signal?.throwIfAborted();
    let found: SessionEvent | undefined;
    let timedOut = false;
    let subscription: Subscription | undefined = undefined;
    subscription = this.subscribe(sessionId, fromSeq, (e) => {
      if (found === undefined && match(e)) {
        found = e;
        void subscription?.close();
      }
    });
    // a Node timer waits at most MAX_TIMER_MS (longer fires at once): a longer wait is armed again until its deadline
    const deadline = Date.now() + timeoutMs;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const arm = (ms: number): void => {
      timer = setTimeout(() => {
        const left = deadline - Date.now();
        if (left > 0) {
          arm(left);
          return;
        }
        timedOut = true;
        void subscription?.close();
      }, Math.min(ms, MAX_TIMER_MS));
    };
    if (Number.isFinite(timeoutMs)) {
      arm(timeoutMs); // Infinity: no timer, it waits until a match or an end
    }
    if (signal !== undefined) {
      const abort = (): void => void subscription?.close();
      signal.addEventListener("abort", abort, { once: true });
      void subscription.ended.then(() => signal.removeEventListener("abort", abort));
    }
    try {
      const end = await subscription.ended;
      if (found !== undefined) {
        return found;
      }
      signal?.throwIfAborted();
      switch (end.reason) {
        case "closed":
          if (timedOut) {
            return undefined;
          }
          throw new TetherError("the subscription was closed"); // the client was closed meanwhile
        case "not_found":
          throw new TetherError(`session ${sessionId} not found`);
        case "failed":
          throw end.failure instanceof TetherError ? end.failure : new TetherError("waiting for an event failed", { cause: end.failure });
      }
    } finally {
      clearTimeout(timer);
    }
  }

  // --- projections (projector-service) --------------------------------------------------------------------------------

  /** The session's checkpoint now (default), at a past seq, or once it has folded a seq. */
  async checkpoint(sessionId: string, at: ReadAt = ReadAt.latest()): Promise<Checkpoint | undefined> {
    return this.read(`reading the checkpoint of ${sessionId}`, this.projectorApi(`/v1/sessions/${segment(sessionId)}/checkpoint`, readAt(at)), wire.checkpoint);
  }

  /** The session's model context in a provider's format (`"openai"` or `"anthropic"`), optionally at a state and within a token limit. */
  async context(sessionId: string, query: ContextQuery | ContextQuery["format"]): Promise<ModelContext | undefined> {
    const q: ContextQuery = typeof query === "string" ? { format: query } : query;
    if (q.format !== "openai" && q.format !== "anthropic") {
      throw new TypeError(`format must be openai or anthropic, not ${String(q.format)}`);
    }
    if (q.maxTokens !== undefined && (!Number.isSafeInteger(q.maxTokens) || q.maxTokens < 1)) {
      throw new RangeError(`maxTokens must be at least 1, not ${q.maxTokens}`);
    }
    const params = { format: q.format, ...readAt(q.at ?? ReadAt.latest()), maxTokens: q.maxTokens };
    return this.read(`reading the context of ${sessionId}`, this.projectorApi(`/v1/sessions/${segment(sessionId)}/context`, params), wire.context);
  }

  /**
   * The recovery report, of the latest checkpoint or once it has folded a seq (`ReadAt.atLeast`); a past seq is not
   * offered by the projector and throws a RangeError.
   */
  async recovery(sessionId: string, at: ReadAt = ReadAt.latest()): Promise<RecoveryReport | undefined> {
    if (at.kind === "seq") {
      throw new RangeError("a recovery report is of the latest checkpoint; use ReadAt.latest() or ReadAt.atLeast(seq)");
    }
    return this.read(`reading the recovery report of ${sessionId}`, this.projectorApi(`/v1/sessions/${segment(sessionId)}/recovery`, readAt(at)), wire.recovery);
  }

  /** The story of one tool call; undefined if the session or the call is unknown. */
  async call(sessionId: string, callId: string): Promise<CallRecord | undefined> {
    return this.read(
      `reading call ${callId} of ${sessionId}`,
      this.projectorApi(`/v1/sessions/${segment(sessionId)}/calls/${segment(callId)}`),
      wire.callRecord,
    );
  }

  // --- approvals (approval-service; approver or admin) ------------------------------------------------------------------

  /** The items of the caller's tenant that `filter` selects (default: the pending ones), oldest first (read page by page). */
  async approvals(filter: ApprovalFilter = { status: "PENDING" }): Promise<readonly Approval[]> {
    return this.everyPage(
      "listing approvals",
      (after) => this.approvalApi("/v1/approvals", { status: filter.status ?? "PENDING", kind: filter.kind, after, limit: PAGE }),
      (n) => {
        const page = wire.approvalPage(n);
        return { elements: page.approvals, nextAfter: page.nextAfter };
      },
    );
  }

  /** One item by its id (`<sessionId>~<seq>`), with the whole text shown to approvers. */
  async approval(approvalId: string): Promise<Approval | undefined> {
    return this.read(`reading approval ${approvalId}`, this.approvalApi(`/v1/approvals/${segment(approvalId)}`), wire.approval);
  }

  /**
   * Records a decision in the approver's name on an item: the {@link Approval} as it was read, or its id. Never retried:
   * a lost answer rejects with a {@link TetherError} whose `outcomeUnknown` is true (unless the connection was never
   * made) — read the item to learn what happened.
   *
   * An item's id is its session's id and a seq, so once that session is erased and made again under its id the same id
   * can name another call. Given the item as read, the decision is pinned to it (its `requestedAt` is sent), and is
   * `not_found` with nothing recorded when the id names another call now; given an id, it is taken for whatever item
   * the id names.
   */
  async decide(item: Approval | string, decision: ApprovalDecision): Promise<DecisionResult> {
    this.open();
    const approvalId = typeof item === "string" ? item : item.id;
    const seen = typeof item === "string" ? undefined : item.requestedAt;
    const body = {
      decision: decision.decision,
      ...(decision.tool === undefined ? {} : { tool: decision.tool }),
      ...(decision.pathGlob === undefined ? {} : { pathGlob: decision.pathGlob }),
      reason: decision.reason,
      ...(seen === undefined ? {} : { requestedAt: seen.toISOString() }),
    } satisfies ApprovalApi["schemas"]["Decision"];
    // never repeated: a second decision after a lost answer would be refused, or worse, count twice
    const answer = await this.transport.send("POST", this.approvalApi(`/v1/approvals/${segment(approvalId)}/decision`), body, "never");
    noVerdict(answer, `deciding ${approvalId}`);
    return ok(answer) ? Object.freeze({ kind: "decided", approval: wire.approval(wire.parseJson(answer.body)) }) : decisionRefusal(errorOf(answer));
  }

  /** Polls the item (every 0.5 s) until it is no longer pending, or `timeoutMs` (at least 0; `Infinity`: no limit) has passed. */
  async awaitDecision(approvalId: string, timeoutMs: number): Promise<AwaitResult> {
    waitMs(timeoutMs);
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const item = await this.approval(approvalId);
      if (item === undefined) {
        return Object.freeze({ kind: "not_found", message: "approval not found" });
      }
      if (!item.isPending) {
        return Object.freeze({ kind: "settled", approval: item });
      }
      const left = deadline - Date.now();
      if (left <= 0) {
        return Object.freeze({ kind: "still_pending", approval: item });
      }
      await new Promise((resolve) => setTimeout(resolve, Math.max(1, Math.min(DECISION_POLL_MS, left))));
    }
  }

  // --- lifecycle -------------------------------------------------------------------------------------------------------

  /**
   * Ends every open subscription (and waits for them) and every wait between attempts (such a call ends with its last
   * failure); later calls throw. Idempotent.
   */
  async close(): Promise<void> {
    this.closed = true;
    this.transport.close();
    await Promise.all([...this.subscriptions].map((s) => s.close()));
  }

  toString(): string {
    return `TetherClient[sessions=${this.options.sessionsUrl}, token=${this.options.token === undefined ? "none" : "(set)"}${this.closed ? ", closed" : ""}]`;
  }

  // -----------------------------------------------------------------------------------------------------------------

  /** A read: the answer, undefined on 404, a {@link TetherError} otherwise. */
  private async read<T>(what: string, url: string, map: (n: unknown) => T): Promise<T | undefined> {
    this.open();
    const answer = await this.transport.get(url);
    if (ok(answer)) {
      return map(wire.parseJson(answer.body));
    }
    if (answer.status === 404) {
      return undefined;
    }
    throw failure(what, errorOf(answer));
  }

  /** Every element of a paged list, page by page from `url(after)` (each page a retried read), in the list's order. */
  private async everyPage<T>(
    what: string,
    url: (after: string | undefined) => string,
    page: (n: unknown) => { elements: readonly T[]; nextAfter: string | undefined },
  ): Promise<readonly T[]> {
    const all: T[] = [];
    const asked = new Set<string>();
    let after: string | undefined;
    do {
      const read = await this.list(what, url(after), page);
      all.push(...read.elements);
      if (after !== undefined) {
        asked.add(after);
      }
      if (read.nextAfter !== undefined && asked.has(read.nextAfter)) {
        // a page asked for before: without end, and its elements again each time
        throw new MalformedAnswerError(`${what}: the page after ${after} names the page after ${read.nextAfter}, read already, as the next`);
      }
      after = read.nextAfter;
    } while (after !== undefined);
    return Object.freeze(all);
  }

  /** A list: the answer, or a {@link TetherError} (a list has no "not found"). */
  private async list<T>(what: string, url: string, map: (n: unknown) => T): Promise<T> {
    this.open();
    const answer = await this.transport.get(url);
    if (!ok(answer)) {
      throw failure(what, errorOf(answer));
    }
    return map(wire.parseJson(answer.body));
  }

  private open(): void {
    if (this.closed) {
      throw new TetherError("the client is closed");
    }
  }

  private sessionApi(path: string, params: Params = {}): string {
    return url(this.options.sessionsUrl, path, params);
  }

  private projectorApi(path: string, params: Params = {}): string {
    return url(this.options.projectorUrl, path, params);
  }

  private approvalApi(path: string, params: Params = {}): string {
    return url(this.options.approvalsUrl, path, params);
  }
}

/**
 * Appends to one session as the worker that claimed it: every batch carries the claim's epoch, so once another worker
 * claims the session every append answers `fenced` and the worker knows to stop; and the session's start the claim
 * answered, so once the session is erased every append answers `not_found`, even after another session was made under
 * its id (whose epochs start again at 1). Tracks the highest last seq its answers reported.
 */
export class SessionWriter {
  readonly sessionId: string;
  readonly epoch: number;
  /** The claimed session's start; undefined from a service before it (the appends then carry none). */
  readonly sessionStartedAt: Date | undefined;
  private last: number;

  constructor(
    private readonly client: TetherClient,
    claim: Claimed,
  ) {
    this.sessionId = claim.sessionId;
    this.epoch = claim.epoch;
    this.sessionStartedAt = claim.sessionStartedAt;
    this.last = claim.lastSeq;
  }

  /** The highest last seq an answer reported (starting with the claim's). */
  get lastSeq(): number {
    return this.last;
  }

  /** Appends the events of step `step` (ids derived from it) under this writer's epoch and session start. */
  append(step: string, ...events: NewEvent[]): Promise<AppendResult> {
    return this.appendBatch({ step, events });
  }

  /** Appends `batch` under this writer's epoch and session start (any the batch had are replaced). */
  async appendBatch(batch: AppendBatch): Promise<AppendResult> {
    const result = await this.client.append(this.sessionId, { ...batch, epoch: this.epoch, sessionStartedAt: this.sessionStartedAt });
    if (result.kind === "appended" || result.kind === "conflict") {
      this.last = Math.max(this.last, result.lastSeq);
    }
    return result;
  }
}

type Params = Readonly<Record<string, string | number | undefined>>;

/**
 * For a call that is never repeated: a 503 (the service got no verdict in time: "it may or may not have been applied")
 * or a gateway's 502/504 (it may have passed the request on) is an unknown outcome, not a refusal.
 */
function noVerdict(answer: Answer, what: string): void {
  if (answer.status === 502 || answer.status === 503 || answer.status === 504) {
    throw new TetherError(`${what}: no verdict; not repeated, it may or may not have taken effect`, { apiError: errorOf(answer), outcomeUnknown: true });
  }
}

function readAt(at: ReadAt): Params {
  switch (at.kind) {
    case "latest":
      return {};
    case "seq":
      return { atSeq: at.seq };
    case "atLeast":
      return { minSeq: at.seq };
  }
}

function id(value: string): string {
  return requireText(value, "id");
}

/** A wait's length in ms: a number, at least 0 (`Infinity` allowed); NaN, a negative or a non-number is refused. */
function waitMs(timeoutMs: number): void {
  if (typeof timeoutMs !== "number" || !(timeoutMs >= 0)) {
    throw new RangeError(`timeoutMs must be a number of ms, at least 0, not ${String(timeoutMs)}`);
  }
}

/**
 * One path segment from caller data, percent-encoded as RFC 3986 unreserved characters stay (the Java SDK's `Uris`).
 * `.` and `..` are refused: a URL parser removes them as dot segments (`%2E` too), so the request would go to another
 * resource (`/v1/sessions/s/calls/..` is `/v1/sessions/s/`).
 */
function segment(value: string): string {
  if (value === "." || value === "..") {
    throw new TypeError(`an id must not be '${value}': it would address another resource`);
  }
  return encode(id(value));
}

function url(base: string, path: string, params: Params): string {
  const query = Object.entries(params)
    .filter((e): e is [string, string | number] => e[1] !== undefined)
    .map(([k, v]) => `${encode(k)}=${encode(String(v))}`)
    .join("&");
  return `${base}${path}${query === "" ? "" : `?${query}`}`;
}

function encode(value: string): string {
  // encodeURIComponent leaves !'()* as they are; RFC 3986 reserves them
  return encodeURIComponent(value).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

