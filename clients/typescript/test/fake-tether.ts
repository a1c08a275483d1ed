import { createHash } from "node:crypto";
import {
  SessionWriter,
  eventIdsOf,
  type AppendBatch,
  type AppendResult,
  type ClaimRequest,
  type ClaimResult,
  type Claimed,
  type CreateResult,
  type EraseResult,
  type EventPage,
  type NewSession,
  type SessionEvent,
  type SessionInfo,
  type SessionLogPort,
  type TetherClient,
} from "../src/index.js";

interface FakeSession {
  readonly info: { sessionId: string; harnessVersion: string; modelId: string; epoch: number; workerId: string | undefined };
  /** When its session_started was accepted (epoch ms): which session of its id this is. */
  readonly startedAt: number;
  readonly events: SessionEvent[];
  readonly ids: Map<string, number>;
  readonly request: string;
}

/**
 * One tenant's sessions in memory, for unit tests of the framework integrations (integrations/*) and SessionLog: the session-service's create, claim, append and
 * events page with the rules the saver relies on — a batch carrying another session's start than the one now under its
 * id is `not_found` (a session erased and made again starts later), an eventId already in the log is a duplicate
 * answered with its original seq (before any other check), a stale epoch is `fenced`, a stale `expectedSeq` a
 * `conflict`, a batch is all or nothing — and content over `offloadAbove` characters offloaded to a blob, as Tether
 * does over 64 KiB. Not the sequencer (the integration tests run against the real one): it checks no other rule.
 */
export class FakeTether implements SessionLogPort {
  readonly sessionsById = new Map<string, FakeSession>();
  readonly blobs = new Map<string, string>();
  appends = 0;
  /** The last session start given: each is a millisecond after it at least, so a session made again starts later. */
  private lastStart = 0;
  /** Called before each append is applied: a test's chance to append as a service would (an approval, a result). */
  beforeAppend: (sessionId: string) => void = () => undefined;

  constructor(private readonly offloadAbove = Number.MAX_SAFE_INTEGER) {}

  async createSession(session: NewSession): Promise<CreateResult> {
    const sessionId = session.sessionId!;
    const request = JSON.stringify(session);
    const existing = this.sessionsById.get(sessionId);
    if (existing !== undefined) {
      return existing.request === request
        ? this.createdOf(existing)
        : { kind: "rejected", status: 422, code: "illegal_event", message: "the session exists", field: "sessionId" };
    }
    this.lastStart = Math.max(Date.now(), this.lastStart + 1);
    const s: FakeSession = {
      info: { sessionId, harnessVersion: session.harnessVersion ?? "v1", modelId: session.modelId ?? "m", epoch: 0, workerId: undefined },
      startedAt: this.lastStart,
      events: [],
      ids: new Map(),
      request,
    };
    this.sessionsById.set(sessionId, s);
    this.add(s, "session_started", `start-${sessionId}`, {
      objective: session.objective,
      toolMode: session.toolMode,
      ...(session.harnessTools === undefined ? {} : { harnessTools: session.harnessTools.map((t) => ({ ...t })) }),
    });
    return this.createdOf(s);
  }

  async session(sessionId: string): Promise<SessionInfo | undefined> {
    const s = this.sessionsById.get(sessionId);
    return s === undefined ? undefined : this.infoOf(s);
  }

  async sessions(): Promise<readonly SessionInfo[]> {
    return [...this.sessionsById.values()].map((s) => this.infoOf(s));
  }

  async claim(sessionId: string, claim: ClaimRequest): Promise<ClaimResult> {
    const s = this.sessionsById.get(sessionId);
    if (s === undefined) {
      return { kind: "not_found", message: "session not found" };
    }
    if (claim.harnessVersion !== s.info.harnessVersion) {
      return { kind: "version_pinned", message: `pinned to ${s.info.harnessVersion}` };
    }
    s.info.epoch++;
    s.info.workerId = claim.workerId;
    this.add(s, "session_claimed", `claim-${sessionId}-${s.info.epoch}`, { workerId: claim.workerId, epoch: s.info.epoch, harnessVersion: claim.harnessVersion });
    const last = s.events.length;
    return {
      kind: "claimed",
      sessionId,
      workerId: claim.workerId,
      epoch: s.info.epoch,
      resumeReason: s.info.epoch > 1 ? "CRASH" : undefined,
      resumed: s.info.epoch > 1,
      lastSeq: last,
      nextSeq: last + 1,
      sessionStartedAt: new Date(s.startedAt),
    };
  }

