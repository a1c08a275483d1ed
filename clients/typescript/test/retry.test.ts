import { createServer } from "node:net";
import { describe, expect, it } from "vitest";
import {
  ApprovalDecision,
  NewEvent,
  ReadAt,
  RetryPolicy,
  TetherClient,
  TetherError,
  appendedOrThrow,
  claimedOrThrow,
  createdOrThrow,
  eventIdOf,
  settledOrThrow,
} from "../src/index.js";
import { withFakeServer, dropConnection, hang, json } from "./fake-server.js";

/**
 * What the SDK sends, and which calls it repeats: against a scripted server that answers 503, drops the connection or
 * never answers. Safe calls are repeated with the same bytes (the same eventIds); unsafe ones never.
 */
const UNAVAILABLE = '{"error":"unavailable","message":"the sequencer is not ready"}';
const RETRY_NOW = { "Retry-After": "0" };
const APPENDED = `{"appended":[{"eventId":"${eventIdOf("demo-1", "turn-1", 0)}","seq":2,"duplicate":false},`
  + `{"eventId":"${eventIdOf("demo-1", "turn-1", 1)}","seq":3,"duplicate":false}],"lastSeq":3,"redactions":0}`;

const fake = withFakeServer();

describe("retries", () => {
  it("repeat an append after 503 and a dropped connection, with the same eventIds, epoch and expectedSeq", async () => {
    fake.server.next(json(503, UNAVAILABLE, RETRY_NOW)).next(dropConnection()).next(json(200, APPENDED));
    const result = await fake.client.append("demo-1", {
      step: "turn-1",
      events: [NewEvent.userMessage("a"), NewEvent.userMessage("b")],
      expectedSeq: 1,
      epoch: 2,
    });
    expect(appendedOrThrow(result).seqs).toEqual([2, 3]);
    expect(fake.server.seen).toHaveLength(3);
    for (const r of fake.server.seen) {
      expect(r.method).toBe("POST");
      expect(r.path).toBe("/v1/sessions/demo-1/events");
      expect(r.headers.authorization).toBe("Bearer dev-acme-agent");
      expect(r.headers["content-type"]).toBe("application/json");
    }
    expect(new Set(fake.server.seen.map((r) => r.body)).size, "every attempt sends the same body").toBe(1);
    const body = JSON.parse(fake.server.seen[0]!.body);
    expect(body.expectedSeq).toBe(1);
    expect(body.epoch).toBe(2);
    expect(body.events[0].eventId).toBe(eventIdOf("demo-1", "turn-1", 0));
    expect(body.events[1].eventId).toBe(eventIdOf("demo-1", "turn-1", 1));
    expect(body.events[1].type).toBe("user_message");
  });

  it("give up after the policy's attempts, with the service's error", async () => {
    fake.server.otherwise(json(503, UNAVAILABLE, RETRY_NOW));
    const error = await fake.client.append("demo-1", { step: "turn-1", events: [NewEvent.userMessage("a")] }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TetherError);
    expect((error as TetherError).apiError?.code).toBe("unavailable");
    expect(fake.server.seen).toHaveLength(3);
  });

  it("repeat an attempt that timed out, and then say so", async () => {
    const quick = new TetherClient(fake.server.options({ timeoutMs: 200, retry: RetryPolicy.of(2, 10, 10) }));
    fake.server.otherwise(hang());
    const started = Date.now();
    const error = await quick.checkpoint("demo-1").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TetherError);
    expect((error as Error).message).toMatch(/failed after 2 attempt\(s\): no answer within 200 ms/);
    expect(fake.server.seen).toHaveLength(2);
    expect(Date.now() - started).toBeLessThan(3_000);
  });

  it("wait at least a 503's Retry-After", async () => {
    fake.server.next(json(503, UNAVAILABLE, { "Retry-After": "1" })).next(json(404, '{"error":"not_found","message":"session not found"}'));
    const started = Date.now();
    expect(await fake.client.session("demo-1")).toBeUndefined();
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
  });

  it("leave a Retry-After over a minute to the backoff: an hour's would hang the call, one past 2^31 ms would not wait at all", async () => {
    for (const seconds of ["3600", "99999999999"]) {
      fake.server.next(json(503, UNAVAILABLE, { "Retry-After": seconds })).next(json(404, '{"error":"not_found","message":"session not found"}'));
    }
    const started = Date.now();
    expect(await fake.client.session("demo-1")).toBeUndefined();
    expect(await fake.client.session("demo-1")).toBeUndefined();
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(fake.server.seen).toHaveLength(4);
  });

  it("end at close(): a call waiting 30 s to retry ends at once with its last failure, and tries no more", async () => {
    fake.server.otherwise(json(503, UNAVAILABLE, { "Retry-After": "30" }));
    const closing = new TetherClient(fake.server.options());
    const read = closing.checkpoint("demo-1").catch((e: unknown) => e);
    await until(() => fake.server.seen.length === 1);
    const started = Date.now();
    await closing.close();
    const error = await read;
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(error).toBeInstanceOf(TetherError);
    expect((error as TetherError).apiError?.code).toBe("unavailable");
    const dropped = new TetherClient(fake.server.options({ retry: RetryPolicy.of(3, 10_000, 10_000) })); // 5-10 s after the drop
    fake.server.next(dropConnection());
    const append = dropped.append("demo-1", { step: "turn-1", events: [NewEvent.userMessage("a")] }).catch((e: unknown) => e);
    await until(() => fake.server.seen.length === 2);
    await dropped.close();
    expect(((await append) as Error).message).toMatch(/failed after 1 attempt\(s\) \(the client was closed\)/);
    expect(fake.server.seen).toHaveLength(2);
  });

  it("wait to retry in any number at once without a false memory-leak warning (one abort listener each on the client's signal)", async () => {
    const warnings: Error[] = [];
    const onWarning = (w: Error): void => void warnings.push(w);
    process.on("warning", onWarning);
    try {
      const calls = 12;
      let answered = 0;
      const unavailable = json(503, UNAVAILABLE, { "Retry-After": "1" });
      const notFound = json(404, '{"error":"not_found","message":"session not found"}');
      fake.server.otherwise((req, res) => (++answered <= calls ? unavailable(req, res) : notFound(req, res)));
      const reads = await Promise.all(Array.from({ length: calls }, (_, i) => fake.client.session(`s-${i}`)));
      expect(reads.every((r) => r === undefined)).toBe(true);
      expect(fake.server.seen).toHaveLength(2 * calls);
      await new Promise((resolve) => setImmediate(resolve)); // a warning is emitted on the next tick
      expect(warnings.map((w) => `${w.name}: ${w.message}`)).toEqual([]);
    } finally {
      process.off("warning", onWarning);
    }
  });

  it("never repeat a decision: a lost answer is an unknown outcome", async () => {
    fake.server.next(dropConnection()).otherwise(json(200, "{}"));
    const error = await fake.client.decide("demo-1~7", ApprovalDecision.grantOnce("looks right")).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TetherError);
    expect((error as TetherError).outcomeUnknown).toBe(true);
    expect(fake.server.seen).toHaveLength(1);
    expect(JSON.parse(fake.server.seen[0]!.body)).toEqual({ decision: "GRANT_ONCE", reason: "looks right" });
    expect(fake.server.seen[0]!.path).toBe("/v1/approvals/demo-1~7/decision");
  });

  it("never repeat a decision after 503 either", async () => {
    fake.server.otherwise(json(503, UNAVAILABLE, RETRY_NOW));
    await expect(fake.client.decide("demo-1~7", ApprovalDecision.deny("no"))).rejects.toBeInstanceOf(TetherError);
    expect(fake.server.seen).toHaveLength(1);
  });

  it("know a decision that never reached the service had no effect", async () => {
    const port = await unusedPort();
    const nowhere = new TetherClient({ approvalsUrl: `http://127.0.0.1:${port}`, token: "t", retry: RetryPolicy.none() });
    const error = await nowhere.decide("demo-1~7", ApprovalDecision.grantOnce()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TetherError);
    expect((error as TetherError).outcomeUnknown).toBe(false);
    expect((error as Error).message).toMatch(/ECONNREFUSED/);
  });

  it("keep a create's session id and eventId, derived from the request, across attempts", async () => {
    const created = '{"sessionId":"s","seq":1,"harnessVersion":"v1","modelId":"m","redactions":0,"sessionStartedAt":"2026-12-06T00:30:00.123Z"}';
    fake.server.next(json(503, UNAVAILABLE, RETRY_NOW)).otherwise(json(201, created));
    const request = { objective: "Rename Foo", modelId: "m", toolMode: "WRITE", constraints: ["keep the tests green"] } as const;
    createdOrThrow(await fake.client.createSession(request));
    const [first, retry] = fake.server.seen.map((r) => JSON.parse(r.body));
    expect(first.sessionId).toMatch(/^[0-9a-f-]{36}$/);
    expect(retry.sessionId).toBe(first.sessionId);
    expect(retry.eventId).toBe(first.eventId);
    expect(first.toolMode).toBe("WRITE");
    expect(first.constraints).toEqual(["keep the tests green"]);

    await fake.client.createSession({ ...request, sessionId: "fixed" });
    await fake.client.createSession({ ...request, sessionId: "fixed" });
    await fake.client.createSession({ ...request, objective: "Another objective", sessionId: "fixed" });
    const ids = fake.server.seen.slice(2).map((r) => JSON.parse(r.body).eventId);
    expect(ids[0], "the same request, the same eventId").toBe(ids[1]);
    expect(ids[2], "another request for the same id").not.toBe(ids[0]);
  });

  it("keep a claim's request id across attempts", async () => {
    fake.server.next(json(503, UNAVAILABLE, RETRY_NOW)).next(json(200, '{"epoch":1,"resumed":false,"reason":null,"lastSeq":2,"sessionStartedAt":null}'));
    const claimed = claimedOrThrow(await fake.client.claim("demo-1", { workerId: "worker-a", harnessVersion: "v1", rollout: true }));
    expect(claimed).toEqual({ kind: "claimed", sessionId: "demo-1", workerId: "worker-a", epoch: 1, resumeReason: undefined, resumed: false, lastSeq: 2, nextSeq: 3, sessionStartedAt: undefined });
    const [first, retry] = fake.server.seen.map((r) => JSON.parse(r.body));
    expect(first.requestId).toMatch(/^[0-9a-f-]{36}$/);
    expect(retry.requestId).toBe(first.requestId);
    expect(first.rollout).toBe(true);
  });
});

