import { describe, expect, it } from "vitest";
import { ApprovalDecision, TetherError } from "../src/index.js";
import { json, withFakeServer } from "./fake-server.js";

/**
 * `decide` is never repeated, and its documented promise is that an answer it lost rejects with
 * `outcomeUnknown: true`. The approval-service answers 503 when the sequencer's verdict did not come in time
 * (DecisionGateway / ApiErrorMappers.noVerdict: "it may or may not have been applied"), and a gateway answers 502/504
 * after it may have passed the request on: the decision may have been recorded, yet the SDK says it was not.
 */
const fake = withFakeServer();

describe("a decision answered 503/502/504", () => {
  for (const [status, body] of [
    [503, '{"error":"unavailable","message":"no verdict from the sequencer in time; try again shortly"}'],
    [504, "<html>504 Gateway Time-out</html>"],
    [502, "<html>502 Bad Gateway</html>"],
  ] as const) {
    it(`${status}: rejects with outcomeUnknown, since the decision may have been recorded`, async () => {
      fake.server.otherwise(json(status, body, { "Retry-After": "1" }));
      const error = await fake.client.decide("demo-1~7", ApprovalDecision.grantOnce("ok")).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(TetherError);
      expect(fake.server.seen).toHaveLength(1); // still never repeated
      expect((error as TetherError).outcomeUnknown, "the decision may or may not have been recorded").toBe(true);
      expect((error as TetherError).apiError?.status).toBe(status);
    });
  }
});

/**
 * `eraseSession` is sent as `safe` and repeated after a lost answer, but an erase is not idempotent once
 * the id may be used again: if the first DELETE erased the session and another was made under its id before the retry
 * (what a LangGraph thread deleted and run again does), the retry erases that new session — and answers `erased`, as if
 * it were the caller's own. The Java SDK never repeats an erase (`Retry.NEVER`, HttpTetherClient.erase).
 */
describe("an erase whose answer is lost", () => {
  it("is not repeated (a repeat could erase another session made under the id meanwhile); the outcome is unknown", async () => {
    let erases = 0;
    fake.server.otherwise((req, res) => {
      erases++;
      if (erases === 1) {
        req.socket.destroy(); // erased, but the answer is lost; then another session is made under the id
        return;
      }
      res.writeHead(200, { "Content-Type": "application/json" });
      res.end('{"erased":"thread-1","events":42}'); // the new session, erased by the retry
    });
    const outcome = await fake.client.eraseSession("thread-1").catch((e: unknown) => e);
    expect(fake.server.seen.filter((r) => r.method === "DELETE"), "DELETEs sent").toHaveLength(1);
    expect(outcome).toBeInstanceOf(TetherError);
    expect((outcome as TetherError).outcomeUnknown).toBe(true);
  });
});

describe("an erase answered 503 (no verdict in time)", () => {
  it("rejects with outcomeUnknown: the session may or may not have been erased", async () => {
    fake.server.otherwise(json(503, '{"error":"unavailable","message":"no verdict from the sequencer in time"}', { "Retry-After": "1" }));
    const outcome = await fake.client.eraseSession("thread-1").catch((e: unknown) => e);
    expect(outcome).toBeInstanceOf(TetherError);
    expect((outcome as TetherError).outcomeUnknown).toBe(true);
    expect(fake.server.seen).toHaveLength(1);
  });
});
