import { describe, expect, it } from "vitest";
import { HarnessTool, UnexpectedOutcomeError, subagentStartedOrThrow, type NewSubagent } from "../src/index.js";
import { clientId } from "../src/ids.js";
import { withFakeServer, json } from "./fake-server.js";

/** Starting a subagent: what is sent, which attempts are repeated, and each answer as its outcome. */
const fake = withFakeServer();

const STARTED =
  '{"sessionId":"child-1","parentSessionId":"demo-1","seq":1,"harnessVersion":"v1","modelId":"m","toolMode":"READ_ONLY","redactions":0,"sessionStartedAt":"2026-12-06T01:10:00.250Z"}';
const UNAVAILABLE = '{"error":"unavailable","message":"the sequencer is not ready"}';
const RETRY_NOW = { "Retry-After": "0" };

/** The Java SDK's ClientRetryTest request. */
const REQUEST: NewSubagent = { sessionId: "child-1", objective: "Find the callers of Foo", toolMode: "READ_ONLY", constraints: ["read only"], tokenBudget: 300 };

describe("startSubagent", () => {
  it("posts to its parent the body the Java SDK sends, with the eventId it derives from the parent and the request", async () => {
    fake.server.next(json(201, STARTED));
    await fake.client.startSubagent("demo-1", REQUEST);

    const seen = fake.server.seen[0]!;
    expect(seen.method).toBe("POST");
    expect(seen.path).toBe("/v1/sessions/demo-1/subagents");
    // DerivedIds.ofClient("child-1", "session_started", "demo-1", <the body so far>): ClientRetryTest's value
    expect(seen.body).toBe(
      '{"sessionId":"child-1","objective":"Find the callers of Foo","toolMode":"READ_ONLY","constraints":["read only"],"tokenBudget":300,' +
        '"eventId":"91629e8a-9d88-3c9e-8148-c21933834e76"}',
    );
  });

  it("writes every field in the Java SDK's order, constraints always, and derives the eventId from that text", async () => {
    fake.server.next(json(201, STARTED)).next(json(201, STARTED));
    await fake.client.startSubagent("demo-1", {
      tokenBudget: 50,
      harnessTools: [HarnessTool.mutating("charge_card", { reconcilable: true }), HarnessTool.recorded("*", false)],
      toolMode: "WRITE",
      systemPrompt: "",
      objective: "Pay",
      sessionId: "child-2",
    });
    await fake.client.startSubagent("parent/2", { objective: "Look", toolMode: "READ_ONLY", sessionId: "child-3" });

    const full =
      '{"sessionId":"child-2","objective":"Pay","systemPrompt":"","toolMode":"WRITE","constraints":[],"tokenBudget":50,"harnessTools":[' +
      '{"name":"charge_card","mutating":true,"canReconcile":true,"recordedOnly":false},{"name":"*","mutating":false,"canReconcile":false,"recordedOnly":true}]';
    expect(fake.server.seen[0]!.body).toBe(`${full},"eventId":"${clientId("child-2", "session_started", "demo-1", `${full}}`)}"}`);
    const bare = '{"sessionId":"child-3","objective":"Look","toolMode":"READ_ONLY","constraints":[]';
    expect(fake.server.seen[1]!.path).toBe("/v1/sessions/parent%2F2/subagents");
    // the parent as it is, not as the path encodes it
    expect(fake.server.seen[1]!.body).toBe(`${bare},"eventId":"${clientId("child-3", "session_started", "parent/2", `${bare}}`)}"}`);
  });

  it("repeats the same body after a 503, and the same request again is the same body; one without an id gets a random one", async () => {
    fake.server.next(json(503, UNAVAILABLE, RETRY_NOW)).next(json(201, STARTED)).next(json(201, STARTED)).next(json(201, STARTED));
    const started = await fake.client.startSubagent("demo-1", REQUEST);
    await fake.client.startSubagent("demo-1", REQUEST);
    const { sessionId: _, ...unnamed } = REQUEST;
    await fake.client.startSubagent("demo-1", unnamed);

    expect(started.kind).toBe("subagent_started");
    const [attempt, retry, again, random] = fake.server.seen;
    expect(retry!.bytes).toEqual(attempt!.bytes);
    expect(again!.bytes).toEqual(attempt!.bytes);
    const body = JSON.parse(random!.body) as { sessionId: string; eventId: string };
    expect(body.sessionId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(body.eventId).not.toBe("91629e8a-9d88-3c9e-8148-c21933834e76");
  });

  it("answers subagent_started with the session's start, undefined when null; an unknown tool mode reads as READ_ONLY", async () => {
    fake.server.next(json(201, STARTED));
    expect(subagentStartedOrThrow(await fake.client.startSubagent("demo-1", REQUEST))).toEqual({
      kind: "subagent_started",
      sessionId: "child-1",
      parentSessionId: "demo-1",
      seq: 1,
      harnessVersion: "v1",
      modelId: "m",
      toolMode: "READ_ONLY",
      redactions: 0,
      sessionStartedAt: new Date("2026-12-06T01:10:00.250Z"),
    });
    const answer = (toolMode: string, start: string) =>
      `{"sessionId":"c","parentSessionId":"p","seq":1,"harnessVersion":"v2","modelId":"m2","toolMode":"${toolMode}","redactions":2,"sessionStartedAt":${start}}`;
    fake.server.next(json(201, answer("WRITE", "null"))).next(json(201, answer("EVERYTHING", "null")));
    const write = subagentStartedOrThrow(await fake.client.startSubagent("p", { objective: "o", toolMode: "WRITE" }));
    expect(write).toMatchObject({ toolMode: "WRITE", redactions: 2, harnessVersion: "v2", modelId: "m2", sessionStartedAt: undefined });
    expect(Object.isFrozen(write)).toBe(true);
    expect(subagentStartedOrThrow(await fake.client.startSubagent("p", { objective: "o", toolMode: "WRITE" })).toolMode).toBe("READ_ONLY");
  });

  it("answers not_found for a parent the caller does not see, rejected naming the field for the parent's limits", async () => {
    fake.server
      .next(json(404, '{"error":"not_found","message":"session not found"}'))
      .next(json(422, '{"error":"illegal_event","message":"wider than the parent\'s READ_ONLY","field":"toolMode"}'))
      .next(json(422, '{"error":"budget_exceeded","message":"the parent has 10 tokens left","field":"tokenBudget"}'))
      .next(json(422, '{"error":"session_closed","message":"the parent is closed"}'))
      .next(json(400, '{"error":"invalid_field","message":"too long","field":"objective"}'));

    const gone = await fake.client.startSubagent("gone", REQUEST);
    expect(gone).toEqual({ kind: "not_found", message: "session not found" });
    expect(() => subagentStartedOrThrow(gone)).toThrow(UnexpectedOutcomeError);
    expect(await fake.client.startSubagent("demo-1", REQUEST)).toMatchObject({ kind: "rejected", status: 422, code: "illegal_event", field: "toolMode" });
    expect(await fake.client.startSubagent("demo-1", REQUEST)).toMatchObject({ kind: "rejected", status: 422, code: "budget_exceeded", field: "tokenBudget" });
    expect(await fake.client.startSubagent("demo-1", REQUEST)).toMatchObject({ kind: "rejected", status: 422, code: "session_closed", field: undefined });
    expect(await fake.client.startSubagent("demo-1", REQUEST)).toMatchObject({ kind: "rejected", status: 400, code: "invalid_field", field: "objective" });
    expect(fake.server.seen).toHaveLength(5);
  });

  it("refuses what the session-service would before any call", async () => {
    const refused: [string, NewSubagent, ErrorConstructor | RangeErrorConstructor][] = [
      ["demo-1", { ...REQUEST, objective: " \t" }, TypeError],
      ["demo-1", { ...REQUEST, toolMode: "ADMIN" as "WRITE" }, TypeError],
      ["demo-1", { ...REQUEST, tokenBudget: 0 }, RangeError],
      ["demo-1", { ...REQUEST, tokenBudget: 1.5 }, RangeError],
      ["demo-1", { ...REQUEST, sessionId: "no spaces" }, TypeError],
      ["demo-1", { ...REQUEST, constraints: [1 as unknown as string] }, TypeError],
      ["demo-1", { ...REQUEST, systemPrompt: null as unknown as string }, TypeError],
      ["demo-1", { ...REQUEST, harnessTools: [{ name: "x", mutating: true, canReconcile: true, recordedOnly: true }] }, TypeError],
      [" ", REQUEST, TypeError],
    ];
    for (const [parent, subagent, error] of refused) {
      await expect(fake.client.startSubagent(parent, subagent)).rejects.toThrow(error);
    }
    expect(fake.server.seen).toHaveLength(0);
  });
});
