import { setMaxListeners } from "node:events";
import { setTimeout as sleep } from "node:timers/promises";
import { TetherError } from "./errors.js";
import { javaUtf8 } from "./ids.js";
import { jsonText, type JsonValue } from "./json-text.js";
import { RetryPolicy, type ResolvedOptions } from "./options.js";
import { apiError } from "./wire.js";

/**
 * HTTP for the SDK — the Java SDK's `Transport`: Node's own `fetch`, the bearer token on every request, JSON bodies
 * (Jackson's text, Java's UTF-8, so the bytes are the Java SDK's), a timeout per attempt, and the retry loop for calls
 * marked `safe`. Not part of the API.
 *
 * @module
 */

/** Whether a call may be sent again when its answer is lost: `safe` (a read, an idempotent write) or `never`. */
export type Retry = "safe" | "never";

/** A service's answer: its status, its body, and a 503's `Retry-After`. */
export interface Answer {
  readonly status: number;
  readonly body: string;
  readonly retryAfterMs: number | undefined;
}

export function ok(answer: Answer): boolean {
  return answer.status >= 200 && answer.status < 300;
}

const USER_AGENT = "tether-client-ts/0.1";
/** Error codes of a connection that was never made: the request cannot have arrived. */
const NEVER_CONNECTED = new Set(["ECONNREFUSED", "ENOTFOUND", "EAI_AGAIN", "EHOSTUNREACH", "ENETUNREACH", "UND_ERR_CONNECT_TIMEOUT"]);

export class Transport {
  /** Aborted by {@link close}: ends every wait between attempts. */
  private readonly closing = new AbortController();

  constructor(readonly options: ResolvedOptions) {
    // every call waiting to retry listens to it, and any number may: past 10 Node would warn of a leak that is none
    setMaxListeners(0, this.closing.signal);
  }

  /** Ends the retries: a call waiting to try again ends at once with its last failure, and none tries again. */
  close(): void {
    this.closing.abort();
  }

  /** Waits `ms`; false, at once, when the transport is closed (or is closed meanwhile). */
  private async pause(ms: number): Promise<boolean> {
    try {
      await sleep(ms, undefined, { signal: this.closing.signal });
      return true;
    } catch {
      return false; // aborted: sleep has no other failure
    }
  }

  get(url: string): Promise<Answer> {
    return this.send("GET", url, undefined, "safe");
  }

  /**
   * Sends the request; retries it per the policy when it is `safe` and failed on the way or got 502/503/504. Every
   * attempt sends the same bytes.
   *
   * @throws TetherError when no answer came (after the retries allowed)
   */
  async send(method: string, url: string, body: JsonValue | undefined, retry: Retry): Promise<Answer> {
    const bytes = body === undefined ? undefined : javaUtf8(jsonText(body, "the request body"));
    const headers: Record<string, string> = { ...this.headers(), Accept: "application/json" };
    if (bytes !== undefined) {
      headers["Content-Type"] = "application/json";
    }
    const policy = this.options.retry;
    const attempts = retry === "safe" ? policy.maxAttempts : 1;
    const what = `${method} ${new URL(url).pathname}`;
    for (let attempt = 1; ; attempt++) {
      const timeout = new AbortController();
      const timer = setTimeout(() => timeout.abort(new TimedOut(this.options.timeoutMs)), this.options.timeoutMs);
      try {
        const response = await fetch(url, {
          method,
          headers,
          redirect: "manual",
          signal: timeout.signal,
          ...(bytes === undefined ? {} : { body: bytes }),
        });
        const answer: Answer = { status: response.status, body: await bodyText(response), retryAfterMs: retryAfter(response) };
        if (transient5xx(answer.status) && attempt < attempts && (await this.pause(RetryPolicy.delay(policy, attempt, answer.retryAfterMs)))) {
          continue;
        }
        return answer;
      } catch (e) {
        if (attempt < attempts && (await this.pause(RetryPolicy.delay(policy, attempt)))) {
          continue;
        }
        const reason = describeFailure(e);
        const closed = this.closing.signal.aborted ? " (the client was closed)" : "";
        throw retry === "safe" || neverConnected(e)
          ? new TetherError(`${what} failed after ${attempt} attempt(s)${closed}: ${reason}`, { cause: e })
          : new TetherError(
              `${what} got no answer (${reason}); not retried, since repeating it is not safe: it may or may not have taken effect`,
              { cause: e, outcomeUnknown: true },
            );
      } finally {
        clearTimeout(timer);
      }
    }
  }

