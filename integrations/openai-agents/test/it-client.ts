import { RetryPolicy, TetherClient } from "@tether/client";
import { inject } from "vitest";

/** A client of the integration tests' stack (see real-stack.global.ts) with `token`: patient, as a slow machine needs. */
export function stackClient(token: string): TetherClient {
  return new TetherClient({ ...inject("tether"), token, timeoutMs: 30_000, retry: RetryPolicy.of(12, 250, 5_000) });
}
