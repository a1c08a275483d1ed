import type { IncomingMessage, ServerResponse } from "node:http";
import type { Claimed } from "../src/index.js";
import type { FakeServer } from "./fake-server.js";

/** An event as the fake log holds it: the envelope and the payload fields, as the session-service returns them. */
export type LoggedEvent = Record<string, unknown> & { seq: number; eventId: string; type: string };

/**
 * One session's log behind a {@link FakeServer}, for unit tests of the harness tool runner — the Java SDK's
 * `FakeSessionLog`: the session-service's events page, its SSE stream (catch-up, then live, as appends arrive) and its
 * append with the rules the runner relies on — a batch carrying another start than the session's is 404 `not_found`
 * (the session of that start was erased), an eventId already in the log is a duplicate answered with its original seq,
 * and a batch with a stale epoch is 409 `stale_epoch`. Tests add the services' events themselves
 * ({@link add}) and may refuse an append ({@link refuseNext}, {@link refuseEvery}), lose its answer
 * ({@link loseTheAnswerToTheNext}), answer it 503 ({@link unavailableFor}) or react to one ({@link onAppend}).
 * Requests the log does not serve (a checkpoint) get the server's scripted answers. Not the sequencer: the IT runs that.
 */
export class FakeSessionLog {
  readonly events: LoggedEvent[] = [];
  private readonly seqById = new Map<string, number>();
  private epoch = 1;
  /** The session's start: the occurredAt text of its seq 1. */
  private startedAt: string;
  private refusal: (e: Record<string, unknown>) => string | undefined = () => undefined;
  private refuseAlways = false;
  private appendListener: (e: LoggedEvent) => void = () => undefined;
  private loseAnswerTo: string | undefined;
  private unavailable: string | undefined;
  private readonly waiters = new Set<() => void>();
  /** Whether a live stream (SSE) has been asked for. */
  streams = 0;
  /** The live streams (SSE) open now: a stream counts until its client closes it or it ends. */
  openStreams = 0;

  /**
   * The log of a session that started at `startedAt` (its seq 1, `session_started`: the occurredAt text the service
   * answers) and was claimed by worker-1 (seq 2). A session made again under an erased one's id is a new log of the same
   * id with a later `startedAt` ({@link eraseAndStartAgain}).
   */
  constructor(
    readonly sessionId: string,
    private readonly server: FakeServer,
    startedAt = "2026-12-01T08:46:49.377Z",
  ) {
    server.otherwise((req, res) => this.answer(req, res));
    this.startedAt = startedAt;
    this.start("worker-1");
  }

  /** The log is exactly these events from now on (e.g. a log the Java SDK's golden generator ran against). */
  replaceWith(events: readonly Record<string, unknown>[]): void {
    this.events.length = 0;
    this.seqById.clear();
    for (const e of events) {
      this.events.push(structuredClone(e) as LoggedEvent);
      this.seqById.set(e.eventId as string, e.seq as number);
    }
    this.startedAt = String(this.events[0]?.occurredAt ?? this.startedAt);
  }

  /**
   * The session is erased and made again under its id, starting at `startedAt`, and claimed by worker-2 at epoch 1: its
   * seqs and epochs repeat the erased one's, and an append carrying the erased one's start is 404 `not_found`.
   */
  eraseAndStartAgain(startedAt: string): void {
    this.events.length = 0;
    this.seqById.clear();
    this.epoch = 1;
    this.startedAt = startedAt;
    this.start("worker-2");
  }

  /**
   * A claim of the log's current epoch whose event is the log's last one, with the session's start as the
   * session-service answers it; `{ withStart: false }`: without it, as a service before it answered.
   */
  claimed(options: { readonly withStart?: boolean } = {}): Claimed {
    const last = this.events.length;
    return Object.freeze({
      kind: "claimed",
      sessionId: this.sessionId,
      workerId: "worker-1",
      epoch: this.epoch,
      resumeReason: undefined,
      resumed: false,
      lastSeq: last,
      nextSeq: last + 1,
      sessionStartedAt: options.withStart === false ? undefined : new Date(this.startedAt),
    });
  }

  /** Another worker claims the session: later appends with an older epoch are 409 stale_epoch. */
  claimByAnother(): void {
    this.epoch++;
    this.add("session_claimed", "SYSTEM", { workerId: "worker-2", epoch: this.epoch, harnessVersion: "v1" });
  }

  /** Appends an event as a service or the agent would; its seq. */
  add(type: string, actorKind: string, fields: Record<string, unknown>, eventId?: string): number {
    const seq = this.events.length + 1;
    const agentSide = actorKind === "SYSTEM" || actorKind === "TOOL" || actorKind === "MODEL";
    this.events.push({
      seq,
      eventId: eventId ?? `srv-${seq}`,
      type,
      sessionId: this.sessionId,
      occurredAt: new Date().toISOString(),
      actor: { kind: actorKind, id: agentSide ? "acme-agent" : "acme-approver" },
      harnessVersion: "v1",
      ...structuredClone(fields),
    });
    for (const wake of [...this.waiters]) {
      wake();
    }
    return seq;
  }

  /** The assistant message asking for one call; its seq. */
  ask(callId: string, tool: string, argumentsJson = "{}"): number {
    return this.add("assistant_message", "MODEL", {
      content: "calling",
      toolCalls: [{ callId, tool, argumentsJson }],
      usage: { inputTokens: 1, outputTokens: 1 },
    });
  }

  authorize(callId: string): number {
    return this.add("tool_call_authorized", "SYSTEM", { callId, basis: { kind: "POLICY" } });
  }

