import { describe, expect, it } from "vitest";
import {
  NewEvent,
  SessionLog,
  SessionTakenOverError,
  TetherError,
  appendedOrThrow,
  claimedOrThrow,
  createdOrThrow,
  eventIdsOf,
  type AppendBatch,
  type AppendResult,
  type ClaimResult,
  type CreateResult,
  type EventPage,
  type NewSession,
  type SessionEvent,
  type SessionInfo,
  type SessionLogPort,
} from "../src/index.js";
import { FakeTether } from "./fake-tether.js";

/**
 * SessionLog against an in-memory session-service that keeps the rules it relies on: a batch carrying another start than
 * the session's is not found (its session was erased), eventIds already in the log are duplicates (before any other
 * check), a stale epoch is fenced, a stale expectedSeq a conflict, a batch all or nothing.
 */
class MemoryLog implements SessionLogPort {
  logged: SessionEvent[] = [];
  exists = false;
  epoch = 0;
  /** The session's start; a session made again under its id starts later. */
  startedAt = new Date("2026-12-06T00:30:00.123Z");
  appends: AppendBatch[] = [];
  /** Scrubs this many secrets from the next append's answer. */
  redactNext = 0;
  /** Refuses a batch with an event whose content is this (as the sequencer refuses an invalid field). */
  refuse: string | undefined;
  private held: Promise<void> | undefined;

  /** Holds the next append in flight (unanswered, nothing appended) until `release` is called. */
  holdNext(): { release: () => void } {
    let release!: () => void;
    this.held = new Promise((r) => (release = r));
    return { release };
  }

  async createSession(session: NewSession): Promise<CreateResult> {
    this.exists = true;
    this.add("session_started", `start`, { objective: session.objective });
    return { kind: "created", sessionId: session.sessionId!, seq: 1, harnessVersion: "v1", modelId: "m", redactions: 0, sessionStartedAt: this.startedAt };
  }
  async session(sessionId: string): Promise<SessionInfo | undefined> {
    return this.exists ? { sessionId, tenantId: "acme", owner: "a", status: "open", lastSeq: this.logged.length, epoch: this.epoch, workerId: undefined, modelId: "m", harnessVersion: "v1", parentSessionId: undefined, sessionStartedAt: undefined } : undefined;
  }
  async claim(sessionId: string): Promise<ClaimResult> {
    this.epoch++;
    this.add("session_claimed", `claim-${this.epoch}`, { epoch: this.epoch });
    const last = this.logged.length;
    return { kind: "claimed", sessionId, workerId: "w", epoch: this.epoch, resumeReason: undefined, resumed: false, lastSeq: last, nextSeq: last + 1, sessionStartedAt: this.startedAt };
  }
  async append(sessionId: string, batch: AppendBatch): Promise<AppendResult> {
    this.appends.push(batch);
    const held = this.held;
    this.held = undefined;
    await held;
    if (batch.sessionStartedAt !== undefined && batch.sessionStartedAt.getTime() !== this.startedAt.getTime()) {
      return { kind: "not_found", message: "the session of that start was erased" };
    }
    const ids = eventIdsOf(sessionId, batch);
    const known = ids.map((id) => this.logged.find((e) => e.eventId === id));
    if (known.every((e) => e !== undefined)) {
      return { kind: "appended", events: known.map((e) => ({ eventId: e!.eventId, seq: e!.seq, duplicate: true })), seqs: known.map((e) => e!.seq), allDuplicates: true, lastSeq: this.logged.length, redactions: 0 };
    }
    if (batch.epoch !== this.epoch) {
      return { kind: "fenced", currentEpoch: this.epoch, message: "stale epoch" };
    }
    if (batch.expectedSeq !== this.logged.length) {
      return { kind: "conflict", lastSeq: this.logged.length, message: "seq conflict" };
    }
    const refused = batch.events.findIndex((e) => e.fields.content === this.refuse);
    if (refused >= 0) {
      return { kind: "rejected", status: 400, code: "invalid_field", message: "refused", field: `events[${refused}].content` };
    }
    const seqs = batch.events.map((e, i) => this.add(e.type, ids[i]!, { ...e.fields }));
    const redactions = this.redactNext;
    this.redactNext = 0;
    return { kind: "appended", events: seqs.map((seq, i) => ({ eventId: ids[i]!, seq, duplicate: false })), seqs, allDuplicates: false, lastSeq: this.logged.length, redactions };
  }
  async events(_sessionId: string, fromSeq = 1, limit = 500): Promise<EventPage | undefined> {
    if (!this.exists) {
      return undefined;
    }
    const events = this.logged.slice(fromSeq - 1, fromSeq - 1 + limit);
    return { events, lastSeq: this.logged.length, nextSeq: fromSeq + events.length, atEnd: fromSeq + events.length > this.logged.length };
  }
  add(type: string, eventId: string, fields: Record<string, unknown>): number {
    const seq = this.logged.length + 1;
    this.logged.push({ seq, eventId, type, sessionId: "s", occurredAt: undefined, actor: { kind: "SYSTEM", id: "x" }, harnessVersion: "v1", json: { eventId, type, seq, ...fields } });
    return seq;
  }
}

