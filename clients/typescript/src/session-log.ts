import { TetherError } from "./errors.js";
import type { SessionEvent, SessionInfo, EventPage } from "./models.js";
import { requireText } from "./ids.js";
import type { AppendBatch, ClaimRequest, NewEvent, NewSession } from "./requests.js";
import type { Appended, AppendResult, ClaimResult, Claimed, CreateResult } from "./results.js";

/**
 * One session's log kept by a writer that owns it — what a framework integration (a LangGraph checkpointer, an agent
 * SDK's session) builds on: the log read once and then only what was appended since, a claim made on the first write,
 * and appends planned against the log as this writer knows it.
 *
 * - **Folded in order.** Every event goes, in seq order and once, to the integration's {@link SessionFold}; after the
 *   session was erased and started again, the fold is reset and given the new log from its start.
 * - **One writer.** The first {@link claimed} creates the session if there is none and claims it; every append carries
 *   that claim's epoch. Once another writer claims the session, an append throws {@link SessionTakenOverError} and so
 *   does every later one: nothing this writer sends is appended again.
 * - **Optimistic appends.** {@link appendPlanned} appends at the last seq this writer knows (`expectedSeq`), so the
 *   seqs a plan refers to (`firstSeq` + its index) are the ones its events get. When the log moved meanwhile — an
 *   approval, a tool result, another process — the sequencer appends nothing and answers a conflict: the log is read
 *   again and the batch planned again, with the same step (so the same eventIds). One request when nothing moved.
 *   The events appended go to the fold as they were sent, unless the sequencer changed them (scrubbed a secret) or
 *   they were duplicates: then the log is read.
 *
 * Not thread-safe by itself: run the work on one session through {@link exclusive}.
 */
export class SessionLog {
  private last = 0;
  private claim: Claimed | undefined;
  private lost: SessionTakenOverError | undefined;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly port: SessionLogPort,
    readonly sessionId: string,
    private readonly options: SessionLogOptions,
  ) {
    requireText(options.workerId, "workerId");
  }

  /** The last seq folded (0 before any). */
  get lastSeq(): number {
    return this.last;
  }

  /** This writer's claim, once it made one. */
  get claimOf(): Claimed | undefined {
    return this.claim;
  }

  /** Runs `work` after the work queued on this log before it (whether that failed or not). */
  exclusive<T>(work: () => Promise<T>): Promise<T> {
    const run = this.queue.then(work, work);
    this.queue = run.catch(() => undefined);
    return run;
  }

  /** Reads and folds what was appended since the last seq folded; false if the session does not exist for the caller. */
  async sync(): Promise<boolean> {
    for (;;) {
      const page = await this.port.events(this.sessionId, this.last + 1, PAGE);
      if (page === undefined) {
        if (this.last > 0) {
          this.restart(); // erased meanwhile
        }
        return false;
      }
      if (page.lastSeq < this.last) {
        this.restart(); // erased and started again: read it from its start
        continue;
      }
      for (const event of page.events) {
        this.fold(event);
      }
      if (page.atEnd || page.events.length === 0) {
        await this.options.afterSync?.();
        return true;
      }
    }
  }

  /**
   * This writer's claim: made now if it has none (the session created first when there is none, then the log read);
   * throws once another writer took the session over.
   */
  async claimed(): Promise<Claimed> {
    if (this.lost !== undefined) {
      throw this.lost;
    }
    if (this.claim !== undefined) {
      return this.claim;
    }
    let harnessVersion = this.options.harnessVersion;
    const info = await this.port.session(this.sessionId);
    if (info === undefined) {
      const created = await this.port.createSession({ ...this.options.newSession(), sessionId: this.sessionId });
      if (created.kind !== "created") {
        throw new TetherError(`cannot start session ${this.sessionId}: ${created.code}${created.field === undefined ? "" : ` (field ${created.field})`}: ${created.message}`);
      }
      harnessVersion ??= created.harnessVersion;
    } else {
      harnessVersion ??= info.harnessVersion;
    }
    if (harnessVersion === undefined) {
      throw new TetherError(`session ${this.sessionId} names no harness version to claim it as`);
    }
    const claim = await this.port.claim(this.sessionId, { workerId: this.options.workerId, harnessVersion });
    if (claim.kind !== "claimed") {
      throw new TetherError(`cannot claim session ${this.sessionId}: ${claim.kind}: ${claim.message}`);
    }
    this.claim = claim;
    await this.sync();
    return claim;
  }

  /**
   * Appends the events `plan` makes for a batch whose first event gets seq `firstSeq`, under this writer's claim (made
   * first if need be), at the last seq it knows; see the class comment for conflicts. A plan of no events appends
   * nothing (and answers undefined).
   *
   * @throws SessionTakenOverError once another writer claimed the session
   * @throws TetherError when the session is gone or the sequencer refused the batch (naming the field)
   */
  async appendPlanned(step: string, plan: (firstSeq: number) => Promise<readonly NewEvent[]> | readonly NewEvent[]): Promise<Appended | undefined> {
    const claim = await this.claimed();
    for (let attempt = 1; ; attempt++) {
      const events = await plan(this.last + 1);
      if (events.length === 0) {
        return undefined; // nothing to change
      }
      const result = await this.port.append(this.sessionId, { step, events, epoch: claim.epoch, expectedSeq: this.last });
      switch (result.kind) {
        case "appended":
          if (result.redactions > 0 || result.events.some((e) => e.duplicate)) {
            await this.sync(); // what the log holds is not exactly what was sent: read it
          } else {
            result.events.forEach((e, i) => this.fold(sent(this.sessionId, e.seq, e.eventId, events[i]!)));
          }
          return result;
        case "conflict":
          if (attempt >= CONFLICT_RETRIES) {
            throw new TetherError(`session ${this.sessionId}: the log kept moving (${attempt} attempts): ${result.message}`);
          }
          await this.sync();
          continue;
        case "fenced":
          this.lost = new SessionTakenOverError(this.sessionId, claim.epoch, result.currentEpoch);
          throw this.lost;
        case "not_found":
          this.claim = undefined;
          throw new TetherError(`session ${this.sessionId} is gone (erased?)`);
        case "rejected":
          throw new TetherError(
            `session ${this.sessionId}: the sequencer refused the batch (${result.status} ${result.code}${result.field === undefined ? "" : `, field ${result.field}`}): ${result.message}`,
          );
      }
    }
  }

  private fold(event: SessionEvent): void {
    if (event.seq !== this.last + 1) {
      throw new TetherError(`event ${event.seq} of ${this.sessionId} after ${this.last}: the log is read in order, without gaps`);
    }
    this.options.fold.add(event);
    this.last = event.seq;
  }

  private restart(): void {
    this.last = 0;
    this.claim = undefined;
    this.options.fold.reset();
  }
}

