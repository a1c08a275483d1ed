import type { EraseResult, SessionInfo, SessionLogPort } from "@tether/client";

/**
 * What {@link TetherSaver} asks of Tether: the calls of `TetherClient` it uses, and nothing else. A `TetherClient`
 * is one; the unit tests give an in-memory log of the same behaviour.
 */
export interface TetherPort extends SessionLogPort {
  sessions(status?: "open" | "closed"): Promise<readonly SessionInfo[]>;
  eraseSession(sessionId: string): Promise<EraseResult>;
  artifactText(sha256: string): Promise<string | undefined>;
}