function logOf(port: MemoryLog, options: { rollback: boolean } = { rollback: true }) {
  const folded: SessionEvent[] = [];
  /** Every add, in order: the seq, and whether the event was folded as planned (else read from the log). */
  const adds: string[] = [];
  const rollbacks: number[] = [];
  let resets = 0;
  const log = new SessionLog(port, "s", {
    workerId: "w",
    newSession: () => ({ objective: "o", toolMode: "WRITE" }),
    fold: {
      add: (e, planned) => void (folded.push(e), adds.push(`${e.seq} ${planned ? "planned" : "read"}`)),
      reset: () => void (resets++, (folded.length = 0)),
      ...(options.rollback ? { rollback: (seq: number) => void (rollbacks.push(seq), (folded.length = seq)) } : {}),
    },
  });
  return { log, folded, adds, rollbacks, resets: () => resets };
}

/** Plans `step` on the log's queue (as an integration does) and answers its `appended`, not waited for. */
async function enqueue(log: SessionLog, step: string, ...contents: string[]) {
  const plans: number[] = [];
  const { appended } = await log.exclusive(() =>
    log.enqueue(step, (first) => {
      plans.push(first);
      return contents.map((c, i) => NewEvent.userMessage(i === 0 ? `${c} at ${first}` : c));
    }),
  );
  return { appended, plans };
}

const contentsOf = (events: readonly SessionEvent[]) => events.filter((e) => e.type === "user_message").map((e) => e.json.content);
const idsOf = (events: readonly SessionEvent[]) => events.map((e) => `${e.seq} ${e.eventId}`);

