import { MalformedAnswerError, TetherError } from "./errors.js";
import type { SessionEvent } from "./models.js";
import { RetryPolicy } from "./options.js";
import { failure } from "./outcomes.js";
import { LineSplitter, SseParser } from "./sse.js";
import { describeFailure, retryAfter, TimedOut, type Transport } from "./transport.js";
import { apiError, event as readEvent, parseJson } from "./wire.js";

/**
 * Receives a session's events from a {@link Subscription}: every event exactly once, in seq order, without gaps —
 * across reconnects too. Callbacks run one at a time; the next event waits until the promise a callback returns is
 * settled, so a slow listener slows only its own subscription. A listener that throws (or rejects) ends the
 * subscription (`failed`). Only `onEvent` is required.
 */
export interface SessionEventListener {
  /** The next event of the session. */
  onEvent(event: SessionEvent): void | Promise<void>;
  /** The stream broke (the service restarted, the network failed); the subscription reconnects from `lastSeq + 1`, with backoff. */
  onDisconnected?(lastSeq: number, cause: Error): void | Promise<void>;
  /** The stream is open (again): catch-up from `fromSeq`, then live. */
  onConnected?(fromSeq: number): void | Promise<void>;
  /** The subscription ended; no callback follows. */
  onEnd?(end: SubscriptionEnd): void | Promise<void>;
}

/**
 * Why a subscription ended: `closed` (the caller closed it, or the client was closed), `not_found` (the session does
 * not exist for the caller, or was erased), or `failed` (credentials refused, the listener threw, an answer the SDK
 * cannot read; `failure` says what).
 */
export type SubscriptionEnd =
  | { readonly reason: "closed"; readonly lastSeq: number }
  | { readonly reason: "not_found"; readonly lastSeq: number }
  | { readonly reason: "failed"; readonly failure: Error; readonly lastSeq: number };

/**
 * A live feed of one session's events (`GET /v1/sessions/{id}/events`, `Accept: text/event-stream`): catch-up from
 * the seq asked for, then each new event as the sequencer appends it. When the stream breaks it reconnects by itself
 * and resumes after the last seq delivered (`fromSeq` and `Last-Event-ID` both say so), so the listener sees every
 * event exactly once, in order; an event out of order is never delivered (the subscription reconnects instead).
 *
 * Open from creation until {@link close}, until the session turns out not to exist (or is erased), until the
 * listener throws, or until its client is closed. 5xx, 429 and network failures are retried for as long as it is open,
 * with the client's retry backoff (at least a 503's `Retry-After`; reset once a connection delivered something).
 */
export class Subscription {
  /** Settles (never rejects) with why the subscription ended. */
  readonly ended: Promise<SubscriptionEnd>;

  private closing = false;
  private current: AbortController | undefined;
  private wake: (() => void) | undefined;
  private last: number;
  /** The SSE id of the event delivered last, when it is that event's (`<seq>@<sessionStartedAt>`): sent back on reconnect. */
  private lastId: string | undefined;

  /** @internal Created by `TetherClient.subscribe`. */
  constructor(
    private readonly transport: Transport,
    readonly sessionId: string,
    fromSeq: number,
    private readonly listener: SessionEventListener,
    onEnd: (s: Subscription) => void,
    private readonly sessionStartedAt?: Date,
  ) {
    if (!Number.isSafeInteger(fromSeq) || fromSeq < 1) {
      throw new RangeError(`fromSeq starts at 1, not ${fromSeq}`);
    }
    this.last = fromSeq - 1;
    this.ended = this.run().finally(() => onEnd(this));
  }

  /** The last seq delivered to the listener; the starting seq minus one before the first event. */
  get lastSeq(): number {
    return this.last;
  }

  /** True until the subscription has ended. */
  get isOpen(): boolean {
    return !this.done;
  }

  private done = false;

  /**
   * Ends the subscription; idempotent. May be called from the listener itself (the current callback then returns
   * normally and no event follows) — there, do not await the promise it returns: the subscription ends only once the
   * callback has returned. Elsewhere, awaiting it (or {@link ended}) tells when it is over.
   */
  close(): Promise<SubscriptionEnd> {
    this.closing = true;
    this.current?.abort(new Closed());
    this.wake?.();
    return this.ended;
  }

  // -----------------------------------------------------------------------------------------------------------------

  private async run(): Promise<SubscriptionEnd> {
    let end: SubscriptionEnd;
    try {
      end = await this.loop();
    } catch (e) {
      const error = e instanceof ListenerFailed ? e.cause : e;
      end = this.closing && error instanceof Closed ? { reason: "closed", lastSeq: this.last } : { reason: "failed", failure: asError(error), lastSeq: this.last };
    }
    this.done = true;
    try {
      await this.listener.onEnd?.(end);
    } catch {
      // the subscription is over; a listener failing to hear so changes nothing
    }
    return Object.freeze(end);
  }