  /**
   * Opens a server-sent-event stream. The timeout bounds only the wait for the answer's headers; the body then stays
   * open for as long as the service keeps it, or until `signal` aborts.
   */
  async openStream(url: string, lastEventId: string | undefined, signal: AbortSignal): Promise<Response> {
    const headers: Record<string, string> = { ...this.headers(), Accept: "text/event-stream" };
    if (lastEventId !== undefined) {
      headers["Last-Event-ID"] = lastEventId;
    }
    // the timeout ends once the headers are in; `signal` can abort the stream for as long as it is read
    // (linked by hand: AbortSignal.any needs Node 20.3)
    const controller = new AbortController();
    const abort = () => controller.abort(signal.reason);
    if (signal.aborted) {
      abort();
    }
    signal.addEventListener("abort", abort, { once: true });
    const timer = setTimeout(() => controller.abort(new TimedOut(this.options.timeoutMs)), this.options.timeoutMs);
    try {
      return await fetch(url, { method: "GET", headers, redirect: "manual", signal: controller.signal });
    } catch (e) {
      signal.removeEventListener("abort", abort);
      throw e;
    } finally {
      clearTimeout(timer);
    }
  }

  private headers(): Record<string, string> {
    const headers: Record<string, string> = { "User-Agent": USER_AGENT };
    if (this.options.token !== undefined) {
      headers.Authorization = `Bearer ${this.options.token}`;
    }
    return headers;
  }
}

/** The reason an attempt was aborted when it took longer than the timeout. */
export class TimedOut extends Error {
  override readonly name = "TimedOut";
  constructor(ms: number) {
    super(`no answer within ${ms} ms`);
  }
}

/** The error body of an answer that is not 2xx. */
export function errorOf(answer: Answer) {
  return apiError(answer.status, answer.body);
}

/**
 * The answer's body as text, as the bytes say it: UTF-8 with a leading byte order mark kept (`Response.text()` drops
 * it), as Java's decoder keeps it — an offloaded text is the blob's bytes, which its sha256 names.
 */
async function bodyText(response: Response): Promise<string> {
  return new TextDecoder("utf-8", { ignoreBOM: true }).decode(await response.arrayBuffer());
}

function transient5xx(status: number): boolean {
  return status === 502 || status === 503 || status === 504;
}

/** The longest `Retry-After` honoured, in seconds: a longer one (a proxy's hour, a day) is the backoff's to decide. */
const MAX_RETRY_AFTER_S = 60;

/** A 503's (or 429's) `Retry-After` in ms, up to {@link MAX_RETRY_AFTER_S}; undefined otherwise. */
export function retryAfter(response: Response): number | undefined {
  const value = response.headers.get("Retry-After");
  if (value === null || !/^\s*\d+\s*$/.test(value)) {
    return undefined; // absent, or an HTTP date: the backoff decides
  }
  const seconds = Number(value.trim());
  // longer, the call would hang for as long, or past a Node timer's 2^31-1 ms not at all (the timer fires at once)
  return seconds <= MAX_RETRY_AFTER_S ? seconds * 1000 : undefined;
}

function neverConnected(e: unknown): boolean {
  const code = (e as { cause?: { code?: unknown } })?.cause?.code;
  return typeof code === "string" && NEVER_CONNECTED.has(code);
}

export function describeFailure(e: unknown): string {
  if (e instanceof TimedOut) {
    return e.message;
  }
  const cause = (e as { cause?: unknown })?.cause;
  if (cause instanceof TimedOut) {
    return cause.message;
  }
  const code = (cause as { code?: unknown } | undefined)?.code;
  const message = e instanceof Error ? e.message : String(e);
  return typeof code === "string" ? `${message} (${code})` : cause instanceof Error ? `${message}: ${cause.message}` : message;
}
