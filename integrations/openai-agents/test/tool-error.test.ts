/**
 * A tool whose run threw: Tether's rules for a harness-run tool that throws decide its `tool_result` — a read-only call
 * ends ERROR, a mutating one may have taken effect, so it is reconciled by its key or ends UNKNOWN for a person — and
 * never OK, which an approver and the recovery report would read as a success. The SDK's own error handling
 * (`errorFunction`) used to hide the exception from Tether; the model is still told what the SDK tells it.
 */
import { Agent, MemorySession, Runner, ToolCallError, tool, type AgentInputItem, type FunctionTool } from "@openai/agents-core";
import type { TetherClient } from "@tether/client";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { TetherSession, tetherTool, type TetherToolSpec } from "../src/index.js";
import { AuthorizingTether } from "./support/authorizing-tether.js";
import { ScriptedModel, callTool, say } from "./support/scripted-model.js";

/** What the SDK tells the model of a tool that threw, with its default `errorFunction`. */
const SDK_ERROR_TEXT = "An error occurred while running the tool. Please try again.";

const script = [() => [callTool("book", "call-b", { to: "LIS" })], () => [say("Could not book.", "msg-final")]];

/** A model on the script that notes the function call outputs it is given. */
function noting(seen: unknown[]): ScriptedModel {
  const model = new ScriptedModel(script);
  const answer = model.getResponse.bind(model);
  model.getResponse = async (request) => {
    seen.push(...(request.input as Record<string, unknown>[]).filter((i) => i.type === "function_call_result").map((i) => (i.output as { text?: string }).text ?? i.output));
    return answer(request);
  };
  return model;
}

function resultsOf(tether: AuthorizingTether, sessionId: string): [unknown, unknown, unknown][] {
  return tether.sessionsById.get(sessionId)!.events.filter((e) => e.type === "tool_result").map((e) => [e.json.callId, e.json.status, e.json.content]);
}

function outputsOf(items: AgentInputItem[]): unknown[] {
  return items.filter((i) => (i as { type?: string }).type === "function_call_result").map((i) => (i as { output: { text?: string } }).output.text);
}

/** Runs the script with `book` given to a TetherSession as `spec` says; then another process resumes the session. */
async function runOnTether(book: FunctionTool<any, any, any>, spec: Omit<TetherToolSpec, "tool">, sessionId: string) {
  const tether = new AuthorizingTether();
  const open = () => new TetherSession({ client: tether as unknown as TetherClient, sessionId, workerId: "w", tools: [{ tool: book, ...spec }] });
  const session = open();
  const seen: unknown[] = [];
  const agent = new Agent({ name: "travel", instructions: "Book.", model: noting(seen), tools: [...session.tools] });
  const outcome = await new Runner({ tracingDisabled: true }).run(agent, "Book Lisbon", { session }).catch((e: unknown) => e);
  // a new process takes the conversation up, as the README says: the failed call is not run again
  const resumed = await open().resume();
  return { tether, outcome, seen, resumed, items: await open().getItems() };
}

const UNKNOWN_TO_MODEL = "The outcome of book is unknown; a person decides whether it took effect. Do not call it again.";

function throwing(make: typeof tool, counter: { runs: number }, errorFunction?: unknown) {
  return make({
    name: "book", description: "Books", parameters: z.object({ to: z.string() }),
    execute: async () => {
      counter.runs++;
      throw new Error("the airline is down");
    },
    ...(errorFunction === undefined ? {} : { errorFunction }),
  } as Parameters<typeof tool>[0]);
}

describe("a Tether-run tool built with the SDK's tool() that throws (its default errorFunction)", () => {
  it("is UNKNOWN when mutating, for a person: it may have taken effect; the model is told not to call it again; run once", async () => {
    const counter = { runs: 0 };

    const onTether = await runOnTether(throwing(tool, counter), { mutating: true }, "oa-throws");

    expect(resultsOf(onTether.tether, "oa-throws")).toEqual([["call-b", "UNKNOWN",
      `book threw ${SDK_ERROR_TEXT} after its start; it may or may not have taken effect, and it has no reconciliation hook`]]);
    expect(onTether.seen, "what the model was given as the call's output").toEqual([UNKNOWN_TO_MODEL]);
    expect((onTether.outcome as { finalOutput?: unknown }).finalOutput).toBe("Could not book.");
    expect(counter.runs, "run once, not again by resume()").toBe(1);
  });

  it("is ERROR when read-only, and the model is told the SDK's text, as on MemorySession", async () => {
    const counter = { runs: 0 };
    const book = throwing(tool, counter);

    const onTether = await runOnTether(book, {}, "oa-throws-read");

    expect(resultsOf(onTether.tether, "oa-throws-read")).toEqual([["call-b", "ERROR", `book failed: ${SDK_ERROR_TEXT}`]]);
    expect(onTether.seen).toEqual([SDK_ERROR_TEXT]);
    expect(counter.runs).toBe(1);
    expect(onTether.resumed.calls).toEqual([]);
    const memory = new MemorySession();
    const agent = new Agent({ name: "travel", instructions: "Book.", model: new ScriptedModel(script), tools: [book] });
    await new Runner({ tracingDisabled: true }).run(agent, "Book Lisbon", { session: memory });
    expect(onTether.items).toEqual(await memory.getItems());
  });

  it("is reconciled by its key when it has a reconciliation hook: proven without effect, it runs again, at most MAX_STARTS times", async () => {
    const counter = { runs: 0 };
    let reconciled = 0;

    const onTether = await runOnTether(throwing(tool, counter), { mutating: true, reconcile: () => {
      reconciled++;
      return { kind: "no_effect", reason: "no booking under the key" };
    } }, "oa-throws-reconcilable");

    const [result] = resultsOf(onTether.tether, "oa-throws-reconcilable");
    expect(result?.slice(0, 2)).toEqual(["call-b", "ERROR"]);
    expect(String(result?.[2])).toContain(SDK_ERROR_TEXT);
    expect(counter.runs, "each start of the call ran it once").toBe(3);
    expect(reconciled, "after each start, the last one proving the limit reached").toBe(3);
  });
});

