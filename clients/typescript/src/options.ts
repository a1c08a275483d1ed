/**
 * Where the Tether services are and how to talk to them, and how patiently failed calls are repeated.
 *
 * @module
 */

/**
 * How often, and how patiently, the SDK repeats a call that failed on the way: the service was unreachable, the
 * connection broke, the request timed out, or the service answered 502, 503 or 504 (a 503's `Retry-After` of up to a minute is
 * honoured). The wait doubles from `initialBackoffMs` up to `maxBackoffMs`, with jitter (each wait is between half and
 * all of the backoff). The Java SDK's `RetryPolicy`, the same defaults.
 *
 * Only calls that are safe to repeat are ever retried, whatever the policy says: reads; appends (every event carries a
 * deterministic eventId, and the sequencer answers a re-sent one with its original seq); session creation (the SDK
 * picks the session's id and derives its first eventId from the request); claims (a request id). An approval decision
 * is never retried: when its answer is lost the SDK says the outcome is unknown. Subscriptions reconnect for as long as
 * they are open, with the same backoff.
 */
export interface RetryPolicy {
  /** Attempts in all, at least 1 (1: no retry). */
  readonly maxAttempts: number;
  /** The first wait, in ms, not negative. */
  readonly initialBackoffMs: number;
  /** The longest wait, in ms, at least `initialBackoffMs` and at most 2^31 - 1 (what a Node timer can wait). */
  readonly maxBackoffMs: number;
}

export const RetryPolicy = {
  /** Eight attempts, waiting 0.2 s, 0.4 s, 0.8 s … up to 5 s between them: about 16 s in all, enough to ride out a restart of the sequencer. */
  defaults(): RetryPolicy {
    return Object.freeze({ maxAttempts: 8, initialBackoffMs: 200, maxBackoffMs: 5_000 });
  },

  /** One attempt: every failure reaches the caller at once. Subscriptions still reconnect, with the defaults' backoff. */
  none(): RetryPolicy {
    return Object.freeze({ maxAttempts: 1, initialBackoffMs: 0, maxBackoffMs: 0 });
  },

  /** A policy of its own; validated as the Java SDK validates it. */
  of(maxAttempts: number, initialBackoffMs: number, maxBackoffMs: number): RetryPolicy {
    if (!Number.isInteger(maxAttempts) || maxAttempts < 1) {
      throw new RangeError(`maxAttempts must be an integer of at least 1, not ${maxAttempts}`);
    }
    if (!(initialBackoffMs >= 0)) {
      throw new RangeError("initialBackoffMs must not be negative");
    }
    if (!(maxBackoffMs >= initialBackoffMs)) {
      throw new RangeError(`maxBackoffMs (${maxBackoffMs}) must be at least initialBackoffMs (${initialBackoffMs})`);
    }
    if (!(maxBackoffMs <= MAX_TIMER_MS)) {
      throw new RangeError(`maxBackoffMs (${maxBackoffMs}) must be at most ${MAX_TIMER_MS}, the longest a Node timer waits`);
    }
    return Object.freeze({ maxAttempts, initialBackoffMs, maxBackoffMs });
  },

  /** The wait after the `failures`-th failure in a row, before jitter: `initialBackoffMs × 2^(failures-1)`, at most `maxBackoffMs`. */
  backoff(policy: RetryPolicy, failures: number): number {
    if (failures < 1) {
      throw new RangeError("failures start at 1");
    }
    let ms = policy.initialBackoffMs;
    for (let i = 1; i < failures && ms < policy.maxBackoffMs; i++) {
      ms *= 2;
    }
    return Math.min(ms, policy.maxBackoffMs);
  },

  /** The wait before attempt `failures + 1`: the backoff with jitter (half of it plus up to half again), at least a 503's Retry-After. */
  delay(policy: RetryPolicy, failures: number, retryAfterMs?: number, random: () => number = Math.random): number {
    const base = Math.floor(RetryPolicy.backoff(policy, failures));
    const half = Math.floor(base / 2);
    const jittered = half + (base > 1 ? Math.floor(random() * (half + 1)) : 0);
    return Math.max(jittered, retryAfterMs ?? 0);
  },
} as const;

