import { MalformedAnswerError, TetherError, type ApiError } from "./errors.js";
import type { AlreadyDecided, AppendResult, ClaimResult, DecisionResult, NotFound, Rejected } from "./results.js";

/**
 * Error answers mapped to the typed outcomes each call can meet — the Java SDK's `Outcomes`; what is no outcome (401,
 * 5xx, an unexpected status) becomes a {@link TetherError}. Not part of the API.
 *
 * @module
 */

export const SEQ_CONFLICT = "seq_conflict";
export const STALE_EPOCH = "stale_epoch";
export const VERSION_PINNED = "version_pinned";

/** An append's refusal: `conflict`, `fenced`, `not_found` or `rejected`. */
export function appendRefusal(e: ApiError): AppendResult {
  if (e.status === 409 && e.code === SEQ_CONFLICT) {
    return Object.freeze({ kind: "conflict", lastSeq: detail(e, "lastSeq"), message: e.message });
  }
  if (e.status === 409 && e.code === STALE_EPOCH) {
    return Object.freeze({ kind: "fenced", currentEpoch: detail(e, "epoch"), message: e.message });
  }
  return e.status === 404 ? notFound(e) : rejected(e);
}

/** A claim's refusal: `version_pinned`, `fenced` (a retried claim that was superseded), `not_found` or `rejected`. */
export function claimRefusal(e: ApiError): ClaimResult {
  if (e.status === 409 && e.code === VERSION_PINNED) {
    return Object.freeze({ kind: "version_pinned", message: e.message });
  }
  if (e.status === 409 && e.code === STALE_EPOCH) {
    return Object.freeze({ kind: "fenced", currentEpoch: detail(e, "epoch"), message: e.message });
  }
  return e.status === 404 ? notFound(e) : rejected(e);
}

/**
 * A decision's refusal: `already_decided` (a 409), `not_found` (a 404, or a 409 on `requestedAt`: the item as read is
 * gone, its id names another call now) or `rejected`.
 */
export function decisionRefusal(e: ApiError): DecisionResult {
  if (e.status === 409 && e.details.field === "requestedAt") {
    return notFound(e);
  }
  if (e.status === 409) {
    const already: AlreadyDecided = { kind: "already_decided", code: e.code, message: e.message };
    return Object.freeze(already);
  }
  return e.status === 404 ? notFound(e) : rejected(e);
}

export function notFound(e: ApiError): NotFound {
  return Object.freeze({ kind: "not_found", message: e.message === "" ? "not found" : e.message });
}

/**
 * A client error as `rejected`: 400, 403, 409, 413, 422 and the other 4xx but 401 and 404.
 *
 * @throws TetherError for 401 (credentials) and anything that is not a 4xx
 */
export function rejected(e: ApiError): Rejected {
  if (e.status === 401) {
    throw new TetherError("the credentials were refused (check the token)", { apiError: e });
  }
  if (e.status < 400 || e.status >= 500) {
    throw new TetherError("the service failed", { apiError: e });
  }
  const field = e.details.field;
  return Object.freeze({ kind: "rejected", status: e.status, code: e.code, message: e.message, field: typeof field === "string" ? field : undefined });
}

/** For reads, whose only outcome besides the answer is "not found": everything else is thrown. */
export function failure(what: string, e: ApiError): TetherError {
  if (e.status === 401) {
    return new TetherError(`${what}: the credentials were refused (check the token)`, { apiError: e });
  }
  return new TetherError(`${what} failed`, { apiError: e });
}

function detail(e: ApiError, name: string): number {
  const value = e.details[name];
  if (typeof value !== "number") {
    throw new MalformedAnswerError(`${e.code} without ${name}`);
  }
  return value;
}