describe("a Tether-run tool built with tetherTool that throws", () => {
  it("tells the model what its own errorFunction says, and the history is the one MemorySession keeps", async () => {
    const counter = { runs: 0 };
    const book = throwing(tetherTool, counter, (_context: unknown, error: Error) => `booking failed: ${error.message}`);

    const onTether = await runOnTether(book, {}, "oa-own-error");

    expect(resultsOf(onTether.tether, "oa-own-error")).toEqual([["call-b", "ERROR", "book failed: booking failed: the airline is down"]]);
    expect(onTether.seen).toEqual(["booking failed: the airline is down"]);
    expect(counter.runs).toBe(1);
    // tetherTool is the SDK's tool() anywhere else: on MemorySession, the same errorFunction, the same history
    const memory = new MemorySession();
    const agent = new Agent({ name: "travel", instructions: "Book.", model: new ScriptedModel(script), tools: [book] });
    await new Runner({ tracingDisabled: true }).run(agent, "Book Lisbon", { session: memory });
    expect(counter.runs).toBe(2);
    expect(onTether.items).toEqual(await memory.getItems());
  });

  it("is UNKNOWN when mutating, whatever text its errorFunction makes", async () => {
    const counter = { runs: 0 };

    const onTether = await runOnTether(throwing(tetherTool, counter, () => "Booked."), { mutating: true }, "oa-own-error-mutating");

    expect(resultsOf(onTether.tether, "oa-own-error-mutating").map((r) => r.slice(0, 2))).toEqual([["call-b", "UNKNOWN"]]);
    expect(onTether.seen).toEqual([UNKNOWN_TO_MODEL]);
    expect(counter.runs).toBe(1);
  });

  it("is recorded OK when it answers, even with the text the SDK's default errorFunction uses", async () => {
    const book = tetherTool({ name: "book", description: "Books", parameters: z.object({ to: z.string() }), execute: async () => SDK_ERROR_TEXT });

    const onTether = await runOnTether(book, { mutating: true }, "oa-answers");

    expect(resultsOf(onTether.tether, "oa-answers")).toEqual([["call-b", "OK", SDK_ERROR_TEXT]]);
  });

  it("fails the run with the exception when its errorFunction is null, as the SDK's does, after Tether recorded ERROR; it is not run again", async () => {
    for (const [make, sessionId] of [[tetherTool, "oa-raises"], [tool, "oa-raises-sdk"]] as const) {
      const counter = { runs: 0 };

      const onTether = await runOnTether(throwing(make, counter, null), {}, sessionId);

      expect(onTether.outcome, sessionId).toBeInstanceOf(ToolCallError);
      expect(String((onTether.outcome as ToolCallError).error)).toBe("Error: the airline is down");
      expect(onTether.seen, "the model was told nothing").toEqual([]);
      expect(resultsOf(onTether.tether, sessionId)).toEqual([["call-b", "ERROR", "book failed: Error: the airline is down"]]);
      expect(counter.runs, "run once, not again by resume()").toBe(1);
      expect(outputsOf(onTether.items), "what resume() put in the history for the call").toEqual(["book failed: Error: the airline is down"]);
    }
  });
});