describe("reads", () => {
  it("are undefined on 404 and throw on 401", async () => {
    fake.server
      .next(json(404, '{"error":"not_found","message":"session not found"}'))
      .next(json(401, '{"error":"unauthorized","message":"a valid bearer token is required"}'));
    expect(await fake.client.checkpoint("nope")).toBeUndefined();
    await expect(fake.client.checkpoint("nope")).rejects.toThrow(/credentials/);
  });

  it("read every page of the session list, in order, repeating a page on its own", async () => {
    const session = (id: string) => `{"sessionId":"${id}","status":"open"}`;
    fake.server
      .next(json(200, `{"sessions":[${session("a")},${session("b")}],"nextAfter":"b"}`))
      .next(json(503, UNAVAILABLE, RETRY_NOW))
      .next(json(200, `{"sessions":[${session("c")}]}`));
    expect((await fake.client.sessions("open")).map((s) => s.sessionId)).toEqual(["a", "b", "c"]);
    expect(fake.server.seen.map((r) => r.query)).toEqual(["status=open&limit=500", "status=open&after=b&limit=500", "status=open&after=b&limit=500"]);
  });

  it("read every page of the approval list, in order, repeating a page on its own", async () => {
    const item = (id: string) => `{"id":"${id}","kind":"APPROVAL","status":"PENDING","sessionId":"s","callId":"c","tool":"edit_file"}`;
    fake.server
      .next(json(200, `{"approvals":[${item("s~3")},${item("s~5")}],"nextAfter":"2026-12-05T09:00:00Z~s~5"}`))
      .next(json(503, UNAVAILABLE, RETRY_NOW))
      .next(json(200, `{"approvals":[${item("s~9")}]}`));
    expect((await fake.client.approvals()).map((a) => a.id)).toEqual(["s~3", "s~5", "s~9"]);
    const next = "status=PENDING&after=2026-12-05T09%3A00%3A00Z~s~5&limit=500";
    expect(fake.server.seen.map((r) => r.query)).toEqual(["status=PENDING&limit=500", next, next]);
  });

  it("send their query parameters, encoded", async () => {
    const notFound = json(404, '{"error":"not_found","message":"x"}');
    fake.server.next(notFound).next(notFound).next(notFound).next(notFound).otherwise(json(200, '{"approvals":[]}'));
    await fake.client.checkpoint("demo-1", ReadAt.atLeast(7));
    await fake.client.checkpoint("demo-1", ReadAt.seq(3));
    await fake.client.context("demo-1", { format: "anthropic", at: ReadAt.seq(5), maxTokens: 1000 });
    await fake.client.call("demo-1", "call 1/x");
    await fake.client.approvals({ status: "PENDING", kind: "UNKNOWN_OUTCOME" });
    expect(fake.server.seen.map((r) => r.path + (r.query === undefined ? "" : `?${r.query}`))).toEqual([
      "/v1/sessions/demo-1/checkpoint?minSeq=7",
      "/v1/sessions/demo-1/checkpoint?atSeq=3",
      "/v1/sessions/demo-1/context?format=anthropic&atSeq=5&maxTokens=1000",
      "/v1/sessions/demo-1/calls/call%201%2Fx",
      "/v1/approvals?status=PENDING&kind=UNKNOWN_OUTCOME&limit=500",
    ]);
    await expect(fake.client.recovery("demo-1", ReadAt.seq(3))).rejects.toThrow(/latest checkpoint/);
  });

  it("of the whole log follow the pages to the end", async () => {
    const event = (seq: number) => `{"seq":${seq},"eventId":"e${seq}","type":"user_message","content":"m"}`;
    fake.server
      .next(json(200, `{"events":[${event(1)},${event(2)}],"lastSeq":3,"nextSeq":3}`))
      .next(json(200, `{"events":[${event(3)}],"lastSeq":3,"nextSeq":4}`));
    const all = await fake.client.allEvents("demo-1");
    expect(all?.map((e) => e.seq)).toEqual([1, 2, 3]);
    expect(fake.server.seen.map((r) => r.query)).toEqual(["fromSeq=1&limit=500", "fromSeq=3&limit=500"]);
  });
});

