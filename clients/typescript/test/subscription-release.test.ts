import type { IncomingMessage, ServerResponse } from "node:http";
import { describe, expect, it } from "vitest";
import { RetryPolicy, TetherClient } from "../src/index.js";
import { frame, quietStream, sse, withFakeServer } from "./fake-server.js";

/**
 * The subscription: resources it keeps after it ended, and waits it does not bound.
 */
const fake = withFakeServer();

/** Resolves once the server sees the client side of `req`'s connection go away. */
function closedBy(req: IncomingMessage, res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    if (res.destroyed || req.socket.destroyed) {
      resolve();
    }
    res.on("close", () => resolve());
    req.socket.on("close", () => resolve());
  });
}

describe("a subscription", () => {
  it("releases its open stream when onConnected throws (the subscription ended: nothing reads it)", async () => {
    let connectionClosed: Promise<void> | undefined;
    fake.server.next((req, res) => {
      connectionClosed = closedBy(req, res);
      quietStream()(req, res); // open and quiet: only the client can end it
    });
    const end = await fake.client.subscribe("s", 1, {
      onEvent: () => undefined,
      onConnected: () => {
        throw new Error("connected bug");
      },
    }).ended;
    expect(end.reason).toBe("failed");
    expect(connectionClosed).toBeDefined();
    const closed = await Promise.race([connectionClosed!.then(() => true), new Promise((r) => setTimeout(() => r(false), 1_500))]);
    expect(closed, "the stream's connection is closed once the subscription ended").toBe(true);
  });

  it("ends promptly when closed from onDisconnected, not after the whole backoff", async () => {
    const slow = new TetherClient(fake.server.options({ retry: RetryPolicy.of(3, 4_000, 4_000) }));
    fake.server.next(sse(frame("s", 1))).otherwise(quietStream()); // the stream ends after seq 1: a disconnect
    let closedAt = 0;
    const s = slow.subscribe("s", 1, {
      onEvent: () => undefined,
      onDisconnected: () => {
        closedAt = Date.now();
        void s.close();
      },
    });
    const end = await s.ended;
    const took = Date.now() - closedAt;
    await slow.close();
    expect(end.reason).toBe("closed");
    expect(took, "ms from close() to the end").toBeLessThan(1_000); // the backoff is 2-4 s
  });

  it("does not hang on an error answer whose body never comes: it reconnects", async () => {
    const quick = new TetherClient(fake.server.options({ timeoutMs: 300 }));
    fake.server
      .next((_req, res) => {
        // a 503 whose headers arrive and whose body never does (a stalled proxy or instance)
        res.writeHead(503, { "Content-Type": "application/json", "Content-Length": "200" });
        res.flushHeaders();
      })
      .next(sse(frame("s", 1)))
      .otherwise(quietStream());
    const seqs: number[] = [];
    const s = quick.subscribe("s", 1, (e) => void seqs.push(e.seq));
    const deadline = Date.now() + 3_000;
    while (seqs.length === 0 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await quick.close();
    expect(s.isOpen).toBe(false);
    expect(seqs, "seq 1, after reconnecting past the stalled error answer").toEqual([1]);
  });
});