describe("a Tether-run call that fails before or after its tool's execute", () => {
  const badArguments = [() => [callTool("book", "call-b", { to: 5 })], () => [say("Could not book.", "msg-final")]];

  it("is ERROR when its arguments do not match a tetherTool's parameters: its execute never ran (a tool() call, mutating, is UNKNOWN)", async () => {
    for (const [make, sessionId, status] of [[tetherTool, "oa-bad-input", "ERROR"], [tool, "oa-bad-input-sdk", "UNKNOWN"]] as const) {
      let runs = 0;
      const book = make({ name: "book", description: "Books", parameters: z.object({ to: z.string() }), execute: async () => `booked (${++runs})` });
      const tether = new AuthorizingTether();
      const session = new TetherSession({ client: tether as unknown as TetherClient, sessionId, workerId: "w", tools: [{ tool: book, mutating: true }] });
      const agent = new Agent({ name: "travel", instructions: "Book.", model: new ScriptedModel(badArguments), tools: [...session.tools] });
      await new Runner({ tracingDisabled: true }).run(agent, "Book Lisbon", { session });

      expect(resultsOf(tether, sessionId).map((r) => r.slice(0, 2)), sessionId).toEqual([["call-b", status]]);
      expect(runs).toBe(0);
    }
  });

  it("is UNKNOWN when a mutating tool's output does not match its output schema and its errorFunction answers instead", async () => {
    const book = tetherTool({
      name: "book", description: "Books", parameters: z.object({ to: z.string() }), outputSchema: z.object({ confirmation: z.string() }),
      execute: async () => ({ confirmation: 42 }) as unknown as { confirmation: string },
      errorFunction: () => ({ confirmation: "none" }),
    });

    const onTether = await runOnTether(book, { mutating: true }, "oa-bad-output");

    expect(resultsOf(onTether.tether, "oa-bad-output").map((r) => r.slice(0, 2))).toEqual([["call-b", "UNKNOWN"]]);
  });
});

describe("a Tether-run call resume() runs that throws", () => {
  it("follows the same rules: UNKNOWN when mutating, run once", async () => {
    const counter = { runs: 0 };
    const book = throwing(tool, counter);
    const tether = new AuthorizingTether((callId) => callId === "call-b");
    const open = () => new TetherSession({ client: tether as unknown as TetherClient, sessionId: "oa-resume-throws", workerId: "w", tools: [{ tool: book, mutating: true }] });
    const a = open();
    const agent = new Agent({ name: "travel", instructions: "Book.", model: new ScriptedModel(script), tools: [...a.tools] });
    const stopped = await new Runner({ tracingDisabled: true }).run(agent, "Book Lisbon", { session: a });
    expect(stopped.interruptions).toHaveLength(1);
    // granted; the process is gone (no run state saved): the next one's resume() runs the call
    tether.addAsService("oa-resume-throws", "approval_granted", { callId: "call-b", scope: "ONCE", approver: "ann", reason: "ok" });
    tether.addAsService("oa-resume-throws", "tool_call_authorized", { callId: "call-b", basis: { kind: "APPROVAL" } });

    const report = await open().resume();
    await open().resume();

    expect(report.calls).toMatchObject([{ kind: "outcome_unknown", callId: "call-b" }]);
    expect(resultsOf(tether, "oa-resume-throws").map((r) => r.slice(0, 2))).toEqual([["call-b", "UNKNOWN"]]);
    expect(counter.runs).toBe(1);
  });
});

describe("a mutating Tether-run tool the run stops while it runs (its timeoutMs)", () => {
  it("is left in doubt (UNKNOWN, for a person), not recorded as failed: it may have taken effect", async () => {
    let runs = 0;
    const book = tetherTool({
      name: "book", description: "Books", parameters: z.object({ to: z.string() }), timeoutMs: 100,
      execute: async (_input, _context, details) => {
        runs++;
        const signal = details!.signal!;
        await new Promise((_resolve, reject) => signal.addEventListener("abort", () => reject(signal.reason as Error)));
      },
    });
    const tether = new AuthorizingTether();
    const session = new TetherSession({ client: tether as unknown as TetherClient, sessionId: "oa-stopped", workerId: "w", tools: [{ tool: book, mutating: true }] });
    const seen: unknown[] = [];
    const agent = new Agent({ name: "travel", instructions: "Book.", model: noting(seen), tools: [...session.tools] });
    await new Runner({ tracingDisabled: true }).run(agent, "Book Lisbon", { session });

    const result = await tether.awaitEvent("oa-stopped", 1, (e) => e.type === "tool_result", 5_000);
    expect(result?.json).toMatchObject({ callId: "call-b", status: "UNKNOWN" });
    expect(seen).toEqual(["Tool 'book' timed out after 100ms."]);
    expect(runs).toBe(1);
  });
});

describe("a recorded-only tool that throws", () => {
  it("is recorded ERROR, with the text the SDK told the model", async () => {
    const book = tool({
      name: "book", description: "Books", parameters: z.object({ to: z.string() }),
      execute: async () => {
        throw new Error("the airline is down");
      },
    });
    const tether = new AuthorizingTether();
    const session = new TetherSession({ client: tether as unknown as TetherClient, sessionId: "oa-recorded-throws", workerId: "w" });
    const agent = new Agent({ name: "travel", instructions: "Book.", model: new ScriptedModel(script), tools: [book] });
    await new Runner({ tracingDisabled: true }).run(agent, "Book Lisbon", { session });

    expect(resultsOf(tether, "oa-recorded-throws")).toEqual([["call-b", "ERROR", SDK_ERROR_TEXT]]);
    expect(outputsOf(await session.getItems())).toEqual([SDK_ERROR_TEXT]);
  });
});
