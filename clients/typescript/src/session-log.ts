import { TetherError } from "./errors.js";
import type { SessionEvent, SessionInfo, EventPage } from "./models.js";
import { eventIdOf, requireText } from "./ids.js";
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
 *   does every later one: nothing this writer sends is appended again. Every append carries the session's start the
 *   claim answered too: once the session is erased, even if another is made under its id and claimed at the same
 *   epoch, an append is refused (the session is gone) instead of written into the new one.
 * - **Optimistic appends.** {@link appendPlanned} appends at the last seq this writer knows (`expectedSeq`), so the
 *   seqs a plan refers to (`firstSeq` + its index) are the ones its events get. When the log moved meanwhile — an
 *   approval, a tool result, another process — the sequencer appends nothing and answers a conflict: the log is read
 *   again and the batch planned again, with the same step (so the same eventIds). One request when nothing moved.
 *   The events appended go to the fold as they were sent, unless the sequencer changed them (scrubbed a secret) or
 *   they were duplicates: then the log is read.
 * - **Group commit.** {@link enqueue} plans and folds a batch at once and sends it when no append of this log is in
 *   flight; batches planned while one is in flight are sent together when it is answered, as one append (one
 *   transaction, one commit marker, one compressed batch on the broker). A later plan builds on the events planned
 *   before it, folded before they are in the log; when an append is not accepted, the fold is rolled back to the
 *   last event appended ({@link SessionFold.rollback}) and what was not appended is planned again. Each batch keeps
 *   the eventIds of its own step, so how batches were grouped never changes what a resend finds.
 *
 * Not thread-safe by itself: run the work on one session through {@link exclusive}.
 */
export class SessionLog {
  /** The last seq folded: the last appended, and after it the events planned and not yet appended. */
  private last = 0;
  /** The last seq known to be in the log. */
  private appended = 0;
  /** The eventId at seq {@link appended}: a read checks it is still there (else the session was made again). */
  private appendedId: string | undefined;
  private claim: Claimed | undefined;
  private lost: SessionTakenOverError | undefined;
  private queue: Promise<unknown> = Promise.resolve();
  /** Batches planned and folded, not sent yet, in the order they were planned. */
  private waiting: Planned[] = [];
  /** The append in flight, if any: the batches it holds were planned before the waiting ones. */
  private flight: Flight | undefined;

  constructor(
    private readonly port: SessionLogPort,
    readonly sessionId: string,
    private readonly options: SessionLogOptions,
  ) {
    requireText(options.workerId, "workerId");
    this.claim = options.claim;
  }

  /** The last seq folded (0 before any), including events planned and not appended yet. */
  get lastSeq(): number {
    return this.last;
  }

  /** This writer's claim, once it made one. */
  get claimOf(): Claimed | undefined {
    return this.claim;
  }

  /** Whether nothing is planned and not yet appended: letting the log go loses nothing but what it read. */
  get idle(): boolean {
    return this.flight === undefined && this.waiting.length === 0 && this.last === this.appended;
  }

  /** Runs `work` after the work queued on this log before it (whether that failed or not). */
  exclusive<T>(work: () => Promise<T>): Promise<T> {
    const run = this.queue.then(work, work);
    this.queue = run.catch(() => undefined);
    return run;
  }

  /**
   * Waits until every batch planned is appended (or refused), then reads and folds what was appended since the last
   * seq folded; false if the session does not exist for the caller.
   */
  async sync(): Promise<boolean> {
    await this.drain();
    return this.read();
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
      if (this.appendedId === undefined && this.last === 0) {
        await this.sync(); // a claim made before this log was (SessionLogOptions.claim): read the log first
      }
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
   * first if need be), at the last seq it knows, and waits for it; see the class comment for conflicts. A plan of no
   * events appends nothing (and answers undefined). Holding {@link exclusive} while it waits, it is sent with no later
   * batch: {@link enqueue} is the one that groups.
   *
   * @throws SessionTakenOverError once another writer claimed the session
   * @throws TetherError when the session is gone or the sequencer refused the batch (its `apiError` the refusal, naming
   *   the field)
   */
  async appendPlanned(step: string, plan: Plan): Promise<Appended | undefined> {
    const { appended } = await this.enqueue(step, plan);
    await this.drain();
    return appended;
  }

  /**
   * Plans a batch now — against the log as this writer knows it, with the batches it planned before and has not
   * appended yet — folds it, and sends it with whatever else is planned until the append before it is answered (see
   * the class comment). Call it inside {@link exclusive} and await `appended` outside: while the caller holds the log,
   * nothing else can be planned to go with it. `appended` settles as {@link appendPlanned}'s answer would; its
   * `redactions` count the whole append the batch went with.
   *
   * @throws SessionTakenOverError once another writer claimed the session (and `appended` rejects with it after)
   */
  async enqueue(step: string, plan: Plan): Promise<{ readonly appended: Promise<Appended | undefined> }> {
    requireText(step, "step");
    await this.claimed();
    const planned = newPlanned(step, plan);
    if (!(await this.planAndFold(planned))) {
      return { appended: Promise.resolve(undefined) }; // nothing to change
    }
    this.waiting.push(planned);
    if (this.flight === undefined) {
      this.send();
    }
    return { appended: planned.answer };
  }