/** What a {@link TetherClient} is created with. Only the token is needed against a local `bin/run`. */
export interface TetherClientOptions {
  /** The session-service's base URL (sessions, events, claims, subscriptions). Default `http://127.0.0.1:8080`. */
  readonly sessionsUrl?: string;
  /** The projector-service's base URL (checkpoints, context, recovery reports, call records). Default `http://127.0.0.1:8081`. */
  readonly projectorUrl?: string;
  /** The approval-service's base URL (approvals). Default `http://127.0.0.1:8082`. */
  readonly approvalsUrl?: string;
  /** The bearer token every request carries: a JWT, or a dev key such as `dev-acme-agent`. Without one every service answers 401. */
  readonly token?: string;
  /**
   * How long one attempt may take, in ms (at most 2^31 - 1), default 30 000: connecting, sending and the whole answer of an ordinary call;
   * for a subscription, until the stream opens (an open stream may stay quiet for as long as the session does).
   */
  readonly timeoutMs?: number;
  /** How calls that are safe to repeat are retried; default {@link RetryPolicy.defaults}. */
  readonly retry?: RetryPolicy;
}

/** The local `bin/run`'s services. */
export const LOCAL_SESSIONS = "http://127.0.0.1:8080";
export const LOCAL_PROJECTOR = "http://127.0.0.1:8081";
export const LOCAL_APPROVALS = "http://127.0.0.1:8082";
export const DEFAULT_TIMEOUT_MS = 30_000;
/** The longest a Node timer waits (2^31 - 1 ms); it fires after 1 ms when asked for longer. */
export const MAX_TIMER_MS = 2_147_483_647;

/** Options with every default filled in and every value checked. */
export interface ResolvedOptions {
  readonly sessionsUrl: string;
  readonly projectorUrl: string;
  readonly approvalsUrl: string;
  readonly token: string | undefined;
  readonly timeoutMs: number;
  readonly retry: RetryPolicy;
}

/** Checks and completes the options, as the Java SDK's `TetherOptions` does. */
export function resolveOptions(options: TetherClientOptions = {}): ResolvedOptions {
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  if (!(timeoutMs > 0) || timeoutMs > MAX_TIMER_MS) {
    // a Node timer fires after 1 ms for anything longer: every attempt would time out at once
    throw new RangeError(`timeoutMs must be positive and at most ${MAX_TIMER_MS} (about 24.8 days), not ${timeoutMs}`);
  }
  const retry = options.retry ?? RetryPolicy.defaults();
  RetryPolicy.of(retry.maxAttempts, retry.initialBackoffMs, retry.maxBackoffMs); // validates a hand-made one
  return Object.freeze({
    sessionsUrl: baseUrl(options.sessionsUrl ?? LOCAL_SESSIONS, "sessionsUrl"),
    projectorUrl: baseUrl(options.projectorUrl ?? LOCAL_PROJECTOR, "projectorUrl"),
    approvalsUrl: baseUrl(options.approvalsUrl ?? LOCAL_APPROVALS, "approvalsUrl"),
    token: options.token === undefined ? undefined : token(options.token),
    timeoutMs,
    retry,
  });
}

function token(value: string): string {
  if (value.trim() === "") {
    throw new TypeError("the token must not be blank");
  }
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c <= 0x20 || c >= 0x7f) {
      throw new TypeError(`the token must be printable ASCII without spaces (character ${i} is not)`);
    }
  }
  return value;
}

function baseUrl(text: string, name: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new TypeError(`${name} must be an absolute http or https URL, not ${text}`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new TypeError(`${name} must be an absolute http or https URL, not ${text}`);
  }
  if (url.search !== "" || url.hash !== "" || text.includes("?") || text.includes("#")) {
    throw new TypeError(`${name} must be a base URL without query or fragment, not ${text}`);
  }
  if (url.username !== "" || url.password !== "") {
    throw new TypeError(`${name} must not carry credentials; use the token option`);
  }
  return url.toString().replace(/\/+$/, "");
}
