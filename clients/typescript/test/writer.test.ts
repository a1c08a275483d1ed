import { describe, expect, it } from "vitest";
import { NewEvent, appendedOrThrow, claimedOrThrow, eventIdOf, type AppendBatch } from "../src/index.js";
import { appendBody } from "../src/requests.js";
import { json, withFakeServer } from "./fake-server.js";

/**
 * What a claimed worker's appends carry: the claim's epoch, and the session's start the claim answered, so that a worker
 * of an erased session is refused (`not_found`) by a session made again under its id, whose epochs start again at 1.
 */
const START = "2026-12-06T00:30:00.123Z";
/** The answer to an append of one event of `step` to demo-1, at seq 3. */
const appended = (step: string) => `{"appended":[{"eventId":"${eventIdOf("demo-1", step, 0)}","seq":3,"duplicate":false}],"lastSeq":3,"redactions":0}`;

describe("the append body", () => {
  const batch: AppendBatch = { step: "turn-1", events: [NewEvent.userMessage("hi")], expectedSeq: 2, epoch: 1 };

  it("carries the session's start as ISO-8601 text when the batch has one, and nothing otherwise", () => {
    expect(appendBody({ ...batch, sessionStartedAt: new Date(START) }, ["x"])).toEqual({
      events: [{ eventId: "x", type: "user_message", content: "hi" }],
      expectedSeq: 2,
      epoch: 1,
      sessionStartedAt: START,
    });
    expect(appendBody(batch, ["x"])).not.toHaveProperty("sessionStartedAt");
    expect(appendBody({ ...batch, sessionStartedAt: undefined }, ["x"])).not.toHaveProperty("sessionStartedAt");
  });

  it("refuses a start that is not a valid Date, naming the field", () => {
    expect(() => appendBody({ ...batch, sessionStartedAt: new Date("yesterday") }, ["x"])).toThrow(/sessionStartedAt must be a valid Date/);
    expect(() => appendBody({ ...batch, sessionStartedAt: START as unknown as Date }, ["x"])).toThrow(/sessionStartedAt/);
  });
});

describe("SessionWriter", () => {
  const fake = withFakeServer();

  it("sends the claim's epoch and session start with every append, replacing a batch's own", async () => {
    fake.server.next(json(200, `{"epoch":1,"resumed":false,"reason":null,"lastSeq":2,"sessionStartedAt":"${START}"}`));
    const claim = claimedOrThrow(await fake.client.claim("demo-1", { workerId: "worker-a", harnessVersion: "v1" }));
    const writer = fake.client.writer(claim);
    expect(writer.sessionStartedAt).toEqual(new Date(START));
    fake.server.next(json(200, appended("turn-1"))).next(json(200, appended("turn-2")));

    appendedOrThrow(await writer.append("turn-1", NewEvent.userMessage("hi")));
    appendedOrThrow(await writer.appendBatch({ step: "turn-2", events: [NewEvent.userMessage("again")], epoch: 7, sessionStartedAt: new Date(0) }));

    const appends = fake.server.seen.filter((r) => r.path === "/v1/sessions/demo-1/events").map((r) => JSON.parse(r.body));
    expect(appends).toHaveLength(2);
    for (const body of appends) {
      expect(body).toMatchObject({ epoch: 1, sessionStartedAt: START });
    }
  });

  it("sends no start for a claim without one (a service before it)", async () => {
    fake.server.next(json(200, '{"epoch":1,"resumed":false,"reason":null,"lastSeq":2}'));
    const writer = fake.client.writer(claimedOrThrow(await fake.client.claim("demo-1", { workerId: "worker-a", harnessVersion: "v1" })));
    fake.server.otherwise(json(200, appended("turn-1")));
    appendedOrThrow(await writer.append("turn-1", NewEvent.userMessage("hi")));
    const body = JSON.parse(fake.server.seen.at(-1)!.body);
    expect(body.epoch).toBe(1);
    expect(body).not.toHaveProperty("sessionStartedAt");
  });
});