  /** Plans `planned` at the last seq folded and folds its events; false when it plans none. */
  private async planAndFold(planned: Planned): Promise<boolean> {
    const first = this.last + 1;
    const events = await planned.plan(first);
    planned.events = events.map((e, i) => (e.eventId === undefined ? Object.freeze({ ...e, eventId: eventIdOf(this.sessionId, planned.step, i) }) : e));
    planned.events.forEach((e, i) => this.fold(sent(this.sessionId, first + i, e.eventId!, e), true));
    return events.length > 0;
  }

  /** Sends the waiting batches — up to one that must go alone — as one append at the last seq appended. */
  private send(): void {
    const claim = this.claim;
    if (claim === undefined) {
      // the session was erased and started again while these were planned: they were for the old one
      fail(this.waiting.splice(0), new TetherError(`session ${this.sessionId} is gone (erased?)`));
      return;
    }
    const alone = this.waiting.findIndex((p, i) => i > 0 && p.alone);
    const group = this.waiting[0]!.alone ? this.waiting.splice(0, 1) : this.waiting.splice(0, alone === -1 ? this.waiting.length : alone);
    const batch: AppendBatch = {
      step: group[0]!.step,
      events: group.flatMap((p) => p.events),
      epoch: claim.epoch,
      sessionStartedAt: claim.sessionStartedAt,
      expectedSeq: this.appended,
    };
    const outcome = this.port.append(this.sessionId, batch).then(
      (result): Outcome => ({ result }),
      (error: unknown): Outcome => ({ error }),
    );
    const flight: Flight = { group, epoch: claim.epoch, outcome };
    this.flight = flight;
    void outcome.then(() => this.exclusive(() => this.settle(flight))).catch(() => undefined);
  }

  /** Waits for the append in flight and every one after it until none is left; inside {@link exclusive}. */
  private async drain(): Promise<void> {
    while (this.flight !== undefined) {
      await this.settle(this.flight);
    }
  }

  /**
   * Takes the answer to `flight` (once: the first caller does; inside {@link exclusive}) into the fold and settles its
   * batches; then sends what waits.
   */
  private async settle(flight: Flight): Promise<void> {
    if (this.flight !== flight) {
      return;
    }
    const outcome = await flight.outcome;
    this.flight = undefined;
    const group = flight.group;
    try {
      if (outcome.error !== undefined) {
        await this.rollBack();
        fail(group, outcome.error);
        await this.planAgain([]);
      } else {
        await this.answer(group, outcome.result!, flight.epoch);
      }
    } catch (e) {
      // the log could not be read again: nothing planned can go on what this writer knows
      fail([...group, ...this.waiting.splice(0)], e);
    }
    if (this.waiting.length > 0 && this.flight === undefined) {
      this.send();
    }
  }

  private async answer(group: readonly Planned[], result: AppendResult, epoch: number): Promise<void> {
    switch (result.kind) {
      case "appended": {
        const count = group.reduce((n, p) => n + p.events.length, 0);
        if (result.redactions > 0 || result.events.some((e) => e.duplicate)) {
          // what the log holds is not exactly what was folded: read it, and plan what waits on top of it
          await this.rollBack();
          await this.read();
          await this.planAgain([]);
        } else {
          this.appended += count;
          this.appendedId = group.flatMap((p) => p.events).at(-1)?.eventId ?? this.appendedId;
        }
        let at = 0;
        for (const p of group) {
          const n = p.events.length;
          p.settle({ ...result, events: result.events.slice(at, at + n), seqs: result.seqs.slice(at, at + n), allDuplicates: result.events.slice(at, at + n).every((e) => e.duplicate) });
          at += n;
        }
        return;
      }
      case "conflict": {
        const again = group.filter((p) => ++p.conflicts < CONFLICT_RETRIES);
        fail(group.filter((p) => !again.includes(p)), new TetherError(`session ${this.sessionId}: the log kept moving (${CONFLICT_RETRIES} attempts): ${result.message}`));
        await this.rollBack();
        await this.read();
        await this.planAgain(again);
        return;
      }
      case "fenced":
        this.lost = new SessionTakenOverError(this.sessionId, epoch, result.currentEpoch);
        await this.rollBack();
        fail([...group, ...this.waiting.splice(0)], this.lost);
        return;
      case "not_found":
        // the session claimed is gone: erased (and maybe made again under its id, which the start the append carried
        // tells apart). The fold is of no session there is now: whatever has the id is read from its start
        this.restart();
        fail([...group, ...this.waiting.splice(0)], new TetherError(`session ${this.sessionId} is gone (erased?)`));
        return;
      case "rejected":
        await this.rollBack();
        if (group.length > 1) {
          // one of them is refused: send each alone, so the others are appended and the refusal names its own batch
          group.forEach((p) => (p.alone = true));
          await this.planAgain(group);
        } else {
          const details = result.field === undefined ? {} : { field: result.field };
          fail(group, new TetherError(`session ${this.sessionId}: the sequencer refused the batch`, {
            apiError: Object.freeze({ status: result.status, code: result.code, message: result.message, details: Object.freeze(details) }),
          }));
          await this.planAgain([]);
        }
    }
  }