  async append(sessionId: string, batch: AppendBatch): Promise<AppendResult> {
    this.appends++;
    this.beforeAppend(sessionId);
    const s = this.sessionsById.get(sessionId);
    if (s === undefined) {
      return { kind: "not_found", message: "session not found" };
    }
    if (batch.sessionStartedAt !== undefined && batch.sessionStartedAt.getTime() !== s.startedAt) {
      return { kind: "not_found", message: "the session of that start was erased" };
    }
    const ids = eventIdsOf(sessionId, batch);
    if (ids.every((id) => s.ids.has(id))) {
      const seqs = ids.map((id) => s.ids.get(id)!);
      return { kind: "appended", events: ids.map((eventId, i) => ({ eventId, seq: seqs[i]!, duplicate: true })), seqs, allDuplicates: true, lastSeq: s.events.length, redactions: 0 };
    }
    if (batch.epoch !== undefined && batch.epoch !== s.info.epoch) {
      return { kind: "fenced", currentEpoch: s.info.epoch, message: "stale epoch" };
    }
    if (batch.expectedSeq !== undefined && batch.expectedSeq !== s.events.length) {
      return { kind: "conflict", lastSeq: s.events.length, message: "seq conflict" };
    }
    for (const e of batch.events) {
      if (e.type === "framework_state") {
        JSON.parse(String(e.fields.content)); // the real session-service refuses content that is not JSON
      }
    }
    const seqs = batch.events.map((e, i) => this.add(s, e.type, ids[i]!, { ...e.fields }));
    return { kind: "appended", events: ids.map((eventId, i) => ({ eventId, seq: seqs[i]!, duplicate: false })), seqs, allDuplicates: false, lastSeq: s.events.length, redactions: 0 };
  }

  async events(sessionId: string, fromSeq = 1, limit = 500): Promise<EventPage | undefined> {
    const s = this.sessionsById.get(sessionId);
    if (s === undefined) {
      return undefined;
    }
    const events = s.events.slice(fromSeq - 1, fromSeq - 1 + limit);
    const next = fromSeq + events.length;
    return { events, lastSeq: s.events.length, nextSeq: next, atEnd: next > s.events.length };
  }

  async eraseSession(sessionId: string): Promise<EraseResult> {
    const s = this.sessionsById.get(sessionId);
    if (s === undefined) {
      return { kind: "not_found", message: "session not found" };
    }
    this.sessionsById.delete(sessionId);
    return { kind: "erased", sessionId, events: s.events.length };
  }

  async artifactText(sha256: string): Promise<string | undefined> {
    return this.blobs.get(sha256);
  }

  /** A writer under `claim`, as the client's (it appends through {@link append}). */
  writer(claim: Claimed): SessionWriter {
    return new SessionWriter(this as unknown as TetherClient, claim);
  }

  /**
   * The first event from `fromSeq` that `match` takes, polling the log every 10 ms; undefined after `timeoutMs`; rejects
   * with the reason of `options.signal` once it aborts, as the client's.
   */
  async awaitEvent(
    sessionId: string,
    fromSeq: number,
    match: (e: SessionEvent) => boolean,
    timeoutMs: number,
    options: { readonly signal?: AbortSignal | undefined } = {},
  ): Promise<SessionEvent | undefined> {
    const deadline = Date.now() + timeoutMs;
    for (let next = fromSeq; ; ) {
      options.signal?.throwIfAborted();
      const s = this.sessionsById.get(sessionId);
      for (; s !== undefined && next <= s.events.length; next++) {
        if (match(s.events[next - 1]!)) {
          return s.events[next - 1];
        }
      }
      if (Date.now() >= deadline) {
        return undefined;
      }
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }

  /** Appends an event as a service would (an authorization, a result): its seq. */
  addAsService(sessionId: string, type: string, fields: Record<string, unknown>): number {
    const s = this.sessionsById.get(sessionId)!;
    return this.add(s, type, `service-${sessionId}-${s.events.length + 1}`, fields);
  }

  private add(s: FakeSession, type: string, eventId: string, fields: Record<string, unknown>): number {
    const seq = s.events.length + 1;
    const json: Record<string, unknown> = { eventId, type, ...fields, seq, sessionId: s.info.sessionId };
    const content = json.content;
    if (typeof content === "string" && content.length > this.offloadAbove) {
      const sha256 = createHash("sha256").update(content, "utf8").digest("hex");
      this.blobs.set(sha256, content);
      json.content = content.slice(0, 16);
      json[type === "tool_result" ? "artifact" : "contentRef"] = { uri: `blob:${sha256}`, sha256, size: content.length };
    }
    const event: SessionEvent = Object.freeze({
      seq,
      eventId,
      type,
      sessionId: s.info.sessionId,
      occurredAt: seq === 1 ? new Date(s.startedAt) : new Date(),
      actor: { kind: "SYSTEM", id: "fake" },
      harnessVersion: s.info.harnessVersion,
      json: Object.freeze(structuredClone(json)),
    });
    s.events.push(event);
    s.ids.set(eventId, seq);
    return seq;
  }

  private createdOf(s: FakeSession): CreateResult {
    const { sessionId, harnessVersion, modelId } = s.info;
    return { kind: "created", sessionId, seq: 1, harnessVersion, modelId, redactions: 0, sessionStartedAt: new Date(s.startedAt) };
  }

  private infoOf(s: FakeSession): SessionInfo {
    return {
      sessionId: s.info.sessionId,
      tenantId: "acme",
      owner: "acme-agent",
      status: "open",
      lastSeq: s.events.length,
      epoch: s.info.epoch,
      workerId: s.info.workerId,
      modelId: s.info.modelId,
      harnessVersion: s.info.harnessVersion,
      parentSessionId: undefined,
      sessionStartedAt: new Date(s.startedAt),
    };
  }
}