describe("SessionLog", () => {
  it("creates and claims the session on its first append, and folds what it sent without reading the log again", async () => {
    const port = new MemoryLog();
    const { log, folded } = logOf(port);
    const appended = await log.appendPlanned("step-1", (first) => [NewEvent.userMessage(`first seq ${first}`)]);
    expect(appended!.seqs).toEqual([3]);
    expect(folded.map((e) => e.type)).toEqual(["session_started", "session_claimed", "user_message"]);
    expect(folded[2]!.json.content).toBe("first seq 3");
    expect(log.lastSeq).toBe(3);
    expect(port.appends[0]!.epoch).toBe(1);
    expect(port.appends[0]!.sessionStartedAt).toEqual(new Date("2026-12-06T00:30:00.123Z"));
    expect(port.appends[0]!.expectedSeq).toBe(2);
  });

  it("plans again, with the same step, when the log moved: the plan sees the seqs its events get", async () => {
    const port = new MemoryLog();
    const { log, folded, adds } = logOf(port);
    await log.claimed();
    port.add("tool_call_authorized", "by-the-approval-service", { callId: "c1" });
    const plans: number[] = [];
    const appended = await log.appendPlanned("step-2", (first) => {
      plans.push(first);
      return [NewEvent.userMessage(`at ${first}`)];
    });
    expect(plans).toEqual([3, 4]);
    expect(appended!.seqs).toEqual([4]);
    expect(port.appends.map((a) => a.step)).toEqual(["step-2", "step-2"]);
    expect(folded.map((e) => e.type)).toEqual(["session_started", "session_claimed", "tool_call_authorized", "user_message"]);
    // the fold is told which events it got as planned: the one at 3 was taken back, and 3 is another event in the log
    expect(adds).toEqual(["1 read", "2 read", "3 planned", "3 read", "4 planned"]);
  });

  it("made again with the claim its writer had, reads the log first and appends under that claim, claiming nothing", async () => {
    const port = new MemoryLog();
    const first = logOf(port).log;
    await first.appendPlanned("a", () => [NewEvent.userMessage("one")]);
    const claim = first.claimOf!;
    const again = new SessionLog(port, "s", { workerId: "w", newSession: () => ({ objective: "o", toolMode: "WRITE" }), fold: { add: () => undefined, reset: () => undefined }, claim });

    const appended = await again.appendPlanned("b", (firstSeq) => [NewEvent.userMessage(`at ${firstSeq}`)]);

    expect(appended!.seqs).toEqual([4]);
    expect(port.epoch, "no second claim").toBe(1);
    expect(port.appends.map((a) => [a.step, a.epoch, a.expectedSeq]), "planned once, on the log as read").toEqual([["a", 1, 2], ["b", 1, 3]]);
    expect(port.logged.map((e) => e.type)).toEqual(["session_started", "session_claimed", "user_message", "user_message"]);
  });

  it("is fenced once another writer claims the session, and then refuses every append without sending it", async () => {
    const port = new MemoryLog();
    const { log } = logOf(port);
    await log.appendPlanned("a", () => [NewEvent.userMessage("one")]);
    await port.claim("s"); // another writer
    const error = await log.appendPlanned("b", () => [NewEvent.userMessage("two")]).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SessionTakenOverError);
    expect(error).toMatchObject({ sessionId: "s", epoch: 1, currentEpoch: 2 });
    const sent = port.appends.length;
    await expect(log.appendPlanned("c", () => [NewEvent.userMessage("three")])).rejects.toBeInstanceOf(SessionTakenOverError);
    await expect(log.claimed()).rejects.toBeInstanceOf(SessionTakenOverError);
    expect(port.appends).toHaveLength(sent);
    expect(port.logged.filter((e) => e.type === "user_message").map((e) => e.json.content)).toEqual(["one"]);
  });

  it("reads the log when the sequencer changed what was sent (a secret scrubbed) or answered duplicates", async () => {
    const port = new MemoryLog();
    const { log, folded } = logOf(port);
    await log.claimed();
    port.redactNext = 1;
    await log.appendPlanned("a", () => [NewEvent.userMessage("key sk-123")]);
    expect(folded.at(-1)!.eventId).toBe(port.logged.at(-1)!.eventId);
    expect(folded.at(-1)!.actor.kind).toBe("SYSTEM"); // read from the log, not as sent
    const again = await log.appendPlanned("a", () => [NewEvent.userMessage("key sk-123")]);
    expect(again!.allDuplicates).toBe(true);
    expect(folded).toHaveLength(port.logged.length);
  });

  it("starts its fold over when the session was erased and started again", async () => {
    const port = new MemoryLog();
    const { log, folded, resets } = logOf(port);
    await log.appendPlanned("a", () => [NewEvent.userMessage("one"), NewEvent.userMessage("two")]);
    port.logged = [];
    port.startedAt = new Date("2026-12-06T00:31:00Z");
    port.add("session_started", "start-again", { objective: "again" });
    expect(await log.sync()).toBe(true);
    expect(resets()).toBe(1);
    expect(folded.map((e) => e.eventId)).toEqual(["start-again"]);
    port.exists = false;
    expect(await log.sync()).toBe(false);
    expect(resets()).toBe(2);
  });

  it("is refused, not appended, once its session was erased and made again under its id and claimed at the same epoch", async () => {
    const tether = new FakeTether();
    const folded: SessionEvent[] = [];
    const log = new SessionLog(tether, "s", {
      workerId: "w",
      newSession: () => ({ objective: "o", toolMode: "WRITE" }),
      fold: { add: (e) => void folded.push(e), reset: () => void (folded.length = 0) },
    });
    await log.appendPlanned("a", () => [NewEvent.userMessage("one")]); // seq 3, after its start and its claim (epoch 1)
    const erased = log.claimOf!.sessionStartedAt!;

    // erased, made again, claimed by another worker at epoch 1 again, and as long as the log this writer knew
    expect((await tether.eraseSession("s")).kind).toBe("erased");
    const again = createdOrThrow(await tether.createSession({ objective: "again", toolMode: "WRITE", sessionId: "s" }));
    expect(claimedOrThrow(await tether.claim("s", { workerId: "other", harnessVersion: "v1" })).epoch).toBe(1);
    appendedOrThrow(await tether.append("s", { step: "theirs", events: [NewEvent.userMessage("theirs")] }));
    expect(again.sessionStartedAt!.getTime()).toBeGreaterThan(erased.getTime());

    const error = await log.appendPlanned("b", () => [NewEvent.userMessage("stale")]).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TetherError);
    expect((error as Error).message).toMatch(/session s is gone/);
    const logged = tether.sessionsById.get("s")!.events;
    expect(logged.map((e) => e.json.content ?? e.type)).toEqual(["session_started", "session_claimed", "theirs"]);
    // what it folded was of the erased session: forgotten, and the session now under the id read from its start
    expect(folded).toEqual([]);
    expect(await log.sync()).toBe(true);
    expect(folded.map((e) => e.eventId)).toEqual(logged.map((e) => e.eventId));
  });

  it("appends nothing for a plan of no events", async () => {
    const port = new MemoryLog();
    const { log } = logOf(port);
    expect(await log.appendPlanned("none", () => [])).toBeUndefined();
    expect(port.appends).toHaveLength(0);
  });

  it("names the refused field", async () => {
    const port = new MemoryLog();
    port.append = async () => ({ kind: "rejected", status: 400, code: "invalid_field", message: "bad", field: "events[0].content" });
    const { log } = logOf(port);
    const error = await log.appendPlanned("a", () => [NewEvent.userMessage("x")]).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TetherError);
    expect(String((error as Error).message)).toContain("400 invalid_field: bad {field=events[0].content}");
    expect((error as TetherError).apiError).toEqual({ status: 400, code: "invalid_field", message: "bad", details: { field: "events[0].content" } });
  });

  describe("group commit", () => {
    it("sends the batches planned while an append is in flight as one append, each with its own step's eventIds and seqs", async () => {
      const port = new MemoryLog();
      const { log, folded } = logOf(port);
      await log.claimed();
      const gate = port.holdNext();
      const a = await enqueue(log, "a", "a");
      const b = await enqueue(log, "b", "b", "b2");
      const c = await enqueue(log, "c", "c");
      expect(log.lastSeq).toBe(6); // folded as planned: each plan saw the seqs its events get
      expect([a.plans, b.plans, c.plans]).toEqual([[3], [4], [6]]);
      expect(port.appends).toHaveLength(1);
      gate.release();
      const [ra, rb, rc] = await Promise.all([a.appended, b.appended, c.appended]);
      expect(port.appends).toHaveLength(2);
      expect(port.appends[1]).toMatchObject({ expectedSeq: 3, epoch: 1 });
      expect(port.appends[1]!.events).toHaveLength(3);
      expect([ra!.seqs, rb!.seqs, rc!.seqs]).toEqual([[3], [4, 5], [6]]);
      expect(port.logged.slice(2).map((e) => e.eventId)).toEqual([
        ...eventIdsOf("s", { step: "a", events: [NewEvent.userMessage("x")] }),
        ...eventIdsOf("s", { step: "b", events: [NewEvent.userMessage("x"), NewEvent.userMessage("x")] }),
        ...eventIdsOf("s", { step: "c", events: [NewEvent.userMessage("x")] }),
      ]);
      expect(contentsOf(port.logged)).toEqual(["a at 3", "b at 4", "b2", "c at 6"]);
      expect(idsOf(folded)).toEqual(idsOf(port.logged));
    });

    it("on a conflict rolls the fold back to the last event appended and plans every batch again, in order, on the log as read", async () => {
      const port = new MemoryLog();
      const { log, folded, rollbacks } = logOf(port);
      await log.claimed();
      const gate = port.holdNext();
      const a = await enqueue(log, "a", "a");
      const b = await enqueue(log, "b", "b");
      port.add("tool_call_authorized", "by-the-approval-service", { callId: "c1" }); // seq 3, while a is in flight
      gate.release();
      const [ra, rb] = await Promise.all([a.appended, b.appended]);
      expect(rollbacks).toEqual([2]);
      expect([a.plans, b.plans]).toEqual([[3, 4], [4, 5]]);
      expect([ra!.seqs, rb!.seqs]).toEqual([[4], [5]]);
      expect(port.appends.map((x) => x.events.length)).toEqual([1, 2]); // after the conflict, both in one append
      expect(contentsOf(port.logged)).toEqual(["a at 4", "b at 5"]);
      expect(idsOf(folded)).toEqual(idsOf(port.logged));
    });

    it("without a rollback of its fold, resets it and reads the log from its start", async () => {
      const port = new MemoryLog();
      const { log, folded, resets } = logOf(port, { rollback: false });
      await log.claimed();
      const gate = port.holdNext();
      const a = await enqueue(log, "a", "a");
      port.add("tool_call_authorized", "by-the-approval-service", { callId: "c1" });
      gate.release();
      expect((await a.appended)!.seqs).toEqual([4]);
      expect(resets()).toBe(1);
      expect(idsOf(folded)).toEqual(idsOf(port.logged));
    });

    it("sends each batch of a refused append alone: the others are appended, and the refusal names its own field", async () => {
      const port = new MemoryLog();
      const { log, folded } = logOf(port);
      await log.claimed();
      port.refuse = "bad";
      const gate = port.holdNext();
      const a = await enqueue(log, "a", "a");
      const b = await enqueue(log, "b", "b", "bad");
      const c = await enqueue(log, "c", "c");
      gate.release();
      const [ra, rb, rc] = await Promise.allSettled([a.appended, b.appended, c.appended]);
      expect(ra.status).toBe("fulfilled");
      expect(rb.status).toBe("rejected");
      expect(String((rb as PromiseRejectedResult).reason.message)).toContain("{field=events[1].content}");
      expect(rc.status).toBe("fulfilled");
      expect(port.appends.map((x) => x.events.length)).toEqual([1, 3, 2, 1]); // a; b+c refused; b alone refused; c alone
      expect(contentsOf(port.logged)).toEqual(["a at 3", "c at 4"]);
      expect(idsOf(folded)).toEqual(idsOf(port.logged));
    });

    it("once fenced, refuses every batch planned, in flight or waiting, and takes them out of its fold", async () => {
      const port = new MemoryLog();
      const { log, folded } = logOf(port);
      await log.claimed();
      const gate = port.holdNext();
      const a = await enqueue(log, "a", "a");
      const b = await enqueue(log, "b", "b");
      await port.claim("s"); // another writer, while a is in flight
      gate.release();
      const settled = await Promise.allSettled([a.appended, b.appended]);
      expect(settled.map((r) => r.status === "rejected" && r.reason instanceof SessionTakenOverError)).toEqual([true, true]);
      expect(port.appends).toHaveLength(1);
      expect(folded.map((e) => e.seq)).toEqual([1, 2]);
      await expect(log.exclusive(() => log.enqueue("c", () => [NewEvent.userMessage("c")]))).rejects.toBeInstanceOf(SessionTakenOverError);
    });

    it("reads the log only after what is in flight was answered", async () => {
      const port = new MemoryLog();
      const { log, folded } = logOf(port);
      await log.claimed();
      const gate = port.holdNext();
      const a = await enqueue(log, "a", "a");
      const synced = log.exclusive(() => log.sync());
      gate.release();
      expect(await synced).toBe(true);
      expect((await a.appended)!.seqs).toEqual([3]);
      expect(idsOf(folded)).toEqual(idsOf(port.logged));
      expect(port.appends).toHaveLength(1);
    });
  });
});
