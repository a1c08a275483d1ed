import { describe, expect, it } from "vitest";
import { forkedOrThrow } from "../src/index.js";
import { withFakeServer, json } from "./fake-server.js";

/** Forking a session: what is sent, and each answer as its outcome. */
const fake = withFakeServer();

const FORKED =
  '{"sessionId":"fork-1","parentSessionId":"demo-1","atSeq":2,"seq":1,"harnessVersion":"v1","modelId":"claude-sonnet-4","tokenBudget":700,"sessionStartedAt":"2026-12-06T00:30:00.123Z"}';

describe("forkSession", () => {
  it("posts atSeq, the new session's id and the eventId the Java SDK derives for the same fork, and answers forked", async () => {
    fake.server.next(json(201, FORKED));
    const result = forkedOrThrow(await fake.client.forkSession("demo-1", 2, "fork-1"));

    expect(result).toEqual({ kind: "forked", sessionId: "fork-1", parentSessionId: "demo-1", atSeq: 2, seq: 1,
      harnessVersion: "v1", modelId: "claude-sonnet-4", tokenBudget: 700, sessionStartedAt: new Date("2026-12-06T00:30:00.123Z") });
    expect(fake.server.seen[0]!.method).toBe("POST");
    expect(fake.server.seen[0]!.path).toBe("/v1/sessions/demo-1/fork");
    // DerivedIds.ofClient("fork-1", "session_forked", "demo-1", "2"), as the Java SDK's HttpTetherClient.fork derives it
    expect(JSON.parse(fake.server.seen[0]!.body)).toEqual({ atSeq: 2, sessionId: "fork-1", eventId: "f4bfbfdb-2ddb-391f-9f0c-80b672731476" });
  });

  it("sends the same request again for the same fork, so a retry is the same fork; a fork without an id gets a random one", async () => {
    fake.server.next(json(201, FORKED));
    fake.server.next(json(201, FORKED));
    fake.server.next(json(201, FORKED));
    await fake.client.forkSession("demo-1", 2, "fork-1");
    await fake.client.forkSession("demo-1", 2, "fork-1");
    await fake.client.forkSession("demo-1", 2);

    const [first, again, unnamed] = fake.server.seen.map((r) => JSON.parse(r.body) as { sessionId: string; eventId: string });
    expect(again).toEqual(first);
    expect(unnamed!.sessionId).toMatch(/^[0-9a-f-]{36}$/);
    expect(unnamed!.eventId).not.toBe(first!.eventId);
  });

  it("answers not_found for a parent the tenant does not see, rejected naming atSeq past its end; refuses atSeq 0 before any call", async () => {
    fake.server.next(json(404, '{"error":"not_found","message":"session not found"}'));
    expect((await fake.client.forkSession("gone", 1)).kind).toBe("not_found");
    fake.server.next(json(400, '{"field":"atSeq","error":"invalid_field","message":"must be from 1 to the parent\'s last seq 6"}'));
    expect(await fake.client.forkSession("demo-1", 99)).toMatchObject({ kind: "rejected", status: 400, code: "invalid_field", field: "atSeq" });

    await expect(fake.client.forkSession("demo-1", 0)).rejects.toThrow(RangeError);
    await expect(fake.client.forkSession("demo-1", 1.5)).rejects.toThrow(RangeError);
    expect(fake.server.seen).toHaveLength(2);
  });
});