describe("a paged read whose answer names the page just read as the next", () => {
  it("fails, naming it, rather than reading it again without end (and every element again each time)", async () => {
    const event = (seq: number) => `{"seq":${seq},"eventId":"e${seq}","type":"user_message","content":"m"}`;
    fake.server.otherwise(json(200, `{"events":[${event(1)}],"lastSeq":3,"nextSeq":1}`));
    await expect(fake.client.allEvents("demo-1")).rejects.toThrow(/the page from seq 1 asks for seq 1 next/);
    fake.server.otherwise(json(200, `{"sessions":[{"sessionId":"a","status":"open"}],"nextAfter":"a"}`));
    await expect(fake.client.sessions()).rejects.toThrow(/the page after a names the page after a, read already, as the next/);
    expect(fake.server.seen.length).toBeLessThan(5);
  });

  it("fails on a longer cycle of pages too, once it comes back to a page read already", async () => {
    const page = (id: string, next: string) => json(200, `{"sessions":[{"sessionId":"${id}","status":"open"}],"nextAfter":"${next}"}`);
    fake.server.next(page("a", "a")).next(page("b", "b")).next(page("c", "a")).otherwise(page("x", "a"));
    await expect(fake.client.sessions()).rejects.toThrow(/the page after b names the page after a, read already, as the next/);
    expect(fake.server.seen.length).toBe(3);
  });
});

