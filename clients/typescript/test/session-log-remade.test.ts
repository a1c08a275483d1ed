import { describe, expect, it } from "vitest";
import { SessionLog, type EventPage, type SessionEvent, type SessionLogPort } from "../src/index.js";

/**
 * A SessionLog that syncs after its session was erased and made again under its id must start its fold
 * over (the class comment promises it) — also when the new log is already as long as, or longer than, the one it knew.
 */
class ReadOnlyLog implements SessionLogPort {
  logged: SessionEvent[] = [];

  constructor(private readonly sessionId: string) {}

  /** Replaces the log with that of a session made again under the id, of `count` events with ids `prefix-<seq>`. */
  fill(prefix: string, count: number): void {
    this.logged = [];
    for (let seq = 1; seq <= count; seq++) {
      const eventId = `${prefix}-${seq}`;
      const type = seq === 1 ? "session_started" : "user_message";
      this.logged.push({
        seq,
        eventId,
        type,
        sessionId: this.sessionId,
        occurredAt: new Date(Date.UTC(2026, 0, 1, 0, 0, seq)),
        actor: { kind: "USER", id: "u" },
        harnessVersion: "v1",
        json: { seq, eventId, type, content: `${prefix} ${seq}` },
      });
    }
  }

  async events(_sessionId: string, fromSeq = 1, limit = 500): Promise<EventPage | undefined> {
    const events = this.logged.slice(fromSeq - 1, fromSeq - 1 + limit);
    return { events, lastSeq: this.logged.length, nextSeq: fromSeq + events.length, atEnd: fromSeq + events.length > this.logged.length };
  }

  createSession(): never {
    throw new Error("not used: sync only reads");
  }
  session(): never {
    throw new Error("not used: sync only reads");
  }
  claim(): never {
    throw new Error("not used: sync only reads");
  }
  append(): never {
    throw new Error("not used: sync only reads");
  }
}

function foldOf(port: ReadOnlyLog) {
  const folded: SessionEvent[] = [];
  let resets = 0;
  const log = new SessionLog(port, "s", {
    workerId: "w",
    newSession: () => ({ objective: "o", toolMode: "WRITE" }),
    fold: {
      add: (e) => void folded.push(e),
      reset: () => void (resets++, (folded.length = 0)),
      rollback: (seq) => void (folded.length = seq),
    },
  });
  return { log, folded, resets: () => resets };
}

describe("SessionLog.sync after the session was erased and made again under its id", () => {
  it("starts the fold over when the new log is longer than the one it knew (never mixes two sessions)", async () => {
    const port = new ReadOnlyLog("s");
    port.fill("old", 3);
    const { log, folded, resets } = foldOf(port);
    expect(await log.sync()).toBe(true);
    expect(folded.map((e) => e.eventId)).toEqual(["old-1", "old-2", "old-3"]);

    port.fill("new", 5); // erased, made again, and it already has more events than the writer knew
    expect(await log.sync()).toBe(true);
    expect(resets()).toBe(1);
    expect(folded.map((e) => e.eventId)).toEqual(["new-1", "new-2", "new-3", "new-4", "new-5"]);
  });

  it("starts the fold over when the new log is exactly as long as the one it knew", async () => {
    const port = new ReadOnlyLog("s");
    port.fill("old", 3);
    const { log, folded, resets } = foldOf(port);
    await log.sync();
    port.fill("new", 3);
    expect(await log.sync()).toBe(true);
    expect(resets()).toBe(1);
    expect(folded.map((e) => e.eventId)).toEqual(["new-1", "new-2", "new-3"]);
  });

  it("still reads only what was appended since, when the session is the same", async () => {
    const port = new ReadOnlyLog("s");
    port.fill("same", 3);
    const { log, folded, resets } = foldOf(port);
    await log.sync();
    port.fill("same", 6);
    expect(await log.sync()).toBe(true);
    expect(resets()).toBe(0);
    expect(folded.map((e) => e.eventId)).toEqual(["same-1", "same-2", "same-3", "same-4", "same-5", "same-6"]);
  });
});
