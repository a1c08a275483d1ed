/**
 * Test support: a TetherClient whose session-service is the in-memory FakeTether, with a policy service that
 * authorizes every harness-run call as soon as it is asked for (as a tenant's policy that allows the tool does), so
 * the saver's and the session's harness-run tools can run in a unit test.
 */
import { TetherClient, type AppendBatch, type AppendResult, type ClaimRequest, type ClaimResult, type CreateResult, type EraseResult, type EventPage, type NewSession, type SessionEvent, type SessionInfo } from "@tether/client";
import { FakeTether } from "../../../clients/typescript/test/fake-tether.js";

export class FakeTetherClient extends TetherClient {
  constructor(readonly fake: FakeTether = new FakeTether()) {
    super({ token: "dev-acme-agent", sessionsUrl: "http://127.0.0.1:9", projectorUrl: "http://127.0.0.1:9", approvalsUrl: "http://127.0.0.1:9" });
  }

  override createSession(session: NewSession): Promise<CreateResult> {
    return this.fake.createSession(session);
  }

  override sessions(): Promise<readonly SessionInfo[]> {
    return this.fake.sessions();
  }

  override session(sessionId: string): Promise<SessionInfo | undefined> {
    return this.fake.session(sessionId);
  }

  override claim(sessionId: string, claim: ClaimRequest): Promise<ClaimResult> {
    return this.fake.claim(sessionId, claim);
  }

  override async append(sessionId: string, batch: AppendBatch): Promise<AppendResult> {
    const result = await this.fake.append(sessionId, batch);
    this.authorize(sessionId);
    return result;
  }

  override events(sessionId: string, fromSeq = 1, limit = 500): Promise<EventPage | undefined> {
    return this.fake.events(sessionId, fromSeq, limit);
  }

  override eraseSession(sessionId: string): Promise<EraseResult> {
    return this.fake.eraseSession(sessionId);
  }

  override artifactText(sha256: string): Promise<string | undefined> {
    return this.fake.artifactText(sha256);
  }

  override async awaitEvent(sessionId: string, fromSeq: number, match: (e: SessionEvent) => boolean, timeoutMs: number): Promise<SessionEvent | undefined> {
    const deadline = Date.now() + timeoutMs;
    let from = fromSeq;
    for (;;) {
      const page = await this.fake.events(sessionId, from, 500);
      for (const e of page?.events ?? []) {
        from = e.seq + 1;
        if (match(e)) {
          return e;
        }
      }
      if (Date.now() >= deadline) {
        return undefined;
      }
      await new Promise((r) => setTimeout(r, 5));
    }
  }

  /** The policy: every call an assistant_message asks for, not authorized yet, is authorized. */
  private authorize(sessionId: string): void {
    const s = this.fake.sessionsById.get(sessionId);
    if (s === undefined) {
      return;
    }
    const authorized = new Set(s.events.filter((e) => e.type === "tool_call_authorized").map((e) => `${String(e.json.callId)}@${String(e.json.requestSeq)}`));
    for (const e of [...s.events]) {
      if (e.type !== "assistant_message" || !Array.isArray(e.json.toolCalls)) {
        continue;
      }
      for (const c of e.json.toolCalls as Record<string, unknown>[]) {
        const key = `${String(c.callId)}@${e.seq}`;
        if (!authorized.has(key)) {
          authorized.add(key);
          this.fake.addAsService(sessionId, "tool_call_authorized", { callId: c.callId, requestSeq: e.seq, tool: c.tool });
        }
      }
    }
  }
}