describe("awaitDecision", () => {
  it("polls until the item is no longer pending", async () => {
    const item = (status: string) => `{"id":"s~7","kind":"APPROVAL","status":"${status}","sessionId":"s","callId":"c","tool":"edit_file"}`;
    fake.server.next(json(200, item("PENDING"))).next(json(200, item("PENDING"))).otherwise(json(200, item("GRANTED")));
    expect(settledOrThrow(await fake.client.awaitDecision("s~7", 10_000)).status).toBe("GRANTED");
    expect(fake.server.seen).toHaveLength(3);

    fake.server.otherwise(json(200, item("PENDING")));
    expect((await fake.client.awaitDecision("s~7", 300)).kind).toBe("still_pending");
    fake.server.otherwise(json(404, '{"error":"not_found","message":"approval not found"}'));
    expect((await fake.client.awaitDecision("s~7", 300)).kind).toBe("not_found");
  });
});

describe("a closed client", () => {
  it("refuses new calls", async () => {
    await fake.client.close();
    expect(() => fake.client.subscribe("s", 1, () => undefined)).toThrow(/closed/);
    await expect(fake.client.session("s")).rejects.toThrow(/closed/);
  });
});

async function unusedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
  const port = (probe.address() as { port: number }).port;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

async function until(condition: () => boolean): Promise<void> {
  for (let i = 0; !condition(); i++) {
    if (i > 500) {
      throw new Error("timed out waiting for the condition");
    }
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
