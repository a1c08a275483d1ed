import type {
  AppendBatch,
  AppendResult,
  ClaimRequest,
  ClaimResult,
  CreateResult,
  EraseResult,
  EventPage,
  NewSession,
  SessionInfo,
} from "@tether/client";

/**
 * What {@link TetherSaver} asks of Tether: the calls of `TetherClient` it uses, and nothing else. A `TetherClient`
 * is one; the unit tests give an in-memory log of the same behaviour.
 */
export interface TetherPort {
  createSession(session: NewSession): Promise<CreateResult>;
  session(sessionId: string): Promise<SessionInfo | undefined>;
  sessions(status?: "open" | "closed"): Promise<readonly SessionInfo[]>;
  claim(sessionId: string, claim: ClaimRequest): Promise<ClaimResult>;
  append(sessionId: string, batch: AppendBatch): Promise<AppendResult>;
  events(sessionId: string, fromSeq?: number, limit?: number): Promise<EventPage | undefined>;
  eraseSession(sessionId: string): Promise<EraseResult>;
  artifactText(sha256: string): Promise<string | undefined>;
}
