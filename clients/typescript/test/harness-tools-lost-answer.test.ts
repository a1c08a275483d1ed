import type { IncomingMessage, ServerResponse } from "node:http";
import { describe, expect, it } from "vitest";
import { HarnessTool, HarnessToolRunner, ToolOutput, type ToolInvocation } from "../src/index.js";
import { withFakeServer } from "./fake-server.js";
import { FakeSessionLog } from "./fake-session-log.js";

/**
 * A harness-run call whose `tool_call_started` append lost its answer (the sequencer appended it; the connection dropped
 * before the answer came back) is sent again by the transport (appends are `safe`) and answered as a duplicate. That
 * duplicate is the run's own start, not an earlier run's: the tool runs, once (it used to never run, and the call ended
 * UNKNOWN for a person, told an attempt "started and has no result" although nothing ran).
 */
const SESSION = "s-1";
const DEPLOY = HarnessTool.mutating("deploy");

describe("HarnessToolRunner when the answer to its start is lost", () => {
  const fake = withFakeServer();

  it("runs the call once (the duplicate is its own start, re-sent by the transport), not never", async () => {
    const log = new FakeSessionLog(SESSION, fake.server);
    const serve = (req: IncomingMessage, res: ServerResponse) => (log as unknown as { answer(q: IncomingMessage, s: ServerResponse): Promise<void> }).answer(req, res);
    let dropped = false;
    fake.server.otherwise(async (req, res) => {
      const body = fake.server.seen.at(-1)!.body;
      if (req.method === "POST" && !dropped && body.includes('"tool_call_started"')) {
        dropped = true;
        // the sequencer appends the start; its answer never reaches the client
        const lost = { writeHead: () => lost, end: () => lost, on: () => lost } as unknown as ServerResponse;
        await serve(req, lost);
        req.socket.destroy();
        return;
      }
      return serve(req, res);
    });
    const seq = log.ask("c1", "deploy");
    log.authorize("c1");
    const ran: ToolInvocation[] = [];
    const runner = new HarnessToolRunner(fake.client, log.claimed(), {
      tools: [{ tool: DEPLOY, run: (call) => (ran.push(call), ToolOutput.ok("deployed")) }],
      authorizationTimeoutMs: 5_000,
    });

    const result = await runner.run(seq, "c1");

    expect(dropped).toBe(true);
    expect(log.ofType("tool_call_started")).toHaveLength(1);
    expect(ran, "the tool ran once").toHaveLength(1);
    expect(result).toMatchObject({ kind: "completed", status: "OK", how: "RAN" });
  });
});