  /** The next append whose first event `refuse` answers a message for is refused 400 illegal_event with that message. */
  refuseNext(refuse: (e: Record<string, unknown>) => string | undefined): void {
    this.refusal = refuse;
    this.refuseAlways = false;
  }

  /** Every append whose first event `refuse` answers a message for is refused 400 illegal_event. */
  refuseEvery(refuse: (e: Record<string, unknown>) => string | undefined): void {
    this.refusal = refuse;
    this.refuseAlways = true;
  }

  /** The next append holding an event of `type` is appended, and its answer lost: the connection closes unanswered. */
  loseTheAnswerToTheNext(type: string): void {
    this.loseAnswerTo = type;
  }

  /** Every append holding an event of `type` is answered 503 and not appended (the sequencer unreachable); undefined: none. */
  unavailableFor(type: string | undefined): void {
    this.unavailable = type;
  }

  /** Called (in the append, before it is answered) with each event the client appended. */
  onAppend(listener: (e: LoggedEvent) => void): void {
    this.appendListener = listener;
  }

  ofType(type: string): LoggedEvent[] {
    return this.events.filter((e) => e.type === type);
  }

  /** Seq 1, `session_started` at the session's start, and seq 2, `worker`'s claim at epoch 1. */
  private start(worker: string): void {
    this.add("session_started", "USER", { objective: "Pay the invoice", toolMode: "WRITE" });
    this.events[0]!.occurredAt = this.startedAt;
    this.add("session_claimed", "SYSTEM", { workerId: worker, epoch: 1, harnessVersion: "v1" });
  }

  private async answer(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", "http://fake");
    if (url.pathname !== `/v1/sessions/${this.sessionId}/events`) {
      return respond(res, 404, '{"error":"not_found","message":"session not found"}');
    }
    const fromSeq = Number(url.searchParams.get("fromSeq") ?? "1");
    if (req.method === "POST") {
      // the server read the body before the script ran, and recorded it last (nothing awaits in between)
      return this.append(res, this.server.seen.at(-1)!.body);
    }
    if (req.headers.accept === "text/event-stream") {
      return this.stream(res, fromSeq);
    }
    const limit = Number(url.searchParams.get("limit") ?? "500");
    const events = this.events.slice(fromSeq - 1, fromSeq - 1 + limit);
    respond(res, 200, JSON.stringify({ events, lastSeq: this.events.length, nextSeq: fromSeq + events.length }));
  }

  private async stream(res: ServerResponse, fromSeq: number): Promise<void> {
    this.streams++;
    this.openStreams++;
    res.writeHead(200, { "Content-Type": "text/event-stream" });
    res.flushHeaders();
    let next = fromSeq;
    let open = true;
    res.on("close", () => {
      if (open) {
        this.openStreams--;
      }
      open = false;
      wake();
    });
    let wake: () => void = () => undefined;
    const end = Date.now() + 20_000;
    while (open && Date.now() < end) {
      while (next <= this.events.length && open) {
        const e = this.events[next - 1]!;
        res.write(`id:${next}\nevent:${e.type}\ndata:${JSON.stringify(e)}\n\n`);
        next++;
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, 100);
        function done(): void {
          clearTimeout(timer);
          resolve();
        }
        wake = done;
        this.waiters.add(done);
      }).finally(() => this.waiters.delete(wake));
    }
    res.end();
  }

  private append(res: ServerResponse, body: string): void {
    const batch = JSON.parse(body) as { events: Record<string, unknown>[]; epoch?: number; sessionStartedAt?: string };
    const proposed = batch.events;
    if (this.unavailable !== undefined && proposed.some((e) => e.type === this.unavailable)) {
      return respond(res, 503, JSON.stringify({ error: "unavailable", message: "no verdict in time" }));
    }
    // compared in epoch ms, as the sequencer compares them
    if (batch.sessionStartedAt !== undefined && Date.parse(batch.sessionStartedAt) !== Date.parse(this.startedAt)) {
      return respond(res, 404, JSON.stringify({ error: "not_found", message: `the session that started at ${batch.sessionStartedAt} was erased` }));
    }
    const refused = this.refusal(proposed[0]!);
    const allKnown = proposed.every((e) => this.seqById.has(e.eventId as string));
    if (allKnown) {
      return respond(res, 200, this.answered(proposed, true));
    }
    if (batch.epoch !== undefined && batch.epoch !== this.epoch) {
      return respond(res, 409, JSON.stringify({ error: "stale_epoch", message: `epoch ${batch.epoch} is stale`, epoch: this.epoch }));
    }
    if (refused !== undefined) {
      if (!this.refuseAlways) {
        this.refusal = () => undefined;
      }
      return respond(res, 400, JSON.stringify({ error: "illegal_event", message: refused, field: "events[0]" }));
    }
    for (const p of proposed) {
      const { eventId, type, ...fields } = p as { eventId: string; type: string };
      const seq = this.add(type, type === "assistant_message" ? "MODEL" : "TOOL", fields, eventId);
      this.seqById.set(eventId, seq);
      this.appendListener(this.events[seq - 1]!);
    }
    if (this.loseAnswerTo !== undefined && proposed.some((e) => e.type === this.loseAnswerTo)) {
      this.loseAnswerTo = undefined;
      res.destroy(); // appended; the answer never reaches the client
      return;
    }
    respond(res, 200, this.answered(proposed, false));
  }

  private answered(proposed: Record<string, unknown>[], duplicate: boolean): string {
    return JSON.stringify({
      appended: proposed.map((e) => ({ eventId: e.eventId, seq: this.seqById.get(e.eventId as string), duplicate })),
      lastSeq: this.events.length,
    });
  }
}

function respond(res: ServerResponse, status: number, body: string): void {
  res.writeHead(status, { "Content-Type": "application/json" });
  res.end(body);
}