  private async loop(): Promise<SubscriptionEnd> {
    let failures = 0;
    while (!this.closing) {
      const next = this.last + 1;
      const start = this.sessionStartedAt === undefined ? "" : `&sessionStartedAt=${encodeURIComponent(this.sessionStartedAt.toISOString())}`;
      const url = `${this.transport.options.sessionsUrl}/v1/sessions/${encodeURIComponent(this.sessionId)}/events?fromSeq=${next}${start}`;
      const connection = new AbortController();
      this.current = connection;
      let response: Response;
      try {
        response = await this.transport.openStream(url, this.lastId ?? (next > 1 ? String(next - 1) : undefined), connection.signal);
      } catch (e) {
        if (this.closing) {
          break;
        }
        if (!(await this.disconnected(++failures, asError(e)))) {
          break;
        }
        continue;
      }
      if (response.status !== 200) {
        // the timeout bounds the error answer's body too: a body that never comes must not hold the subscription
        const bodyTimer = setTimeout(() => connection.abort(new TimedOut(this.transport.options.timeoutMs)), this.transport.options.timeoutMs);
        const body = await response.text().catch(() => "");
        clearTimeout(bodyTimer);
        const error = apiError(response.status, body.slice(0, 64 * 1024));
        if (response.status === 404) {
          return { reason: "not_found", lastSeq: this.last };
        }
        if (response.status >= 500 || response.status === 429) {
          if (!(await this.disconnected(++failures, new Error(`the service answered ${error.status} ${error.code}`), retryAfter(response)))) {
            break;
          }
          continue;
        }
        return { reason: "failed", failure: failure(`subscribing to session ${this.sessionId}`, error), lastSeq: this.last };
      }
      if (this.closing) {
        await response.body?.cancel().catch(() => undefined);
        break;
      }
      const before = this.last;
      let broken: Error;
      try {
        await this.callback(() => this.listener.onConnected?.(next)); // inside: a throw still releases the stream
        await this.read(response);
        broken = new Error("the service ended the stream");
      } catch (e) {
        if (e instanceof ListenerFailed || e instanceof MalformedAnswerError) {
          throw e; // not a broken stream: the subscription fails
        }
        broken = asError(e);
      } finally {
        this.current = undefined;
        connection.abort(new Closed());
      }
      if (this.closing) {
        break;
      }
      failures = this.last > before ? 1 : failures + 1; // a connection that delivered resets the backoff
      if (!(await this.disconnected(failures, broken))) {
        break;
      }
    }
    return { reason: "closed", lastSeq: this.last };
  }

  /** Delivers the stream's events until it ends; an event out of order ends it with an error (and a reconnect). */
  private async read(response: Response): Promise<void> {
    if (response.body === null) {
      return;
    }
    const parser = new SseParser();
    const lines = new LineSplitter();
    for await (const chunk of response.body) {
      for (const line of lines.push(chunk as Uint8Array)) {
        if (this.closing) {
          return;
        }
        const message = parser.line(line);
        if (message === undefined) {
          continue;
        }
        const event = readEvent(parseJson(message.data));
        const owed = this.last + 1;
        if (event.seq < owed) {
          continue; // delivered already
        }
        if (event.seq > owed) {
          throw new Error(`the stream skipped from seq ${this.last} to ${event.seq}; resuming after ${this.last}`);
        }
        await this.callback(() => this.listener.onEvent(event));
        this.last = event.seq;
        // the id names the event's session too: a reconnect after it was erased and another made under its id is a 404
        this.lastId = message.id !== undefined && message.id.startsWith(`${event.seq}@`) ? message.id : undefined;
        if (this.closing) {
          return;
        }
      }
    }
  }

  /** Tells the listener, then waits before the next attempt (the backoff, at least a 503's `Retry-After`); false when closed meanwhile. */
  private async disconnected(failures: number, cause: Error, retryAfterMs?: number): Promise<boolean> {
    if (this.closing) {
      return false;
    }
    await this.callback(() => this.listener.onDisconnected?.(this.last, cause));
    if (this.closing) {
      return false; // closed by the callback (or meanwhile): no backoff to sit out
    }
    // a policy that never waits (RetryPolicy.none(); one whose first wait is under a millisecond, as the Java SDK's
    // zero: zero doubled stays zero; one whose longest wait is under 2 ms, which the jitter halves to 0) is about
    // calls: a subscription reconnecting without a wait would spin
    const retry = this.transport.options.retry;
    const policy = retry.initialBackoffMs < 1 || retry.maxBackoffMs < 2 ? RetryPolicy.defaults() : retry;
    const wait = RetryPolicy.delay(policy, failures, retryAfterMs);
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, wait);
      this.wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
    this.wake = undefined;
    return !this.closing;
  }

  private async callback(call: () => void | Promise<void> | undefined): Promise<void> {
    try {
      await call();
    } catch (e) {
      throw new ListenerFailed(asError(e));
    }
  }
}

/** The reason a connection is aborted by {@link Subscription.close}. */
class Closed extends Error {
  override readonly name = "Closed";
  constructor() {
    super("the subscription was closed");
  }
}

/** A listener's own failure, carried past the loop's handling of broken streams. */
class ListenerFailed extends Error {
  override readonly cause: Error;
  constructor(cause: Error) {
    super(cause.message);
    this.cause = cause;
  }
}

function asError(e: unknown): Error {
  if (e instanceof Error && !(e instanceof TypeError && e.message === "fetch failed")) {
    return e;
  }
  return new TetherError(describeFailure(e), { cause: e });
}
