import { describe, expect, it } from "vitest";
import {
  HarnessHookError,
  HarnessTool,
  HarnessToolRunner,
  Reconciliation,
  ToolOutput,
  completedOrThrow,
  eventIdOf,
  type HarnessRunResult,
  type HarnessToolFunction,
  type ToolInvocation,
} from "../src/index.js";
import { json, withFakeServer } from "./fake-server.js";
import { FakeSessionLog } from "./fake-session-log.js";

/**
 * `HarnessToolRunner` against a fake session-service (`FakeSessionLog` on the scripted `FakeServer`) — the Java SDK's
 * `HarnessToolRunnerTest`, case for case: the protocol's steps and their eventIds, waiting, denial and interruption,
 * re-runs, reconciliation on resume, fencing. The real sequencer's rules are the integration test's.
 */
const SESSION = "s-1";
const PAY = HarnessTool.mutating("pay", { reconcilable: true });
const DEPLOY = HarnessTool.mutating("deploy");
const SEARCH = HarnessTool.readOnly("search");

describe("HarnessToolRunner", () => {
  const fake = withFakeServer();
  let log: FakeSessionLog;
  let ran: ToolInvocation[];
  let asked: ToolInvocation[];
  let found: Reconciliation;

  const setUp = (): void => {
    log = new FakeSessionLog(SESSION, fake.server);
    ran = [];
    asked = [];
    found = Reconciliation.noEffect("nothing under that key");
  };

  const runner = (deploy?: HarnessToolFunction): HarnessToolRunner =>
    new HarnessToolRunner(fake.client, log.claimed(), {
      tools: [
        {
          tool: PAY,
          run: (call) => {
            ran.push(call);
            return ToolOutput.ok(`paid under ${call.idempotencyKey}`);
          },
          reconcile: (call) => {
            asked.push(call);
            return found;
          },
        },
        {
          tool: DEPLOY,
          run:
            deploy ??
            (async (call) => {
              ran.push(call);
              return ToolOutput.ok("deployed");
            }),
        },
        {
          tool: SEARCH,
          run: () => {
            throw new Error("index offline");
          },
        },
      ],
      authorizationTimeoutMs: 10_000,
    });

  /** A call asked for and authorized by policy; its request's seq. */
  const authorized = (callId: string, tool: string): number => {
    const seq = log.ask(callId, tool);
    log.authorize(callId);
    return seq;
  };

  /** A call asked for, authorized and started (attempt 1, epoch 1) by a worker that died before its result; its request's seq. */
  const startedWithoutResult = (callId: string, tool: string): number => {
    const seq = authorized(callId, tool);
    log.add("tool_call_started", "TOOL", { callId, idempotencyKey: key(seq, callId), epoch: 1, attempt: 1 });
    return seq;
  };

  const key = (seq: number, callId: string): string => `${SESSION}/${seq}/${callId}`;

  /** `runner.run` started, once it follows the live log (it waits). */
  const waiting = async (r: HarnessToolRunner, seq: number, callId: string): Promise<{ result: Promise<HarnessRunResult>; settled: () => boolean }> => {
    let settled = false;
    const result = r.run(seq, callId, 20_000).finally(() => {
      settled = true;
    });
    await until(() => log.streams > 0);
    return { result, settled: () => settled };
  };

  it("starts an authorized call, runs it with the key and reports it, under eventIds derived from the key", async () => {
    setUp();
    const seq = log.ask("c1", "pay", '{"amount":5}');
    log.authorize("c1");

    const result = await runner().run(seq, "c1");

    const k = key(seq, "c1");
    expect(result).toEqual({ kind: "completed", callId: "c1", idempotencyKey: k, status: "OK", content: `paid under ${k}`, resultSeq: seq + 3, how: "RAN" });
    expect(ran).toEqual([{ sessionId: SESSION, callId: "c1", tool: "pay", argumentsJson: '{"amount":5}', requestSeq: seq, idempotencyKey: k, attempt: 1, epoch: 1 }]);
    const started = log.ofType("tool_call_started")[0]!;
    expect(started).toMatchObject({ idempotencyKey: k, epoch: 1, attempt: 1, eventId: eventIdOf(SESSION, `harness/${k}/start`, 0) });
    const reported = log.ofType("tool_result")[0]!;
    expect(reported).toMatchObject({ idempotencyKey: k, status: "OK", eventId: eventIdOf(SESSION, `harness/${k}/result`, 0) });
    const posts = fake.server.seen.filter((r) => r.method === "POST");
    expect(posts).toHaveLength(2);
    for (const post of posts) {
      expect(JSON.parse(post.body).epoch).toBe(1);
    }
  });

  it("runs a call of any tool it has no function of its own for with the function for *, and a tool given by name with its own", async () => {
    setUp();
    const byName: ToolInvocation[] = [];
    const r = new HarnessToolRunner(fake.client, log.claimed(), {
      tools: [
        {
          tool: HarnessTool.readOnly("*"),
          run: (call) => {
            ran.push(call);
            return ToolOutput.ok(`ran ${call.tool}`);
          },
        },
        {
          tool: DEPLOY,
          run: (call) => {
            byName.push(call);
            return ToolOutput.ok("deployed");
          },
        },
      ],
      authorizationTimeoutMs: 10_000,
    });
    const lookup = authorized("c1", "lookup_ticket");
    const deploy = authorized("c2", "deploy");

    const result = await r.run(lookup, "c1");
    await r.run(deploy, "c2");

    expect(result).toMatchObject({ kind: "completed", status: "OK", content: "ran lookup_ticket" });
    expect(ran.map((c) => c.tool)).toEqual(["lookup_ticket"]);
    expect(byName.map((c) => c.tool)).toEqual(["deploy"]);
    expect(r.declarations().map((t) => t.name)).toEqual(["*", "deploy"]);
    await expect(runner().run(authorized("c3", "lookup_ticket"), "c3")).rejects.toThrow(/lookup_ticket/);

    const other = authorized("c5", "other_tool");
    fake.server.next(
      json(
        200,
        JSON.stringify({
          sessionId: SESSION,
          lastSeq: other + 1,
          status: "RECOVERING",
          toolCursor: [
            { callId: "c5", tool: "other_tool", requestSeq: other, idempotencyKey: key(other, "c5"), state: "AUTHORIZED", awaitingApproval: false, runBy: "HARNESS", attempt: 0 },
          ],
        }),
      ),
    );
    const resumed = await r.resume();
    expect(resumed).toHaveLength(1);
    expect(resumed[0]).toMatchObject({ kind: "completed", content: "ran other_tool" });
  });

  it("does nothing twice: the same step again answers the result in the log", async () => {
    setUp();
    const seq = authorized("c1", "pay");
    const r = runner();
    await r.run(seq, "c1");
    const events = log.events.length;

    const again = await r.run(seq, "c1");
    const fromAnotherRunner = await runner().run(seq, "c1");

    expect(again).toMatchObject({ kind: "completed", how: "REPORTED_BEFORE" });
    expect(fromAnotherRunner).toEqual(again);
    expect(log.events).toHaveLength(events);
    expect(ran).toHaveLength(1);
  });

  it("waits for the authorization on the live log and runs once it comes", async () => {
    setUp();
    const seq = log.ask("c1", "deploy");
    log.add("approval_requested", "SYSTEM", { callId: "c1", tool: "deploy", shown: "deploy {}" });
    const w = await waiting(runner(), seq, "c1");
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(w.settled()).toBe(false);
    expect(log.ofType("tool_call_started")).toHaveLength(0);

    log.add("approval_granted", "APPROVER", { callId: "c1", scope: "ONCE", approver: "acme-approver", reason: "ok" });
    log.authorize("c1");

    expect((await w.result).kind).toBe("completed");
    expect(ran).toHaveLength(1);
  });

  it("answers not_yet_authorized when the wait runs out, and runs nothing", async () => {
    setUp();
    const seq = log.ask("c1", "deploy");
    log.add("approval_requested", "SYSTEM", { callId: "c1", tool: "deploy", shown: "deploy {}" });

    const result = await runner().run(seq, "c1", 300);

    expect(result).toMatchObject({ kind: "not_yet_authorized", callId: "c1", awaitingApproval: true });
    expect(log.ofType("tool_call_started")).toHaveLength(0);
    expect(ran).toHaveLength(0);
  });

  it("ends the wait at a denial, as denied, without running", async () => {
    setUp();
    const seq = log.ask("c1", "deploy");
    const w = await waiting(runner(), seq, "c1");
    const denial = log.add("approval_denied", "APPROVER", { callId: "c1", scope: "ONCE", approver: "acme-approver", reason: "not on a Friday" });

    expect(await w.result).toEqual({ kind: "denied", callId: "c1", reason: "denied by acme-approver: not on a Friday", seq: denial });
    expect(ran).toHaveLength(0);
    expect(log.ofType("tool_call_started")).toHaveLength(0);
  });

  it("ends the wait at an interruption, as cancelled, without running, even once authorized", async () => {
    setUp();
    const seq = log.ask("c1", "deploy");
    const r = runner();
    const w = await waiting(r, seq, "c1");
    const stop = log.add("turn_interrupted", "USER", { partialText: "", reason: "stop" });
    log.authorize("c1"); // a late authorization authorizes nothing

    expect(await w.result).toMatchObject({ kind: "cancelled", seq: stop });
    expect((await r.run(seq, "c1")).kind).toBe("cancelled");
    expect(ran).toHaveLength(0);
    expect(log.ofType("tool_call_started")).toHaveLength(0);
  });

  it("reconciles a started call without result as done, and never runs it again", async () => {
    setUp();
    const seq = startedWithoutResult("c1", "pay");
    const k = key(seq, "c1");
    found = Reconciliation.tookEffect(ToolOutput.ok("found the payment"));

    const result = await runner().run(seq, "c1");

    expect(result).toMatchObject({ kind: "completed", how: "RECONCILED", idempotencyKey: k, content: "found the payment" });
    expect(asked.map((a) => a.idempotencyKey)).toEqual([k]);
    expect(ran).toHaveLength(0);
    expect(log.ofType("tool_call_started")).toHaveLength(1);
    expect(log.ofType("tool_result")).toEqual([expect.objectContaining({ status: "OK", idempotencyKey: k })]);
  });

  it("retries a started call without effect in the worker's name, and runs it once under the RETRY's key", async () => {
    setUp();
    const seq = startedWithoutResult("c1", "pay");

    const result = await runner().run(seq, "c1");

    const retry = log.ofType("tool_outcome_resolved")[0]!;
    expect(retry).toMatchObject({ resolution: "RETRY", approver: "acme-agent", eventId: eventIdOf(SESSION, `harness/${key(seq, "c1")}/no-effect`, 0) });
    expect(retry.reason).toBe(`reconciled by key ${key(seq, "c1")}: no effect (nothing under that key)`);
    const newKey = key(retry.seq, "c1");
    expect(ran.map((r) => [r.idempotencyKey, r.attempt])).toEqual([[newKey, 2]]);
    expect(log.ofType("tool_call_started").map((s) => s.attempt)).toEqual([1, 2]);
    expect(result).toMatchObject({ kind: "completed", idempotencyKey: newKey, how: "RAN" });
  });

  it("ends a started call the hook cannot tell, or without a hook, UNKNOWN for a person, and it stays so", async () => {
    setUp();
    const pay = startedWithoutResult("c1", "pay");
    const deploy = startedWithoutResult("c2", "deploy");
    found = Reconciliation.cannotTell("the ledger is down");
    const r = runner();

    expect(await r.run(pay, "c1")).toMatchObject({ kind: "outcome_unknown", reason: "the ledger is down", idempotencyKey: key(pay, "c1") });
    const noHook = await r.run(deploy, "c2");
    expect(noHook.kind).toBe("outcome_unknown");
    expect(noHook.kind === "outcome_unknown" && noHook.reason).toContain("no reconciliation hook");
    const events = log.events.length;
    expect((await r.run(deploy, "c2")).kind).toBe("outcome_unknown");
    expect(log.events).toHaveLength(events);
    expect(log.ofType("tool_result").map((e) => e.status)).toEqual(["UNKNOWN", "UNKNOWN"]);
    expect(ran).toHaveLength(0);

    // a person's RETRY: the call runs once more under the RETRY's key; MARK_DONE finishes the other
    const retry = log.add("tool_outcome_resolved", "APPROVER", { callId: "c2", resolution: "RETRY", approver: "acme-approver", reason: "checked: nothing deployed" });
    expect(await r.run(deploy, "c2")).toMatchObject({ kind: "completed", idempotencyKey: key(retry, "c2") });
    log.add("tool_outcome_resolved", "APPROVER", { callId: "c1", resolution: "MARK_DONE", approver: "acme-approver", reason: "paid by hand" });
    expect(await r.run(pay, "c1")).toMatchObject({ kind: "resolved_by_person", resolution: "MARK_DONE", approver: "acme-approver", reason: "paid by hand" });
  });

  it("makes a throwing function an error for a read-only tool, unknown for a mutating one, reconciled for a reconcilable one", async () => {
    setUp();
    const search = authorized("c1", "search");
    const deploy = authorized("c2", "deploy");
    const throwing = runner(async () => {
      throw new Error("connection reset");
    });

    const error = await throwing.run(search, "c1");
    expect(error).toMatchObject({ kind: "completed", status: "ERROR", how: "RAN" });
    expect(error.kind === "completed" && error.content).toContain("index offline");
    const unknown = await throwing.run(deploy, "c2");
    expect(unknown.kind).toBe("outcome_unknown");
    expect(unknown.kind === "outcome_unknown" && unknown.reason).toMatch(/connection reset.*may or may not/);

    const pay = authorized("c3", "pay");
    found = Reconciliation.tookEffect(ToolOutput.ok("paid after all"));
    const payThrows = new HarnessToolRunner(fake.client, log.claimed(), {
      tools: [{ tool: PAY, run: () => Promise.reject(new Error("timeout")), reconcile: () => found }],
    });
    expect(await payThrows.run(pay, "c3")).toMatchObject({ kind: "completed", how: "RECONCILED", content: "paid after all" });
    expect(log.ofType("tool_call_started").filter((s) => s.callId === "c3")).toHaveLength(1);
  });

  it("appends nothing when the hook throws, and rejects with a HarnessHookError", async () => {
    setUp();
    const seq = startedWithoutResult("c1", "pay");
    const events = log.events.length;
    const r = new HarnessToolRunner(fake.client, log.claimed(), {
      tools: [
        {
          tool: PAY,
          run: () => ToolOutput.ok("x"),
          reconcile: async () => {
            throw new Error("ledger unreachable");
          },
        },
      ],
    });

    const failure = await r.run(seq, "c1").catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(HarnessHookError);
    expect((failure as HarnessHookError).message).toContain("ledger unreachable");
    expect((failure as HarnessHookError).callId).toBe("c1");
    expect(log.events).toHaveLength(events);
  });

  it("fences a stale worker at its start and at its result", async () => {
    setUp();
    const first = authorized("c1", "deploy");
    const second = authorized("c2", "deploy");
    const stale = runner(() => {
      log.claimByAnother(); // another worker claims the session while the tool runs
      return ToolOutput.ok("deployed");
    });

    expect(await stale.run(first, "c1")).toMatchObject({ kind: "fenced", currentEpoch: 2 });
    expect(log.ofType("tool_call_started")).toHaveLength(1);
    expect(log.ofType("tool_result")).toHaveLength(0);
    expect((await stale.run(second, "c2")).kind).toBe("fenced");
    expect(log.ofType("tool_call_started")).toHaveLength(1);
  });

  it("reads the log again after a refused step, and answers rejected for a refusal that stays", async () => {
    setUp();
    const seq = authorized("c1", "deploy");
    log.refuseNext((e) => (e.type === "tool_call_started" ? "call 'c1' is run by the tool-executor" : undefined));
    const r = runner();
    // refused once, then accepted on the next read: a race, not a refusal
    expect((await r.run(seq, "c1")).kind).toBe("completed");

    const other = authorized("c2", "deploy");
    const refusals: unknown[] = [];
    log.refuseEvery((e) => {
      refusals.push(e.type);
      return "call 'c2' is run by the tool-executor";
    });
    expect(await r.run(other, "c2")).toMatchObject({ kind: "rejected", code: "illegal_event", field: "events[0]" });
    expect(refusals).toEqual(["tool_call_started", "tool_call_started", "tool_call_started"]);
    expect(ran).toHaveLength(1);
  });

  it("resume takes the started and authorized harness-run calls of the checkpoint, and leaves the others", async () => {
    setUp();
    const paid = startedWithoutResult("c1", "pay");
    const waitingForApprover = log.ask("c2", "deploy");
    const ready = authorized("c3", "deploy");
    found = Reconciliation.tookEffect(ToolOutput.ok("found it"));
    const cursor = (callId: string, tool: string, seq: number, state: string, awaitingApproval: boolean, runBy: string, attempt: number) => ({
      callId, tool, requestSeq: seq, idempotencyKey: key(seq, callId), state, awaitingApproval, runBy, attempt,
    });
    const checkpoint = {
      sessionId: SESSION,
      lastSeq: log.events.length,
      status: "RECOVERING",
      toolCursor: [
        cursor("c1", "pay", paid, "STARTED", false, "HARNESS", 1),
        cursor("c2", "deploy", waitingForApprover, "REQUESTED", true, "HARNESS", 0),
        cursor("e1", "read_file", waitingForApprover, "AUTHORIZED", false, "EXECUTOR", 0),
        cursor("c3", "deploy", ready, "AUTHORIZED", false, "HARNESS", 0),
        cursor("r1", "web_search", ready, "AUTHORIZED", false, "RECORDED", 0),
        cursor("x1", "deploy", ready, "AUTHORIZED", false, "EXECUTOR", 0), // a tool-executor tool of the same name: not the runner's
      ],
    };
    fake.server.next(json(200, JSON.stringify(checkpoint)));
    const claim = log.claimed();

    const resumed = await runner().resume();

    expect(resumed).toEqual([
      expect.objectContaining({ kind: "completed", callId: "c1", how: "RECONCILED" }),
      expect.objectContaining({ kind: "completed", callId: "c3", how: "RAN" }),
    ]);
    expect(ran.map((r) => r.callId)).toEqual(["c3"]);
    const read = fake.server.seen[0]!;
    expect(read.path).toBe(`/v1/sessions/${SESSION}/checkpoint`);
    expect(read.query).toBe(`minSeq=${claim.lastSeq}`);
  });

  it("resume stops at fenced and answers not_found for a session that is gone", async () => {
    setUp();
    const a = authorized("c1", "deploy");
    const b = authorized("c2", "deploy");
    const cursor = (callId: string, seq: number) => ({ callId, tool: "deploy", requestSeq: seq, state: "AUTHORIZED", awaitingApproval: false, runBy: "HARNESS" });
    const r = runner();
    log.claimByAnother();
    fake.server.next(json(200, JSON.stringify({ sessionId: SESSION, lastSeq: 9, status: "ACTIVE", toolCursor: [cursor("c1", a), cursor("c2", b)] })));
    expect((await r.resume()).map((x) => x.kind)).toEqual(["fenced"]);
    fake.server.next(json(404, '{"error":"not_found","message":"no such session"}'));
    expect((await r.resume()).map((x) => x.kind)).toEqual(["not_found"]);
    expect(ran).toHaveLength(0);
  });

  it("refuses misuse early", async () => {
    setUp();
    const seq = log.ask("c1", "read_file");
    const r = runner();
    await expect(r.run(seq, "c1")).rejects.toThrow(/read_file/);
    await expect(r.run(seq, "nope")).rejects.toThrow(/nope/);
    await expect(r.run(0, "c1")).rejects.toThrow(RangeError);
    await expect(r.run(seq, " ")).rejects.toThrow(/blank/);
    const claim = log.claimed();
    const make = (tools: ConstructorParameters<typeof HarnessToolRunner>[2]["tools"]) => () => new HarnessToolRunner(fake.client, claim, { tools });
    expect(make([{ tool: DEPLOY, run: () => ToolOutput.ok(""), reconcile: () => found }])).toThrow(/reconcilable/);
    expect(make([{ tool: PAY, run: () => ToolOutput.ok("") }])).toThrow(/reconcile hook/);
    expect(make([{ tool: HarnessTool.recorded("r", false), run: () => ToolOutput.ok("") }])).toThrow(/recorded-only/);
    expect(make([{ tool: DEPLOY, run: () => ToolOutput.ok("") }, { tool: DEPLOY, run: () => ToolOutput.ok("") }])).toThrow(/twice/);
    expect(make([])).toThrow(/at least one/);
    expect(() => new HarnessToolRunner(fake.client, claim, { tools: [{ tool: DEPLOY, run: () => ToolOutput.ok("") }], authorizationTimeoutMs: -1 })).toThrow(RangeError);
    expect(() => HarnessTool.of({ name: "x", mutating: false, canReconcile: true, recordedOnly: true })).toThrow(/recorded-only/);
    expect(() => HarnessTool.mutating("x".repeat(129))).toThrow(/128/);
    expect(() => Reconciliation.tookEffect(ToolOutput.unknown("?"))).toThrow(/OK or ERROR/);
    expect(r.declarations()).toEqual([PAY, DEPLOY, SEARCH]);
    expect(completedOrThrow({ kind: "completed", callId: "c", idempotencyKey: "k", status: "OK", content: undefined, resultSeq: 3, how: "RAN" }).resultSeq).toBe(3);
    expect(() => completedOrThrow({ kind: "denied", callId: "c", reason: "no", seq: 3 })).toThrow(/denied/);
  });

  it("declares a session's harness tools, and a session without any sends what it sent before", async () => {
    setUp();
    const created = '{"sessionId":"s-2","seq":1,"harnessVersion":"v1","modelId":"m","redactions":0}';
    fake.server.next(json(201, created)).next(json(201, created));
    await fake.client.createSession({ objective: "o", modelId: "m", toolMode: "WRITE", sessionId: "s-2", harnessTools: [PAY, SEARCH] });
    await fake.client.createSession({ objective: "o", modelId: "m", toolMode: "WRITE", sessionId: "s-2", harnessTools: [] });
    expect(fake.server.seen[0]!.body).toContain(
      '"harnessTools":[{"name":"pay","mutating":true,"canReconcile":true,"recordedOnly":false},{"name":"search","mutating":false,"canReconcile":false,"recordedOnly":false}]',
    );
    expect(fake.server.seen[1]!.body).not.toContain("harnessTools");
  });

  it("tells the caller once a call is authorized, before its start is recorded", async () => {
    setUp();
    const seq = authorized("c1", "deploy");
    const seen: [string, number][] = [];
    const r = new HarnessToolRunner(fake.client, log.claimed(), {
      tools: [{ tool: DEPLOY, run: () => ToolOutput.ok("deployed") }],
      onAuthorized: (call) => seen.push([call.idempotencyKey, log.ofType("tool_call_started").length]),
      principal: "acme-agent",
    });
    await r.run(seq, "c1");
    expect(seen).toEqual([[key(seq, "c1"), 0]]);
    expect(String(r)).toBe("HarnessToolRunner[s-1, epoch 1, tools deploy]");
  });
});

async function until(condition: () => boolean, timeoutMs = 10_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > end) {
      throw new Error("timed out waiting");
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
