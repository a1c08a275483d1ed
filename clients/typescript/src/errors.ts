/**
 * A service's error answer: the HTTP status and the JSON body every Tether service sends,
 * `{"error": code, "message": ..., ...details}`. Codes are stable snake_case strings (`invalid_field`, `seq_conflict`,
 * `stale_epoch`, `version_pinned`, `illegal_event`, `session_closed`, `budget_exceeded`, `not_found`, `unauthorized`,
 * `forbidden`, `too_large`, `unavailable` …); a body that is not such JSON (a proxy's page) reads as code `http_<status>`,
 * its title or first words (up to 200 characters) the message.
 */
export interface ApiError {
  readonly status: number;
  readonly code: string;
  /** The explanation; possibly empty. */
  readonly message: string;
  /** The other fields of the body (`field`, `lastSeq`, `epoch` …): strings, numbers or booleans; objects as JSON text. */
  readonly details: Readonly<Record<string, string | number | boolean>>;
}

/**
 * A call that ended without one of its typed outcomes: the service could not be reached (after the retries the call
 * allows), the credentials were refused (401), the service failed (5xx), or it answered something the SDK cannot read.
 * Business outcomes — a conflict, a fenced worker, a missing session, a refused field — are never thrown; they are the
 * call's result.
 *
 * When a call that is never retried (an approval decision) loses its answer, {@link outcomeUnknown} is true: it may or
 * may not have taken effect; read the item to learn which.
 */
export class TetherError extends Error {
  override readonly name: string = "TetherError";
  /** The service's error answer; undefined when there was none (unreachable, timed out, unreadable). */
  readonly apiError: ApiError | undefined;
  /** True when the request may have been carried out although no answer arrived. */
  readonly outcomeUnknown: boolean;

  constructor(message: string, options: { apiError?: ApiError; outcomeUnknown?: boolean; cause?: unknown } = {}) {
    super(options.apiError === undefined ? message : `${message}: ${describe(options.apiError)}`, { cause: options.cause });
    this.apiError = options.apiError;
    this.outcomeUnknown = options.outcomeUnknown ?? false;
  }
}

/**
 * Thrown by the `…OrThrow` helpers (`appendedOrThrow(result)` …) when the outcome was not the one the caller counted
 * on. Handy in scripts and tests; a worker that must react to each outcome switches on `result.kind` instead.
 */
export class UnexpectedOutcomeError extends TetherError {
  override readonly name: string = "UnexpectedOutcomeError";
  /** The result the call returned, e.g. a `Conflict`. */
  readonly outcome: { readonly kind: string };

  constructor(outcome: { readonly kind: string }) {
    super(`unexpected outcome: ${outcome.kind}${"message" in outcome && typeof outcome.message === "string" ? ` (${outcome.message})` : ""}`);
    this.outcome = outcome;
  }
}

/** The answer the SDK cannot read (not JSON, a required field missing): a bug on one side, never retried. */
export class MalformedAnswerError extends TetherError {
  override readonly name: string = "MalformedAnswerError";
}

/** `409 seq_conflict: expectedSeq 1 but … {lastSeq=3}`, for messages. */
export function describe(error: ApiError): string {
  const details = Object.entries(error.details);
  return `${error.status} ${error.code}${error.message === "" ? "" : `: ${error.message}`}${
    details.length === 0 ? "" : ` {${details.map(([k, v]) => `${k}=${String(v)}`).join(", ")}}`
  }`;
}