/** What a {@link SessionLog} folds its events into: the integration's view of the log. */
export interface SessionFold {
  /** The next event, in seq order, once. */
  add(event: SessionEvent): void;
  /** The session was erased (and maybe started again): forget everything; the new log follows from seq 1. */
  reset(): void;
}

export interface SessionLogOptions {
  /** This writer, as its claim names it. */
  readonly workerId: string;
  /** The harness version to claim the session as; default the session's own. */
  readonly harnessVersion?: string | undefined;
  /** What to create the session with when there is none (its `sessionId` is the log's). */
  readonly newSession: () => NewSession;
  readonly fold: SessionFold;
  /** Called after each read of the log caught up (e.g. to fetch offloaded content the fold needs). */
  readonly afterSync?: (() => Promise<void>) | undefined;
}

/** What a {@link SessionLog} asks of Tether; a `TetherClient` is one. */
export interface SessionLogPort {
  createSession(session: NewSession): Promise<CreateResult>;
  session(sessionId: string): Promise<SessionInfo | undefined>;
  claim(sessionId: string, claim: ClaimRequest): Promise<ClaimResult>;
  append(sessionId: string, batch: AppendBatch): Promise<AppendResult>;
  events(sessionId: string, fromSeq?: number, limit?: number): Promise<EventPage | undefined>;
}

/**
 * Another writer claimed the session after this one did: Tether fenced this one, and nothing it sends is appended, so
 * the session keeps one writer. Stop working on it here.
 */
export class SessionTakenOverError extends TetherError {
  override readonly name: string = "SessionTakenOverError";

  constructor(
    readonly sessionId: string,
    readonly epoch: number,
    readonly currentEpoch: number,
  ) {
    super(
      `session ${sessionId} was claimed by another writer (epoch ${currentEpoch}; this writer's was ${epoch}): ` +
        "Tether refused this write, so the session has one writer; stop working on it here",
    );
  }
}

const PAGE = 500;
const CONFLICT_RETRIES = 8;

/** An event this writer appended, as the log holds it (the sequencer changed nothing in it). */
function sent(sessionId: string, seq: number, eventId: string, event: NewEvent): SessionEvent {
  return Object.freeze({
    seq,
    eventId,
    type: event.type,
    sessionId,
    occurredAt: undefined,
    actor: { kind: "UNKNOWN", id: "" },
    harnessVersion: undefined,
    json: Object.freeze({ eventId, type: event.type, ...event.fields, seq, sessionId }),
  });
}
