import { RetryPolicy, TetherClient, type TetherClientOptions } from "@tether/client";
import { inject } from "vitest";

/** Client options for the integration tests' stack (see real-stack.global.ts) with `token`: patient, as a slow machine needs. */
export function stackOptions(token: string): TetherClientOptions {
  return { ...inject("tether"), token, timeoutMs: 30_000, retry: RetryPolicy.of(12, 250, 5_000) };
}

export function stackClient(token: string): TetherClient {
  return new TetherClient(stackOptions(token));
}
