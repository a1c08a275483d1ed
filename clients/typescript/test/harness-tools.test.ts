import type { IncomingMessage, ServerResponse } from "node:http";
import { describe, expect, it } from "vitest";
import {
  HarnessHookError,
  HarnessTool,
  HarnessToolRunner,
  NewEvent,
  Reconciliation,
  TetherError,
  ToolOutput,
  claimedOrThrow,
  completedOrThrow,
  eventIdOf,
  type Claimed,
  type HarnessRunResult,
  type HarnessToolFunction,
  type SessionEvent,
  type TetherClient,
  type ToolInvocation,
} from "../src/index.js";
import { HarnessCallFold, epochMillisOf, externalKeyOf } from "../src/harness-tools.js";
import { json, withFakeServer } from "./fake-server.js";
import { FakeTether } from "./fake-tether.js";
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
/** When the fake log's session started (its seq 1's occurredAt), and that instant in epoch ms (as Java's Instant says). */
const STARTED_AT = "2026-12-01T08:46:49.377Z";
const STARTED_MS = 1796114809377;

describe("HarnessToolRunner", () => {
  const fake = withFakeServer();
  let log: FakeSessionLog;
  let ran: ToolInvocation[];
  let asked: ToolInvocation[];
  let found: Reconciliation;

  const setUp = (startedAt: string = STARTED_AT): void => {
    log = new FakeSessionLog(SESSION, fake.server, startedAt);
    ran = [];
    asked = [];
    found = Reconciliation.noEffect("nothing under that key");
  };

  const runner = (deploy?: HarnessToolFunction, claim: Claimed = log.claimed()): HarnessToolRunner =>
    new HarnessToolRunner(fake.client, claim, {
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

  /**
   * A call asked for, authorized and started (attempt 1, epoch 1) by a worker that died before its result; its request's
   * seq. The start records `externalKey` when given (else none, as SDKs before it started calls).
   */
  const startedWithoutResult = (callId: string, tool: string, externalKey?: (seq: number) => string): number => {
    const seq = authorized(callId, tool);
    log.add("tool_call_started", "TOOL", { callId, idempotencyKey: key(seq, callId), epoch: 1, attempt: 1, ...(externalKey === undefined ? {} : { externalKey: externalKey(seq) }) });
    return seq;
  };

  /** The call's key in the log. */
  const key = (seq: number, callId: string): string => `${SESSION}/${seq}/${callId}`;
  /** The key handed to the tool: the log key, `~` and the session's start in epoch ms (written out, not computed by the SDK). */
  const ext = (seq: number, callId: string, startedMs: number = STARTED_MS): string => `${SESSION}/${seq}/${callId}~${startedMs}`;

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
    const x = ext(seq, "c1");
    // the tool gets the external key; the result (the caller's, the log's) keeps the log key
    expect(result).toEqual({ kind: "completed", callId: "c1", idempotencyKey: k, status: "OK", content: `paid under ${x}`, resultSeq: seq + 3, how: "RAN" });
    expect(ran).toEqual([{ sessionId: SESSION, callId: "c1", tool: "pay", argumentsJson: '{"amount":5}', requestSeq: seq, idempotencyKey: x, logKey: k, attempt: 1, epoch: 1 }]);
    const started = log.ofType("tool_call_started")[0]!;
    expect(started).toMatchObject({ idempotencyKey: k, externalKey: x, epoch: 1, attempt: 1, eventId: eventIdOf(SESSION, `harness/${k}/start`, 0) });
    const reported = log.ofType("tool_result")[0]!;
    expect(reported).toMatchObject({ idempotencyKey: k, status: "OK", eventId: eventIdOf(SESSION, `harness/${k}/result`, 0) });
    const posts = fake.server.seen.filter((r) => r.method === "POST");
    expect(posts).toHaveLength(2);
    for (const post of posts) {
      expect(JSON.parse(post.body)).toMatchObject({ epoch: 1, sessionStartedAt: STARTED_AT });
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

  /** An approver asked while the run waited: the wait that runs out says so, as of the last seq it names. */
  it("answers not_yet_authorized awaiting an approver when the request came during the wait that ran out", async () => {
    setUp();
    const seq = log.ask("c1", "deploy");
    const result = runner().run(seq, "c1", 1_500);
    await until(() => log.streams > 0);
    log.add("approval_requested", "SYSTEM", { callId: "c1", tool: "deploy", shown: "deploy {}" });

    expect(await result).toEqual({ kind: "not_yet_authorized", callId: "c1", awaitingApproval: true, lastSeq: seq + 1 });
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

  it("ends the wait at once when the caller's signal aborts: the stream closed, rejected with the reason, nothing started or run", async () => {
    setUp();
    const seq = log.ask("c1", "deploy");
    log.add("approval_requested", "SYSTEM", { callId: "c1", tool: "deploy", shown: "deploy {}" });
    const r = runner();
    const stop = new AbortController();
    const result = r.run(seq, "c1", 20_000, { signal: stop.signal });
    await until(() => log.openStreams > 0);

    const reason = new Error("the run stopped waiting");
    stop.abort(reason);

    await expect(within(2_000, result)).rejects.toBe(reason);
    await until(() => log.openStreams === 0, 2_000);
    log.add("approval_granted", "APPROVER", { callId: "c1", scope: "ONCE", approver: "acme-approver", reason: "ok" });
    log.authorize("c1");
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(ran).toHaveLength(0);
    expect(log.ofType("tool_call_started")).toHaveLength(0);
    expect(log.ofType("tool_result")).toHaveLength(0);
    // the call is as it was: a run without the signal takes it
    expect(await r.run(seq, "c1")).toMatchObject({ kind: "completed", how: "RAN" });
    expect(ran).toHaveLength(1);
  });

  it("rejects with an AbortError at once for a signal aborted already, even for an authorized call: nothing read, started or run", async () => {
    setUp();
    const waits = log.ask("c1", "deploy");
    const authorizedSeq = authorized("c2", "deploy");
    const r = runner();
    const reads = fake.server.seen.length;

    for (const [seq, callId] of [[waits, "c1"], [authorizedSeq, "c2"]] as const) {
      await expect(within(2_000, r.run(seq, callId, 20_000, { signal: AbortSignal.abort() }))).rejects.toMatchObject({ name: "AbortError" });
    }

    expect(fake.server.seen.length).toBe(reads);
    expect(log.streams).toBe(0);
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
    expect(asked.map((a) => [a.idempotencyKey, a.logKey])).toEqual([[key(seq, "c1"), key(seq, "c1")]]); // started with no externalKey: the log key
    expect(ran.map((r) => [r.idempotencyKey, r.logKey, r.attempt])).toEqual([[ext(retry.seq, "c1"), newKey, 2]]);
    expect(log.ofType("tool_call_started").map((s) => [s.attempt, s.idempotencyKey, s.externalKey])).toEqual([
      [1, key(seq, "c1"), undefined],
      [2, newKey, ext(retry.seq, "c1")],
    ]);
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

  /** A runner of PAY whose function always rejects with `failure`, and whose hook always proves no effect. */
  const payFailingEveryTime = (failure: string, run?: HarnessToolFunction): HarnessToolRunner =>
    new HarnessToolRunner(fake.client, log.claimed(), {
      tools: [
        {
          tool: PAY,
          run:
            run ??
            ((call) => {
              ran.push(call);
              return Promise.reject(new Error(failure));
            }),
          reconcile: (call) => {
            asked.push(call);
            return Reconciliation.noEffect("no charge under that key");
          },
        },
      ],
    });

  // it started the call again in a tight loop (8 starts and 8 RETRYs in one run), then rejected with "made no progress
  // in 16 steps"; as the executor (CallRules.MAX_STARTS), a call is started at most HarnessToolRunner.MAX_STARTS times
  it("starts a reconcilable call whose function keeps throwing at most MAX_STARTS times, then ends it ERROR naming the limit and the failure", async () => {
    setUp();
    const seq = authorized("c1", "pay");
    const r = payFailingEveryTime("card network down");

    const result = await r.run(seq, "c1");

    expect(HarnessToolRunner.MAX_STARTS).toBe(3);
    expect(ran.map((c) => c.attempt)).toEqual([1, 2, 3]);
    expect(asked.map((c) => c.attempt)).toEqual([1, 2, 3]);
    const starts = log.ofType("tool_call_started");
    expect(starts.map((s) => s.attempt)).toEqual([1, 2, 3]);
    expect(log.ofType("tool_outcome_resolved")).toHaveLength(2);
    const lastKey = starts[2]!.idempotencyKey as string;
    expect(result).toMatchObject({ kind: "completed", status: "ERROR", idempotencyKey: lastKey, how: "RAN" });
    const content = result.kind === "completed" ? (result.content ?? "") : "";
    for (const part of ["pay failed: Error: card network down", "started 3 times", "MAX_STARTS", "no charge under that key"]) {
      expect(content).toContain(part);
    }
    expect(log.ofType("tool_result")).toEqual([
      expect.objectContaining({ status: "ERROR", idempotencyKey: lastKey, content, eventId: eventIdOf(SESSION, `harness/${lastKey}/result`, 0) }),
    ]);

    const events = log.events.length;
    expect(await r.run(seq, "c1")).toMatchObject({ kind: "completed", status: "ERROR", how: "REPORTED_BEFORE" });
    expect(log.events).toHaveLength(events);
    expect(ran).toHaveLength(3);
  });

  it("does not stop a reconcilable call that fails twice and succeeds at its last allowed start", async () => {
    setUp();
    const seq = authorized("c1", "pay");
    const r = payFailingEveryTime("unused", (call) => {
      ran.push(call);
      return call.attempt < HarnessToolRunner.MAX_STARTS ? Promise.reject(new Error("card network down")) : ToolOutput.ok("paid");
    });

    expect(await r.run(seq, "c1")).toMatchObject({ kind: "completed", status: "OK", content: "paid" });
    expect(ran.map((c) => c.attempt)).toEqual([1, 2, 3]);
  });

  // counted from the log, as the executor counts from its ledger: a worker taking over gets no fresh starts
  it("counts a call's starts from the log: a restarted worker gets no fresh starts, and one the third start has no result of runs it no more", async () => {
    setUp();
    // a dead worker: attempt 1 proven without effect (its RETRY), attempt 2 started without a result
    const twice = authorized("c1", "pay");
    log.add("tool_call_started", "TOOL", { callId: "c1", idempotencyKey: key(twice, "c1"), epoch: 1, attempt: 1 });
    const retry = log.add("tool_outcome_resolved", "TOOL", { callId: "c1", resolution: "RETRY", approver: "acme-agent", reason: "reconciled: no effect" });
    log.add("tool_call_started", "TOOL", { callId: "c1", idempotencyKey: key(retry, "c1"), epoch: 1, attempt: 2 });

    const first = await payFailingEveryTime("card network down").run(twice, "c1");
    expect(first).toMatchObject({ kind: "completed", status: "ERROR" });
    expect(first.kind === "completed" && first.content).toMatch(/card network down.*started 3 times/);
    expect(asked.map((c) => c.attempt)).toEqual([2, 3]);
    expect(ran.map((c) => c.attempt)).toEqual([3]);

    // attempt 3 started without a result (the worker died in it): reconciled as no effect, it is not started again
    ran = [];
    asked = [];
    const thrice = authorized("c2", "pay");
    let keySeq = thrice;
    for (let attempt = 1; attempt <= HarnessToolRunner.MAX_STARTS; attempt++) {
      if (attempt > 1) {
        keySeq = log.add("tool_outcome_resolved", "TOOL", { callId: "c2", resolution: "RETRY", approver: "acme-agent", reason: "reconciled: no effect" });
      }
      log.add("tool_call_started", "TOOL", { callId: "c2", idempotencyKey: key(keySeq, "c2"), epoch: 1, attempt });
    }
    const retries = log.ofType("tool_outcome_resolved").length;

    const second = await payFailingEveryTime("unused", (call) => {
      ran.push(call);
      return ToolOutput.ok("paid");
    }).run(thrice, "c2");

    expect(second).toMatchObject({ kind: "completed", status: "ERROR", idempotencyKey: key(keySeq, "c2"), how: "RECONCILED" });
    const content = second.kind === "completed" ? (second.content ?? "") : "";
    for (const part of ["started 3 times", "MAX_STARTS", "no charge under that key"]) {
      expect(content).toContain(part);
    }
    expect(ran).toHaveLength(0);
    expect(asked.map((c) => c.attempt)).toEqual([3]);
    expect(log.ofType("tool_outcome_resolved")).toHaveLength(retries);
    expect(log.ofType("tool_call_started").filter((s) => s.callId === "c2")).toHaveLength(3);
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
    expect(seen).toEqual([[ext(seq, "c1"), 0]]);
    expect(String(r)).toBe("HarnessToolRunner[s-1, epoch 1, tools deploy]");
  });

  it("hands the tool the external key (the log key, ~, the session's start in ms), records it in the start, and reports under the log key", async () => {
    setUp("2026-12-01T08:46:49.377999999Z"); // sub-millisecond digits are cut, not rounded
    const seq = authorized("c1", "pay");
    const r = runner(undefined, log.claimed({ withStart: false })); // from a service before the claim answered the start

    const result = await r.run(seq, "c1");

    const k = key(seq, "c1");
    const x = `${SESSION}/${seq}/c1~1796114809377`;
    expect(ran.map((c) => [c.idempotencyKey, c.logKey])).toEqual([[x, k]]);
    expect(log.ofType("tool_call_started")).toEqual([expect.objectContaining({ callId: "c1", idempotencyKey: k, externalKey: x, attempt: 1 })]);
    expect(log.ofType("tool_result")).toEqual([expect.objectContaining({ callId: "c1", idempotencyKey: k, content: `paid under ${x}` })]);
    expect(result).toMatchObject({ kind: "completed", idempotencyKey: k });
    const started = fake.server.seen.find((q) => q.method === "POST" && JSON.parse(q.body).events[0].type === "tool_call_started")!;
    expect(JSON.parse(started.body).events[0]).toEqual({ eventId: eventIdOf(SESSION, `harness/${k}/start`, 0), type: "tool_call_started", callId: "c1", idempotencyKey: k, epoch: 1, attempt: 1, externalKey: x });

    // without the claim's, the session's start is read once per runner, from its seq 1
    await r.run(authorized("c2", "deploy"), "c2");
    const firstEventReads = fake.server.seen.filter((q) => q.method === "GET" && q.path === `/v1/sessions/${SESSION}/events` && /(^|&)fromSeq=1(&|$)/.test(q.query ?? ""));
    expect(firstEventReads).toHaveLength(1);
    expect(firstEventReads[0]!.query).toContain("limit=1");
    expect(ran.map((c) => c.idempotencyKey)).toEqual([x, ext(seq + 4, "c2")]);
  });

  it("takes the session's start for the external keys from the claim, without reading seq 1", async () => {
    setUp();
    const claim = log.claimed();
    expect(claim.sessionStartedAt).toEqual(new Date(STARTED_AT));
    const r = runner(undefined, claim);
    const first = authorized("c1", "pay");
    await r.run(first, "c1");
    const second = authorized("c2", "deploy");
    await r.run(second, "c2");

    expect(ran.map((c) => c.idempotencyKey)).toEqual([ext(first, "c1"), ext(second, "c2")]);
    expect(log.ofType("tool_call_started").map((e) => e.externalKey)).toEqual([ext(first, "c1"), ext(second, "c2")]);
    const firstEventReads = fake.server.seen.filter((q) => q.method === "GET" && /(^|&)fromSeq=1(&|$)/.test(q.query ?? ""));
    expect(firstEventReads).toHaveLength(0);
  });

  it("answers not_found, running nothing, for a call of a session made again under its id since the claim, at the same seq and epoch", async () => {
    setUp();
    const claim = log.claimed(); // of the session that started at STARTED_AT
    const r = runner(undefined, claim);
    log.eraseAndStartAgain("2026-12-01T09:02:11.004Z"); // claimed at epoch 1 again: the stale runner's epoch passes
    const seq = authorized("c1", "pay");

    expect(await r.run(seq, "c1")).toMatchObject({ kind: "not_found" });
    expect(ran).toEqual([]);
    expect(log.ofType("tool_call_started")).toEqual([]);
    const posts = fake.server.seen.filter((q) => q.method === "POST");
    expect(posts).toHaveLength(1);
    expect(JSON.parse(posts[0]!.body)).toMatchObject({ epoch: 1, sessionStartedAt: STARTED_AT });
  });

  /**
   * The tool ran, and its result could not be appended within the client's retries: the run rejects, and the next run of
   * the call in this runner reports the output it kept, rather than take the attempt for one a crash left without a
   * result (no hook: UNKNOWN, for a person to decide what this runner knows).
   */
  it("reports an output whose result could not be appended at the call's next run in this runner (RAN), not as a crash's", async () => {
    setUp();
    const seq = authorized("c1", "deploy");
    const r = runner();
    log.unavailableFor("tool_result");

    await expect(r.run(seq, "c1")).rejects.toBeInstanceOf(TetherError);
    expect(ran).toHaveLength(1);
    expect(log.ofType("tool_call_started")).toHaveLength(1);
    expect(log.ofType("tool_result")).toHaveLength(0);

    log.unavailableFor(undefined);
    const again = await r.run(seq, "c1");

    expect(ran, "never run twice").toHaveLength(1);
    expect(again).toEqual({ kind: "completed", callId: "c1", idempotencyKey: key(seq, "c1"), status: "OK", content: "deployed", resultSeq: seq + 3, how: "RAN" });
    const reported = log.ofType("tool_result");
    expect(reported).toHaveLength(1);
    expect(reported[0]).toMatchObject({ status: "OK", eventId: eventIdOf(SESSION, `harness/${key(seq, "c1")}/result`, 0) });
  });

  /** A start that got into the log and whose every answer was lost within the client's retries: nothing ran yet. */
  const startWithEveryAnswerLost = (): void => {
    log.loseTheAnswerToTheNext("tool_call_started");
    log.onAppend((e) => {
      if (e.type === "tool_call_started") {
        log.unavailableFor("tool_call_started"); // the client's retries of it get no verdict either
      }
    });
  };

  /**
   * The start got into the log, and every answer to it was lost within the client's retries: the run rejects before the
   * tool runs. The next run of the call in this runner takes that start for its own, as it does a duplicate answered
   * within one run, and runs the tool once, rather than take the attempt for one a crash left without a result.
   */
  it("runs a start whose every answer was lost at the call's next run in this runner, once, not reconciled as a crash's", async () => {
    setUp();
    const seq = authorized("c1", "deploy");
    const r = runner();
    startWithEveryAnswerLost();

    await expect(r.run(seq, "c1")).rejects.toBeInstanceOf(TetherError);
    expect(log.ofType("tool_call_started")).toHaveLength(1);
    expect(ran).toHaveLength(0);

    log.unavailableFor(undefined);
    const again = await r.run(seq, "c1");

    expect(log.ofType("tool_call_started")).toHaveLength(1);
    expect(ran.map((c) => [c.attempt, c.idempotencyKey])).toEqual([[1, ext(seq, "c1")]]);
    expect(again).toEqual({ kind: "completed", callId: "c1", idempotencyKey: key(seq, "c1"), status: "OK", content: "deployed", resultSeq: seq + 3, how: "RAN" });
    expect(await r.run(seq, "c1"), "then a re-run is a no-op").toMatchObject({ kind: "completed", how: "REPORTED_BEFORE" });
    expect(ran).toHaveLength(1);
  });

  /** ...but not once another worker claimed the session since: the attempt is the new worker's to reconcile. */
  it("does not run a start whose every answer was lost once another worker claimed the session since: fenced", async () => {
    setUp();
    const seq = authorized("c1", "deploy");
    const r = runner();
    startWithEveryAnswerLost();
    await expect(r.run(seq, "c1")).rejects.toBeInstanceOf(TetherError);
    log.unavailableFor(undefined);
    log.claimByAnother();

    expect(await r.run(seq, "c1")).toMatchObject({ kind: "fenced", currentEpoch: 2 });
    expect(ran).toHaveLength(0);
    expect(log.ofType("tool_result")).toHaveLength(0);
  });

  /**
   * The start got in, its answer was lost, and while the transport waited to send it again another worker claimed the
   * session (the network trouble that loses answers is what makes a worker look dead): the duplicate the retry is
   * answered with is no longer this run's to run — the new worker reconciles that attempt — so the run is fenced and runs
   * nothing, as the next run would be after a start whose every answer was lost.
   */
  it("does not run a start whose answer was lost once another worker claimed the session meanwhile: fenced", async () => {
    setUp();
    const seq = authorized("c1", "deploy");
    log.loseTheAnswerToTheNext("tool_call_started");
    log.onAppend((e) => {
      if (e.type === "tool_call_started") {
        log.claimByAnother(); // before the transport's retry of the start
      }
    });

    const result = await runner().run(seq, "c1");

    expect(ran, "the attempt is the new worker's to reconcile: run here too, it may take effect twice").toHaveLength(0);
    expect(result).toMatchObject({ kind: "fenced", currentEpoch: 2 });
    expect(log.ofType("tool_call_started")).toHaveLength(1);
  });

  /**
   * Between this worker's read of the log and its start, another worker claimed the session and ran the call under the
   * same key, whose start has the same eventId: the sequencer answers this worker's start as that one's duplicate
   * (duplicates are answered before the epoch is checked), after the log this run read. That start is not this run's:
   * the tool must not run again.
   */
  it("does not run the tool again for a start answered as the duplicate of another worker's start", async () => {
    setUp();
    const seq = authorized("c1", "deploy");
    const logged = log as unknown as {
      answer(q: IncomingMessage, s: ServerResponse): Promise<void>;
      append(s: ServerResponse, body: string): void;
    };
    let before = true;
    let other: HarnessRunResult | undefined;
    fake.server.otherwise(async (req, res) => {
      const body = fake.server.seen.at(-1)!.body;
      if (req.method === "POST" && before && body.includes('"tool_call_started"')) {
        // this worker read the log and sent its start: another claimed the session first and ran the call
        before = false;
        log.claimByAnother();
        other = await runner(undefined, log.claimed()).run(seq, "c1");
        return logged.append(res, body); // then this worker's start arrives
      }
      return logged.answer(req, res);
    });

    const result = await runner().run(seq, "c1");

    expect(other).toMatchObject({ kind: "completed", how: "RAN" });
    expect(ran.map((c) => c.epoch), "run once, by the worker that claimed the session").toEqual([2]);
    expect(["fenced", "completed"]).toContain(result.kind);
    if (result.kind === "completed") {
      expect(result.how).toBe("REPORTED_BEFORE");
    }
    expect(log.ofType("tool_call_started")).toHaveLength(1);
    expect(log.ofType("tool_result")).toHaveLength(1);
  });

  /** `ToolOutput.ok(null)`, a tool whose call answered nothing: a result without content, not a function that threw. */
  it("takes an output with null content for a result without content, not a failure of the tool", async () => {
    setUp();
    const seq = authorized("c1", "deploy");

    const result = await runner((call) => {
      ran.push(call);
      return ToolOutput.ok(null);
    }).run(seq, "c1");

    expect(ran).toHaveLength(1);
    expect(result).toMatchObject({ kind: "completed", status: "OK", content: undefined, how: "RAN" });
    const reported = log.ofType("tool_result");
    expect(reported).toHaveLength(1);
    expect(reported[0]!.status).toBe("OK");
    expect(reported[0]).not.toHaveProperty("content");
    expect(ToolOutput.error(null).content).toBeUndefined();
    expect(ToolOutput.cancelled(null).content).toBeUndefined();
    expect(ToolOutput.unknown(null).content).toBeUndefined();
    expect(ToolOutput.ok(undefined)).toEqual({ status: "OK", content: undefined });
  });

  it("reconciles an attempt by the externalKey its start recorded, and one an older SDK started (no externalKey) by the log key", async () => {
    setUp();
    const recorded = `${SESSION}/x~1700000000000`; // whatever the start recorded is what the hook gets, not a key made again now
    const withKey = startedWithoutResult("c1", "pay", () => recorded);
    const older = startedWithoutResult("c2", "pay");
    found = Reconciliation.tookEffect(ToolOutput.ok("found it"));
    const r = runner();

    expect(await r.run(withKey, "c1")).toMatchObject({ kind: "completed", how: "RECONCILED", idempotencyKey: key(withKey, "c1") });
    expect(await r.run(older, "c2")).toMatchObject({ kind: "completed", how: "RECONCILED", idempotencyKey: key(older, "c2") });

    expect(asked.map((a) => [a.callId, a.idempotencyKey, a.logKey])).toEqual([
      ["c1", recorded, key(withKey, "c1")],
      ["c2", key(older, "c2"), key(older, "c2")],
    ]);
    expect(log.ofType("tool_result").map((e) => [e.callId, e.idempotencyKey])).toEqual([
      ["c1", key(withKey, "c1")],
      ["c2", key(older, "c2")],
    ]);
    expect(ran).toHaveLength(0);
  });

  it("hands different keys to the same seq and callId of two sessions of one id, erased and made again", async () => {
    setUp("2026-12-01T08:46:49.377Z");
    const first = authorized("c1", "pay");
    await runner().run(first, "c1");
    const before = [...ran];
    const startedBefore = log.ofType("tool_call_started");

    setUp("2026-12-01T09:02:11.004123Z"); // the same id, made again after an erasure: the same seqs
    const again = authorized("c1", "pay");
    await runner().run(again, "c1");
    const both = [...before, ...ran];

    expect(again).toBe(first);
    expect(both.map((c) => c.logKey)).toEqual([key(first, "c1"), key(first, "c1")]); // the log repeats its keys
    expect(both.map((c) => c.idempotencyKey)).toEqual([ext(first, "c1", 1796114809377), ext(first, "c1", 1796115731004)]);
    expect(new Set(both.map((c) => c.idempotencyKey)).size).toBe(2);
    expect([...startedBefore, ...log.ofType("tool_call_started")].map((e) => [e.idempotencyKey, e.externalKey])).toEqual([
      [key(first, "c1"), ext(first, "c1", 1796114809377)],
      [key(first, "c1"), ext(first, "c1", 1796115731004)],
    ]);
  });

  it("folds the externalKey of the latest start, forgets it at a RETRY, and takes none from a start without one", () => {
    const fold = new HarnessCallFold(SESSION, 3, "c1");
    const at = (seq: number, type: string, json: Record<string, unknown>): SessionEvent => ({
      seq,
      eventId: `e-${seq}`,
      type,
      sessionId: SESSION,
      occurredAt: undefined,
      actor: { kind: "SYSTEM", id: "acme-agent" },
      harnessVersion: "v1",
      json: { seq, type, ...json },
    });
    fold.apply(at(3, "assistant_message", { toolCalls: [{ callId: "c1", tool: "pay", argumentsJson: "{}" }] }));
    fold.apply(at(4, "tool_call_authorized", { callId: "c1" }));
    expect(fold.next()).toEqual({ kind: "start", attempt: 1, idempotencyKey: key(3, "c1") });
    fold.apply(at(5, "tool_call_started", { callId: "c1", idempotencyKey: key(3, "c1"), epoch: 1, attempt: 1, externalKey: "X" }));
    expect(fold.next()).toEqual({ kind: "reconcile", attempt: 1, idempotencyKey: key(3, "c1"), externalKey: "X" });
    fold.apply(at(6, "tool_outcome_resolved", { callId: "c1", resolution: "RETRY", approver: "acme-agent", reason: "no effect" }));
    expect(fold.next()).toEqual({ kind: "start", attempt: 2, idempotencyKey: key(6, "c1") });
    fold.apply(at(7, "tool_call_started", { callId: "c1", idempotencyKey: key(6, "c1"), epoch: 2, attempt: 2 })); // an older SDK's start
    expect(fold.next()).toEqual({ kind: "reconcile", attempt: 2, idempotencyKey: key(6, "c1"), externalKey: undefined });
  });

  it("keeps the 4-argument tool_call_started without externalKey, and makes the external key of a log key and a start", () => {
    expect(NewEvent.toolCallStarted("c1", "s/2/c1", 1, 1).fields).toEqual({ callId: "c1", idempotencyKey: "s/2/c1", epoch: 1, attempt: 1 });
    expect(NewEvent.toolCallStarted("c1", "s/2/c1", 1, 1, "s/2/c1~5").fields).toEqual({ callId: "c1", idempotencyKey: "s/2/c1", epoch: 1, attempt: 1, externalKey: "s/2/c1~5" });
    expect(() => NewEvent.toolCallStarted("c1", "s/2/c1", 1, 1, " ")).toThrow(/blank/);
    expect(externalKeyOf("s/2/c1", 1796114809377)).toBe("s/2/c1~1796114809377");
    expect(() => externalKeyOf("s/2/c1", 1.5)).toThrow(RangeError);
  });
});

describe("HarnessToolRunner on a log whose events have a Date but not the occurredAt text (an in-memory SessionLogPort)", () => {
  it("takes the session's start from the first event's Date, for a claim without one", async () => {
    const tether = new FakeTether();
    await tether.createSession({ objective: "o", modelId: "m", toolMode: "WRITE", sessionId: "mem-1", harnessTools: [PAY] });
    const claim = { ...claimedOrThrow(await tether.claim("mem-1", { workerId: "w", harnessVersion: "v1" })), sessionStartedAt: undefined };
    const client = {
      events: (sessionId: string, fromSeq?: number, limit?: number) => tether.events(sessionId, fromSeq, limit),
      writer: (c: Claimed) => ({
        append: (step: string, ...events: NewEvent[]) => tether.append(c.sessionId, { step, events, epoch: c.epoch, sessionStartedAt: c.sessionStartedAt }),
      }),
    } as unknown as TetherClient;
    const ask = await tether.append("mem-1", { step: "turn-1", events: [NewEvent.assistantMessage("paying", [{ callId: "c1", tool: "pay" }])] });
    const seq = ask.kind === "appended" ? ask.seqs[0]! : 0;
    tether.addAsService("mem-1", "tool_call_authorized", { callId: "c1", basis: { kind: "POLICY" } });
    const handed: string[] = [];
    const r = new HarnessToolRunner(client, claim, {
      tools: [{ tool: PAY, run: (call) => (handed.push(call.idempotencyKey), ToolOutput.ok("paid")), reconcile: () => Reconciliation.cannotTell("?") }],
      principal: "acme-agent",
    });

    expect(await r.run(seq, "c1", 0)).toMatchObject({ kind: "completed", idempotencyKey: `mem-1/${seq}/c1` });

    const first = tether.sessionsById.get("mem-1")!.events[0]!;
    expect(first.json.occurredAt).toBeUndefined();
    expect(handed).toEqual([`mem-1/${seq}/c1~${first.occurredAt!.getTime()}`]);
  });
});

describe("epochMillisOf, the session's start as the external key has it", () => {
  it("reads an occurredAt with 0 to 9 fractional digits, cutting what is below the millisecond", () => {
    expect(epochMillisOf("2026-12-01T08:46:49.377Z")).toBe(1796114809377);
    expect(epochMillisOf("2026-12-01T08:46:49Z")).toBe(1796114809000);
    expect(epochMillisOf("2026-12-01T08:46:49.3Z")).toBe(1796114809300);
    expect(epochMillisOf("2026-12-01T08:46:49.37Z")).toBe(1796114809370);
    expect(epochMillisOf("2026-12-01T08:46:49.377999Z")).toBe(1796114809377); // microseconds: cut, not rounded up
    expect(epochMillisOf("2026-12-01T08:46:49.377999999Z")).toBe(1796114809377); // nanoseconds: cut
    expect(epochMillisOf("2026-12-01T08:46:49.000000001Z")).toBe(1796114809000);
    expect(epochMillisOf("2026-12-31T23:59:59.999999999Z")).toBe(1798761599999); // never rounded into the next year
    expect(epochMillisOf("1970-01-01T00:00:00Z")).toBe(0);
    expect(epochMillisOf("1969-12-31T23:59:59.9999Z")).toBe(-1);
    expect(epochMillisOf("2024-02-29T00:00:00Z")).toBe(1709164800000);
    expect(epochMillisOf("0001-01-01T00:00:00Z")).toBe(-62135596800000);
    expect(epochMillisOf("2026-12-01T10:46:49.377+02:00")).toBe(1796114809377);
    expect(epochMillisOf("2026-12-01T03:46:49.377-05:00")).toBe(1796114809377);
  });

  it("reads nothing that is not such an instant", () => {
    for (const bad of [
      "",
      "2026-12-01",
      "2026-12-01T08:46Z",
      "2026-12-01T08:46:49",
      "2026-12-01T08:46:49.Z",
      "2026-12-01T08:46:49.1234567890Z",
      "2026-12-01 08:46:49Z",
      "2026-13-01T08:46:49Z",
      " 2026-12-01T08:46:49Z",
    ]) {
      expect(epochMillisOf(bad), bad).toBeUndefined();
    }
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

/** `promise`, or a rejection naming it still pending after `ms`. */
async function within<T>(ms: number, promise: Promise<T>): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`still pending after ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}
