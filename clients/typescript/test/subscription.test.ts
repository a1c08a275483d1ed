import { beforeEach, describe, expect, it } from "vitest";
import { RetryPolicy, TetherClient, TetherError, type SessionEvent, type SessionEventListener, type Subscription, type SubscriptionEnd } from "../src/index.js";
import { withFakeServer, frame, json, quietStream, sse } from "./fake-server.js";

/**
 * The subscription's side of the SSE protocol against a scripted server: catch-up, resume after a disconnect from the
 * last seq delivered, no duplicates, no gaps, and how it ends. The real session-service, killed and restarted under a
 * live subscription, is in tether.it.test.ts.
 */
const fake = withFakeServer();
let recorder: Recorder;

beforeEach(() => {
  recorder = new Recorder();
});

describe("a subscription", () => {
  it("resumes after a disconnect from the last seq delivered, without duplicates", async () => {
    fake.server
      .next(sse(frame("s", 1), frame("s", 2), frame("s", 3))) // then the stream ends
      .next(sse(frame("s", 3), frame("s", 4), frame("s", 5))) // 3 again: a server that repeats itself
      .otherwise(quietStream());
    const s = fake.client.subscribe("s", 1, recorder);
    await recorder.awaitSeqs(5);
    expect(recorder.seqs()).toEqual([1, 2, 3, 4, 5]);
    expect(s.lastSeq).toBe(5);
    await s.close();
    const [first, second] = fake.server.seen;
    expect(first!.query).toBe("fromSeq=1");
    expect(first!.headers["last-event-id"]).toBeUndefined();
    expect(second!.query).toBe("fromSeq=4");
    expect(second!.headers["last-event-id"]).toBe("3");
    expect(first!.headers.accept).toBe("text/event-stream");
    expect(first!.headers.authorization).toBe("Bearer dev-acme-agent");
    expect(recorder.disconnects.length).toBeGreaterThan(0);
    expect(recorder.connectedFrom.slice(0, 2)).toEqual([1, 4]);
  });

  it("sends back the id of the last event delivered, which names its session's start, and ends when that session was erased", async () => {
    const at = "2026-12-06T12:00:00.123Z";
    fake.server
      .next(sse(frame("s", 1, `1@${at}`), frame("s", 2, `2@${at}`))) // then the stream ends: the session was erased
      .next(json(404, '{"error":"not_found","message":"session not found: the one that started at … was erased"}'));
    const s = fake.client.subscribe("s", 1, recorder);
    const end = await s.ended;
    expect(end).toEqual({ reason: "not_found", lastSeq: 2 });
    expect(recorder.seqs()).toEqual([1, 2]);
    expect(fake.server.seen[1]!.headers["last-event-id"]).toBe(`2@${at}`);
    expect(fake.server.seen[1]!.query).toBe("fromSeq=3");
  });

  it("asks for the session it names at every connection, and ends when another has the id", async () => {
    const at = "2026-12-06T12:00:00.123Z";
    fake.server
      .next(sse(frame("s", 1, `1@${at}`))) // then the stream ends
      .next(json(404, '{"error":"not_found","message":"session not found: the one that started at … was erased"}'));
    const s = fake.client.subscribe("s", 1, recorder, { sessionStartedAt: new Date(at) });
    expect(await s.ended).toEqual({ reason: "not_found", lastSeq: 1 });
    expect(fake.server.seen[0]!.query).toBe("fromSeq=1&sessionStartedAt=2026-12-06T12%3A00%3A00.123Z");
    expect(fake.server.seen[1]!.query).toBe("fromSeq=2&sessionStartedAt=2026-12-06T12%3A00%3A00.123Z");
    expect(fake.server.seen[1]!.headers["last-event-id"]).toBe(`1@${at}`);
    expect(() => fake.client.subscribe("s", 1, recorder, { sessionStartedAt: new Date("yesterday") })).toThrow(TypeError);
  });

  it("sends the bare seq when the id is not the last event's own", async () => {
    fake.server
      .next(sse(frame("s", 1, "1@2026-12-06T12:00:00Z"), frame("s", 2, "7@2026-12-06T12:00:00Z")))
      .next(sse(frame("s", 3)))
      .otherwise(quietStream());
    const s = fake.client.subscribe("s", 1, recorder);
    await recorder.awaitSeqs(3);
    await s.close();
    expect(fake.server.seen[1]!.headers["last-event-id"]).toBe("2");
  });

  it("never delivers an event beyond the next seq: it reopens the stream after the last one", async () => {
    fake.server.next(sse(frame("s", 1), frame("s", 3))).next(sse(frame("s", 2), frame("s", 3))).otherwise(quietStream());
    const s = fake.client.subscribe("s", 1, recorder);
    await recorder.awaitSeqs(3);
    await s.close();
    expect(recorder.seqs()).toEqual([1, 2, 3]);
    expect(fake.server.seen[1]!.headers["last-event-id"]).toBe("1");
    expect(recorder.disconnects[0]!.message).toMatch(/skipped from seq 1 to 3/);
  });

  it("backs off between reconnects under a policy that never waits, rather than reconnecting in a tight loop", async () => {
    fake.server.otherwise(json(503, '{"error":"unavailable","message":"restarting"}'));
    const noRetries = new TetherClient(fake.server.options({ retry: RetryPolicy.none() }));
    const s = noRetries.subscribe("s", 1, recorder);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    await s.close();
    // the defaults' backoff: 0.1-0.2 s, then 0.2-0.4, then 0.4-0.8 … (without it: hundreds of requests a second)
    expect(fake.server.seen.length).toBeGreaterThanOrEqual(2);
    expect(fake.server.seen.length).toBeLessThanOrEqual(8);
  });

  it.each([
    ["whose first wait is zero (zero doubled stays zero)", RetryPolicy.of(3, 0, 5_000)],
    ["whose first wait is under a millisecond (doubled a thousand times before it waits at all)", RetryPolicy.of(3, 1e-300, 5_000)],
    ["whose longest wait is 1 ms (its jitter halves it to 0)", RetryPolicy.of(3, 1, 1)],
  ])("backs off between reconnects under a policy %s, rather than reconnecting in a tight loop", async (_what, policy) => {
    fake.server.otherwise(json(503, '{"error":"unavailable","message":"restarting"}'));
    const impatient = new TetherClient(fake.server.options({ retry: policy }));
    const s = impatient.subscribe("s", 1, recorder);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    await impatient.close();
    expect(s.isOpen).toBe(false);
    expect(fake.server.seen.length).toBeGreaterThanOrEqual(2);
    expect(fake.server.seen.length).toBeLessThanOrEqual(8);
  });

  it("starts at fromSeq", async () => {
    fake.server.next(sse(frame("s", 7), frame("s", 8))).otherwise(quietStream());
    const s = fake.client.subscribe("s", 7, recorder);
    expect(s.lastSeq).toBe(6);
    await recorder.awaitSeqs(2);
    await s.close();
    expect(recorder.seqs()).toEqual([7, 8]);
    expect(fake.server.seen[0]!.query).toBe("fromSeq=7");
    expect(fake.server.seen[0]!.headers["last-event-id"]).toBe("6");
  });

  it("outlives the request timeout while the stream is open and quiet", async () => {
    const quick = new TetherClient(fake.server.options({ timeoutMs: 300 }));
    fake.server.next(async (_req, res) => {
      res.writeHead(200, { "Content-Type": "text/event-stream" });
      res.flushHeaders();
      await new Promise((resolve) => setTimeout(resolve, 1_200)); // four timeouts of silence
      res.write(frame("s", 1));
    });
    const s = quick.subscribe("s", 1, recorder);
    await recorder.awaitSeqs(1);
    expect(s.isOpen).toBe(true);
    await quick.close();
    expect(recorder.disconnects).toEqual([]);
    expect(fake.server.seen).toHaveLength(1);
  });

  it("reads frames split anywhere, CRLF line ends and comments included", async () => {
    const text = `: keep-alive\r\n${frame("s", 1).replaceAll("\n", "\r\n")}${frame("s", 2)}`;
    fake.server.next(async (_req, res) => {
      res.writeHead(200, { "Content-Type": "text/event-stream" });
      const bytes = Buffer.from(text, "utf8");
      for (let i = 0; i < bytes.length; i += 7) {
        res.write(bytes.subarray(i, i + 7));
        await new Promise((resolve) => setImmediate(resolve));
      }
    });
    const s = fake.client.subscribe("s", 1, recorder);
    await recorder.awaitSeqs(2);
    await s.close();
    expect(recorder.seqs()).toEqual([1, 2]);
    expect(recorder.events[1]!.json.content).toBe("message 2");
  });

  it("retries an unavailable service until it answers", async () => {
    fake.server.next(json(503, '{"error":"unavailable","message":"restoring"}', { "Retry-After": "0" })).next(sse(frame("s", 1))).otherwise(quietStream());
    const s = fake.client.subscribe("s", 1, recorder);
    await recorder.awaitSeqs(1);
    expect(s.isOpen).toBe(true);
    await s.close();
    expect(recorder.disconnects[0]!.message).toMatch(/503 unavailable/);
    expect(recorder.seqs()).toEqual([1]);
  });

  it("asks an unavailable service again after its Retry-After, not sooner", async () => {
    const times: number[] = [];
    const unavailable = json(503, '{"error":"unavailable","message":"restoring"}', { "Retry-After": "2" });
    const stream = sse(frame("s", 1));
    fake.server
      .next(async (req, res) => {
        times.push(performance.now());
        await unavailable(req, res);
      })
      .next(async (req, res) => {
        times.push(performance.now());
        await stream(req, res);
      })
      .otherwise(quietStream());
    const s = fake.client.subscribe("s", 1, recorder);
    await recorder.awaitSeqs(1);
    await s.close();
    expect(times[1]! - times[0]!).toBeGreaterThanOrEqual(1900);
  });

  it("ends with not_found for an unknown session", async () => {
    fake.server.next(json(404, '{"error":"not_found","message":"session not found"}'));
    const s = fake.client.subscribe("nope", 1, recorder);
    const end = await s.ended;
    expect(end.reason).toBe("not_found");
    expect(recorder.end).toEqual(end);
    expect(s.isOpen).toBe(false);
  });

  it("ends with failed when the credentials are refused", async () => {
    fake.server.next(json(401, '{"error":"unauthorized","message":"a valid bearer token is required"}'));
    const end = await fake.client.subscribe("s", 1, recorder).ended;
    expect(end.reason).toBe("failed");
    const failure = (end as Extract<SubscriptionEnd, { reason: "failed" }>).failure;
    expect(failure).toBeInstanceOf(TetherError);
    expect((failure as TetherError).apiError?.code).toBe("unauthorized");
  });

  it("ends with failed, carrying the listener's error, when onConnected throws", async () => {
    fake.server.otherwise(quietStream());
    const bug = new Error("connected bug");
    const end = await fake.client.subscribe("s", 1, {
      onEvent: () => undefined,
      onConnected: () => {
        throw bug;
      },
    }).ended;
    expect(end.reason === "failed" && end.failure).toBe(bug);
  });

  it("ends with failed when the listener throws, carrying the listener's error", async () => {
    fake.server.next(sse(frame("s", 1), frame("s", 2)));
    const end = await fake.client.subscribe("s", 1, () => {
      throw new Error("listener bug");
    }).ended;
    expect(end).toMatchObject({ reason: "failed", lastSeq: 0 });
    expect((end as Extract<SubscriptionEnd, { reason: "failed" }>).failure.message).toBe("listener bug");
  });

  it("waits for an async listener before delivering the next event", async () => {
    fake.server.next(sse(frame("s", 1), frame("s", 2), frame("s", 3))).otherwise(quietStream());
    const order: string[] = [];
    const s = fake.client.subscribe("s", 1, async (e) => {
      order.push(`start ${e.seq}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
      order.push(`end ${e.seq}`);
    });
    while (s.lastSeq < 3) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    await s.close();
    expect(order).toEqual(["start 1", "end 1", "start 2", "end 2", "start 3", "end 3"]);
  });

  it("stops delivering when closed from the listener", async () => {
    fake.server.next(sse(frame("s", 1), frame("s", 2), frame("s", 3)));
    const seen: number[] = [];
    let s: Subscription | undefined = undefined;
    s = fake.client.subscribe("s", 1, (e) => {
      seen.push(e.seq);
      void s!.close();
    });
    const end = await s.ended;
    expect(end.reason).toBe("closed");
    expect(seen).toEqual([1]);
  });

  it("ends with the client, and a closed client takes no new subscription", async () => {
    fake.server.otherwise(quietStream());
    const s = fake.client.subscribe("s", 1, recorder);
    await recorder.connected;
    await fake.client.close();
    expect((await s.ended).reason).toBe("closed");
    expect(() => fake.client.subscribe("s", 1, recorder)).toThrow(/closed/);
  });
});

describe("awaitEvent", () => {
  it("returns the first match, or nothing in time", async () => {
    fake.server.next(sse(frame("s", 1), frame("s", 2), frame("s", 3))).otherwise(quietStream());
    const found = await fake.client.awaitEvent("s", 1, (e) => e.seq >= 2, 10_000);
    expect(found?.seq).toBe(2);
    expect(await fake.client.awaitEvent("s", 1, (e) => e.seq > 100, 500)).toBeUndefined();
  });

  it("rejects when the client is closed meanwhile", async () => {
    fake.server.otherwise(quietStream());
    const waiting = fake.client.awaitEvent("s", 1, () => false, 10_000);
    await new Promise((resolve) => setTimeout(resolve, 100));
    await fake.client.close();
    await expect(waiting).rejects.toThrow(/closed/);
  });

  it("rejects with the signal's reason once it aborts, the subscription closed; at once, nothing sent, for one aborted already", async () => {
    fake.server.otherwise(quietStream());
    const stop = new AbortController();
    const started = Date.now();
    const waiting = fake.client.awaitEvent("s", 1, () => false, 10_000, { signal: stop.signal });
    await new Promise((resolve) => setTimeout(resolve, 100));
    const reason = new Error("stop");
    stop.abort(reason);
    await expect(waiting).rejects.toBe(reason);
    expect(Date.now() - started).toBeLessThan(5_000);

    const seen = fake.server.seen.length;
    await expect(fake.client.awaitEvent("s", 1, () => true, 10_000, { signal: AbortSignal.abort() })).rejects.toMatchObject({ name: "AbortError" });
    expect(fake.server.seen.length).toBe(seen);
  });

  it("rejects for an unknown session", async () => {
    fake.server.next(json(404, '{"error":"not_found","message":"session not found"}'));
    await expect(fake.client.awaitEvent("nope", 1, () => true, 5_000)).rejects.toThrow(/not found/);
  });
});

/** Records what a listener is told. */
class Recorder implements SessionEventListener {
  readonly events: SessionEvent[] = [];
  readonly disconnects: Error[] = [];
  readonly connectedFrom: number[] = [];
  end: SubscriptionEnd | undefined;
  private resolveConnected!: () => void;
  readonly connected = new Promise<void>((resolve) => (this.resolveConnected = resolve));

  onEvent(event: SessionEvent): void {
    this.events.push(event);
  }

  onDisconnected(_lastSeq: number, cause: Error): void {
    this.disconnects.push(cause);
  }

  onConnected(fromSeq: number): void {
    this.connectedFrom.push(fromSeq);
    this.resolveConnected();
  }

  onEnd(end: SubscriptionEnd): void {
    this.end = end;
  }

  seqs(): number[] {
    return this.events.map((e) => e.seq);
  }

  async awaitSeqs(count: number): Promise<void> {
    const deadline = Date.now() + 15_000;
    while (this.events.length < count && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(this.events.length, "events received").toBeGreaterThanOrEqual(count);
  }
}