  /** Plans `first` and then the waiting batches again, in order, on the log as read (none of them is folded). */
  private async planAgain(first: readonly Planned[]): Promise<void> {
    const all = [...first, ...this.waiting.splice(0)];
    for (const p of all) {
      try {
        if (await this.planAndFold(p)) {
          this.waiting.push(p);
        } else {
          p.settle(undefined);
        }
      } catch (e) {
        p.fail(e);
      }
    }
  }

  /** Forgets the events folded after the last one appended (planned, and not in the log). */
  private async rollBack(): Promise<void> {
    if (this.last === this.appended) {
      return;
    }
    if (this.options.fold.rollback !== undefined) {
      this.options.fold.rollback(this.appended);
      this.last = this.appended;
    } else {
      this.last = 0;
      this.appended = 0;
      this.appendedId = undefined;
      this.options.fold.reset();
      await this.read();
    }
  }

  /** Reads and folds what was appended after the last seq folded (none folded is unappended); false if the session does not exist for the caller. */
  private async read(): Promise<boolean> {
    for (;;) {
      // from the last seq folded (which is in the log here), to see it is still the event this writer folded
      const page = await this.port.events(this.sessionId, Math.max(1, this.last), PAGE);
      if (page === undefined) {
        if (this.last > 0) {
          this.restart(); // erased meanwhile
        }
        return false;
      }
      let events = page.events;
      if (this.last > 0) {
        const known = events[0];
        if (page.lastSeq < this.last || known === undefined || known.seq !== this.last || (this.appendedId !== undefined && known.eventId !== this.appendedId)) {
          this.restart(); // erased and started again (shorter, as long or longer): read it from its start
          continue;
        }
        events = events.slice(1);
      }
      for (const event of events) {
        this.fold(event, false);
      }
      this.appended = this.last;
      this.appendedId = events.at(-1)?.eventId ?? this.appendedId;
      if (page.atEnd || events.length === 0) {
        await this.options.afterSync?.();
        return true;
      }
    }
  }

  private fold(event: SessionEvent, planned: boolean): void {
    if (event.seq !== this.last + 1) {
      throw new TetherError(`event ${event.seq} of ${this.sessionId} after ${this.last}: the log is read in order, without gaps`);
    }
    this.options.fold.add(event, planned);
    this.last = event.seq;
  }

  private restart(): void {
    this.last = 0;
    this.appended = 0;
    this.appendedId = undefined;
    this.claim = undefined;
    this.options.fold.reset();
  }
}

/** What a batch's plan is given: the seq its first event gets. */
export type Plan = (firstSeq: number) => Promise<readonly NewEvent[]> | readonly NewEvent[];

/** A batch planned: its events (eventIds fixed), and its caller's answer. */
interface Planned {
  readonly step: string;
  readonly plan: Plan;
  events: readonly NewEvent[];
  conflicts: number;
  /** Sent in an append of its own (its group was refused). */
  alone: boolean;
  readonly answer: Promise<Appended | undefined>;
  settle(appended: Appended | undefined): void;
  fail(error: unknown): void;
}

interface Flight {
  readonly group: readonly Planned[];
  readonly epoch: number;
  readonly outcome: Promise<Outcome>;
}

type Outcome = { readonly result?: AppendResult; readonly error?: unknown };

function newPlanned(step: string, plan: Plan): Planned {
  let settle!: (appended: Appended | undefined) => void;
  let fail!: (error: unknown) => void;
  const answer = new Promise<Appended | undefined>((resolve, reject) => {
    settle = resolve;
    fail = reject;
  });
  answer.catch(() => undefined); // its caller may look at it only later
  return { step, plan, events: [], conflicts: 0, alone: false, answer, settle, fail };
}

function fail(planned: readonly Planned[], error: unknown): void {
  planned.forEach((p) => p.fail(error));
}

/** What a {@link SessionLog} folds its events into: the integration's view of the log. */
export interface SessionFold {
  /**
   * The next event, in seq order, once. `planned`: the event is this writer's, folded as it planned it and not appended
   * yet (a rollback may take it back, and a batch planned again may hold another event under its eventId at its seq);
   * false for an event read from the log.
   */
  add(event: SessionEvent, planned: boolean): void;
  /** The session was erased (and maybe started again): forget everything; the new log follows from seq 1. */
  reset(): void;
  /**
   * Forget the events after `seq`: they were folded when planned, and the append that carried them was not accepted.
   * Without it, a refused group append resets the fold and reads the log again from its start.
   */
  rollback?(seq: number): void;
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
  /**
   * The claim this writer made before, when its log is made again (the integration let the last one go, to bound its
   * memory): this writer's claim from the start, the log read before anything is planned on it. A session taken over
   * or erased meanwhile is found out as it would have been (fenced, not found).
   */
  readonly claim?: Claimed | undefined;
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
    json: Object.freeze({ ...event.fields, eventId, type: event.type, seq, sessionId }),
  });
}
