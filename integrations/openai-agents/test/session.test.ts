/**
 * TetherSession against an in-memory session-service (clients/typescript/test/fake-tether.ts): the Session contract of
 * @openai/agents-core with the SDK's own item types, the history kept append-only in the log, transactions, and a real
 * Runner with a scripted model beside the SDK's MemorySession.
 */
import { Agent, MemorySession, Runner, Usage, tool, type AgentInputItem, type Model, type ModelRequest, type ModelResponse } from "@openai/agents-core";
import { NewEvent, TetherClient } from "@tether/client";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { FakeTether } from "../../../clients/typescript/test/fake-tether.js";
import { TetherSession, ToolCallPendingError } from "../src/index.js";
import { ScriptedModel, callTool, say } from "./support/scripted-model.js";

const ITEMS: AgentInputItem[] = [
  { role: "user", content: "Book me a flight to Lisbon" },
  { role: "user", content: [{ type: "input_text", text: "tomorrow morning" }] },
  { type: "reasoning", id: "rs-1", content: [], providerData: { encrypted: "abc" } } as unknown as AgentInputItem,
  { type: "function_call", callId: "call-1", name: "search_flights", arguments: '{"to":"LIS"}', status: "completed", id: "fc-1" },
  { type: "function_call_result", callId: "call-1", name: "search_flights", status: "completed", output: { type: "text", text: "TP1234 at 07:05" } },
  { type: "message", role: "assistant", status: "completed", id: "msg-1", content: [{ type: "output_text", text: "I found a morning flight." }] },
  { role: "system", content: "Be brief." },
];

function session(tether: FakeTether, sessionId: string) {
  return new TetherSession({ client: tether as unknown as TetherClient, sessionId, workerId: "test" });
}

describe("TetherSession, the Session contract", () => {
  it("gives back exactly the items added, the newest `limit` in order, to any new session object (a new process)", async () => {
    const tether = new FakeTether();
    const s = session(tether, "oa-contract");
    await s.addItems(ITEMS.slice(0, 3));
    await s.addItems(ITEMS.slice(3));
    expect(await s.getItems()).toEqual(ITEMS);
    expect(await s.getItems(2)).toEqual(ITEMS.slice(-2));
    expect(await s.getItems(0)).toEqual([]);
    expect(await session(tether, "oa-contract").getItems()).toEqual(ITEMS);
    expect(await s.getSessionId()).toBe("oa-contract");
  });

  it("stores each item once, as the typed event that fits it; the rest whole", async () => {
    const tether = new FakeTether();
    await session(tether, "oa-typed").addItems(ITEMS);
    const log = tether.sessionsById.get("oa-typed")!.events;
    expect(log.filter((e) => e.type === "user_message").map((e) => e.json.content)).toEqual(["Book me a flight to Lisbon", "tomorrow morning"]);
    const asks = log.filter((e) => e.type === "assistant_message");
    expect(asks.map((e) => e.json.content)).toEqual(["", "I found a morning flight."]);
    expect(asks[0]!.json.toolCalls).toEqual([{ callId: "call-1", tool: "search_flights", argumentsJson: '{"to":"LIS"}' }]);
    const result = log.find((e) => e.type === "tool_result")!;
    expect(result.json).toMatchObject({ callId: "call-1", status: "OK", content: "TP1234 at 07:05", idempotencyKey: `oa-typed/${asks[0]!.seq}/call-1` });
    const records = log.filter((e) => e.type === "framework_state" && e.json.kind === "item").map((e) => JSON.parse(String(e.json.content)));
    expect(records).toEqual([ITEMS[2], ITEMS[6]]);
    const all = log.map((e) => JSON.stringify(e.json)).join("\n");
    for (const text of ["Book me a flight", "tomorrow morning", "TP1234 at 07:05", "I found a morning flight"]) {
      expect(all.split(text).length - 1, text).toBe(1);
    }
  });

  it("pops and clears by appending records: the originals stay in the log, the history changes, a clear is a compaction", async () => {
    const tether = new FakeTether();
    const s = session(tether, "oa-pop");
    await s.addItems(ITEMS.slice(0, 2));
    expect(await s.popItem()).toEqual(ITEMS[1]);
    expect(await s.getItems()).toEqual(ITEMS.slice(0, 1));
    await s.clearSession();
    expect(await s.getItems()).toEqual([]);
    expect(await s.popItem()).toBeUndefined();
    const log = tether.sessionsById.get("oa-pop")!.events;
    expect(log.filter((e) => e.type === "user_message")).toHaveLength(2);
    const compaction = log.find((e) => e.type === "context_compacted")!;
    expect(compaction.json.summarySourceSeqs).toEqual([log.find((e) => e.type === "user_message")!.seq]);
    const ops = log.filter((e) => e.json.kind === "history").map((e) => JSON.parse(String(e.json.content)).op);
    expect(ops).toEqual(["add", "pop", "clear"]);
    await s.addItems(ITEMS.slice(5, 6));
    expect(await session(tether, "oa-pop").getItems()).toEqual(ITEMS.slice(5, 6));
  });

  it("applies a history transaction once per operation id, refuses another under the same id, and checks a suffix", async () => {
    const tether = new FakeTether();
    const s = session(tether, "oa-tx");
    const append = { operationId: "op-1", transaction: { type: "append_items" as const, items: ITEMS.slice(0, 2) } };
    await s.applyHistoryTransaction(append);
    await s.applyHistoryTransaction(append); // a retry
    expect(await s.getItems()).toEqual(ITEMS.slice(0, 2));
    await expect(s.applyHistoryTransaction({ operationId: "op-1", transaction: { type: "append_items", items: ITEMS.slice(2, 3) } })).rejects.toThrow(/different transaction/);
    await expect(
      s.applyHistoryTransaction({ operationId: "op-2", transaction: { type: "replace_suffix", expectedSuffix: [ITEMS[0]!], replacement: [] } }),
    ).rejects.toThrow(/no longer matches/);
    expect(await s.getItems()).toEqual(ITEMS.slice(0, 2));
    await s.applyHistoryTransaction({ operationId: "op-3", transaction: { type: "replace_suffix", expectedSuffix: [ITEMS[1]!], replacement: [ITEMS[5]!] } });
    expect(await s.getItems()).toEqual([ITEMS[0], ITEMS[5]]);
    // a new session object (another process) knows the operations too
    await session(tether, "oa-tx").applyHistoryTransaction({ operationId: "op-3", transaction: { type: "replace_suffix", expectedSuffix: [ITEMS[1]!], replacement: [ITEMS[5]!] } });
    expect(await session(tether, "oa-tx").getItems()).toEqual([ITEMS[0], ITEMS[5]]);
    expect(tether.sessionsById.get("oa-tx")!.events.filter((e) => e.type === "user_message")).toHaveLength(2);
  });

  it("replaces the history with a compaction: what stays is referred to, what goes is Tether's compaction", async () => {
    const tether = new FakeTether();
    const s = session(tether, "oa-compact");
    await s.addItems(ITEMS.slice(0, 6));
    const compaction = { type: "compaction", encrypted_content: "opaque", id: "cmp-1" } as unknown as AgentInputItem;
    await s.replaceHistoryWithCompaction([compaction, ITEMS[5]!]);
    expect(await s.getItems()).toEqual([compaction, ITEMS[5]]);
    const log = tether.sessionsById.get("oa-compact")!.events;
    expect(log.filter((e) => e.type === "assistant_message" && e.json.content === "I found a morning flight.")).toHaveLength(1);
    const tetherCompaction = log.find((e) => e.type === "context_compacted")!;
    expect(tetherCompaction.json.throughSeq).toBe(log.find((e) => e.type === "tool_result")!.seq);
  });
});

describe("TetherSession, calls made at once", () => {
  it("applies them in the order they were made, as MemorySession does: a pop or a clear never takes an item added after it", async () => {
    const [a, x, y] = ["a", "x", "y"].map((content) => ({ role: "user", content }) as AgentInputItem);
    async function atOnce(s: TetherSession | MemorySession) {
      await s.addItems([a!]);
      const [popped] = await Promise.all([s.popItem(), s.addItems([x!])]);
      const afterPop = await s.getItems();
      await Promise.all([s.clearSession(), s.addItems([y!])]);
      return { popped, afterPop, afterClear: await s.getItems() };
    }

    const tether = new FakeTether();
    const onTether = await atOnce(session(tether, "oa-at-once"));

    expect(onTether).toEqual(await atOnce(new MemorySession()));
    expect(onTether).toEqual({ popped: a, afterPop: [x], afterClear: [y] });
    expect(await session(tether, "oa-at-once").getItems()).toEqual([y]);
  });
});

describe("TetherSession, nothing to change", () => {
  it("pops and clears an empty history without making a session or claiming one: another writer is not fenced", async () => {
    const tether = new FakeTether();
    const reader = session(tether, "oa-empty");
    expect(await reader.popItem()).toBeUndefined();
    await reader.clearSession();
    expect(tether.sessionsById.has("oa-empty"), "no session made for nothing").toBe(false);

    const writer = new TetherSession({ client: tether as unknown as TetherClient, sessionId: "oa-empty", workerId: "writer" });
    await writer.addItems([{ role: "user", content: "hello" }]);
    await writer.popItem();
    const epoch = tether.sessionsById.get("oa-empty")!.info.epoch;
    expect(await reader.popItem()).toBeUndefined();
    await reader.clearSession();
    expect(tether.sessionsById.get("oa-empty")!.info.epoch, "still the writer's claim").toBe(epoch);
    await writer.addItems([{ role: "user", content: "still mine" }]);
    expect(await writer.getItems()).toEqual([{ role: "user", content: "still mine" }]);
  });
});

describe("TetherSession, one writer", () => {
  it("is refused, not let into the session, once its session was erased and made again under its id and claimed at the same epoch", async () => {
    const tether = new FakeTether();
    const s = session(tether, "oa-erased");
    await s.addItems(ITEMS.slice(0, 1));
    const known = tether.sessionsById.get("oa-erased")!.events.length;
    // another process erases it and makes it again between this writer's read and its append: claimed at epoch 1 again,
    // and as long as the log `s` knows (a read before it would notice, and fold the new session from its start)
    let remade = false;
    tether.beforeAppend = (id) => {
      if (remade || id !== "oa-erased") {
        return;
      }
      remade = true;
      void tether.eraseSession("oa-erased");
      void tether.createSession({ objective: "again", toolMode: "WRITE", sessionId: "oa-erased" });
      void tether.claim("oa-erased", { workerId: "other", harnessVersion: "v1" });
      void tether.append("oa-erased", { step: "theirs", events: Array.from({ length: known - 2 }, (_, i) => NewEvent.userMessage(`theirs ${i}`)) });
    };

    await expect(s.addItems(ITEMS.slice(1, 2))).rejects.toThrow(/session oa-erased is gone/);
    expect(remade).toBe(true);
    const theirs = tether.sessionsById.get("oa-erased")!.events;
    expect(theirs).toHaveLength(known);
    expect(theirs.slice(2).map((e) => e.json.content)).toEqual(Array.from({ length: known - 2 }, (_, i) => `theirs ${i}`));
  });
});

describe("a Runner on TetherSession", () => {
  it("keeps the history MemorySession keeps, over two runs with a tool", async () => {
    const script = [
      (t: number) => [callTool("lookup", `call-${t}`, { city: "Lisbon" })],
      () => [say("Sunny in Lisbon.", "msg-final")],
    ];
    const lookup = tool({ name: "lookup", description: "The weather", parameters: z.object({ city: z.string() }), execute: async ({ city }) => `sunny in ${city}` });
    async function twoRuns(s: TetherSession | MemorySession) {
      const agent = new Agent({ name: "weather", instructions: "Answer briefly.", model: new ScriptedModel(script), tools: [lookup] });
      const runner = new Runner({ tracingDisabled: true });
      await runner.run(agent, "Weather in Lisbon?", { session: s });
      await runner.run(agent, "And tomorrow?", { session: s });
      return s.getItems();
    }
    const tether = new FakeTether();
    const onTether = await twoRuns(session(tether, "oa-runner"));
    const onMemory = await twoRuns(new MemorySession());
    expect(onTether).toEqual(onMemory);
    // the second run's model sees the first run's result and answers at once
    expect(onTether.filter((i) => (i as { type?: string }).type === "function_call_result")).toHaveLength(1);
    expect(onTether.filter((i) => (i as { role?: string }).role === "user")).toHaveLength(2);
    const log = tether.sessionsById.get("oa-runner")!.events;
    expect(log.filter((e) => e.type === "tool_result").map((e) => e.json.content)).toEqual(["sunny in Lisbon"]);
    expect(log.filter((e) => e.type === "user_message").map((e) => e.json.content)).toEqual(["Weather in Lisbon?", "And tomorrow?"]);
    expect(log[0]!.json.harnessTools, "tools not given to the session are recorded-only").toEqual([{ name: "*", mutating: false, canReconcile: false, recordedOnly: true }]);
  });
});

describe("a Runner on TetherSession, with a model that numbers its calls per turn", () => {
  it("keeps every run's call and result, as MemorySession does, though each run's call is call_0", async () => {
    // a model of an OpenAI-compatible server that numbers the calls of each answer from 0: every run's call is call_0
    const model: Model = {
      async getResponse(request: ModelRequest): Promise<ModelResponse> {
        const input = request.input as { type?: string; content?: unknown }[];
        const last = input[input.length - 1]!;
        const output = last.type === "function_call_result" ? [say("Done.", "msg-done")] : [callTool("lookup", "call_0", { city: String(last.content) })];
        return { usage: new Usage({ requests: 1, inputTokens: 10, outputTokens: 1 }), output: output as ModelResponse["output"] };
      },
      async *getStreamedResponse() {
        throw new Error("not used here");
      },
    };
    const lookup = tool({ name: "lookup", description: "The weather", parameters: z.object({ city: z.string() }), execute: async ({ city }) => `sunny in ${city}` });
    async function twoRuns(s: TetherSession | MemorySession) {
      const agent = new Agent({ name: "weather", instructions: "Answer briefly.", model, tools: [lookup] });
      const runner = new Runner({ tracingDisabled: true });
      await runner.run(agent, "Lisbon", { session: s });
      await runner.run(agent, "Porto", { session: s });
      return s.getItems();
    }

    const tether = new FakeTether();
    const onMemory = await twoRuns(new MemorySession());
    const onTether = await twoRuns(session(tether, "oa-call-0"));

    expect(onTether).toEqual(onMemory);
    expect(onTether.filter((i) => (i as { type?: string }).type === "function_call_result").map((i) => (i as { output: { text: string } }).output.text)).toEqual([
      "sunny in Lisbon",
      "sunny in Porto",
    ]);
    expect(await session(tether, "oa-call-0").getItems()).toEqual(onMemory);
  });
});

describe("a tool run through Tether", () => {
  it("refuses a call that reuses an earlier call's id with other arguments: it never gets that call's result, and nothing runs", async () => {
    const tether = new FakeTether();
    let booked = 0;
    const book = tool({ name: "book", description: "Books a flight", parameters: z.object({ to: z.string() }), execute: async ({ to }) => `booked ${to} (${++booked})` });
    const s = new TetherSession({ client: tether as unknown as TetherClient, sessionId: "oa-reused", workerId: "test", tools: [{ tool: book, mutating: true }] });
    await s.addItems([{ type: "function_call", callId: "call-1", name: "book", arguments: '{"to":"LIS"}', status: "completed" }]);
    const before = tether.sessionsById.get("oa-reused")!.events.length;

    const agent = new Agent({ name: "travel", instructions: "Book.", model: new ScriptedModel([() => [callTool("book", "call-1", { to: "OPO" })]]), tools: [...s.tools] });
    const run = new Runner({ tracingDisabled: true }).run(agent, "Now Porto", { session: s });

    await expect(run).rejects.toThrow(/call call-1 \(book \{"to":"OPO"\}\) reuses the id of an earlier call of this session \(book \{"to":"LIS"\}\)/);
    expect(booked).toBe(0);
    const log = tether.sessionsById.get("oa-reused")!.events;
    expect(log.slice(before).filter((e) => e.type !== "user_message" && e.type !== "framework_state").map((e) => e.type)).toEqual([]);
  });

  it("stops the run when a call is not authorized in time, with no output in the history for it, and nothing runs", async () => {
    const tether = new FakeTether(); // no approval-service: nothing authorizes the call
    let booked = 0;
    const book = tool({ name: "book", description: "Books a flight", parameters: z.object({ to: z.string() }), execute: async ({ to }) => `booked ${to} (${++booked})` });
    const s = new TetherSession({
      client: tether as unknown as TetherClient, sessionId: "oa-pending", workerId: "test", tools: [{ tool: book, mutating: true }], authorizationTimeoutMs: 300,
    });
    const agent = new Agent({ name: "travel", instructions: "Book.", model: new ScriptedModel([() => [callTool("book", "call-7", { to: "LIS" })]]), tools: [...s.tools] });

    const error = await new Runner({ tracingDisabled: true }).run(agent, "Book Lisbon", { session: s }).catch((e: unknown) => e);

    expect(ToolCallPendingError.in(error), String(error)).toMatchObject({ callId: "call-7", tool: "book" });
    expect(booked).toBe(0);
    const log = tether.sessionsById.get("oa-pending")!.events;
    expect(log.filter((e) => e.type === "tool_result")).toEqual([]);
    expect(log.filter((e) => e.type === "assistant_message").flatMap((e) => (e.json.toolCalls as { callId: string }[]).map((c) => c.callId))).toEqual(["call-7"]);
    expect((await s.getItems()).filter((i) => (i as { type?: string }).type === "function_call_result")).toEqual([]);
  });
  it("does not run a call Tether authorizes after the run stopped waiting for it (the tool's timeoutMs): the call is cancelled, unrun", async () => {
    const tether = new FakeTether(); // no approval-service: the test authorizes the call itself, late
    let booked = 0;
    const book = tool({ name: "book", description: "Books a flight", parameters: z.object({ to: z.string() }), timeoutMs: 200, execute: async ({ to }) => `booked ${to} (${++booked})` });
    const s = new TetherSession({ client: tether as unknown as TetherClient, sessionId: "oa-timed-out", workerId: "test", tools: [{ tool: book }], authorizationTimeoutMs: 1_500 });
    const agent = new Agent({ name: "travel", instructions: "Book.", model: new ScriptedModel([() => [callTool("book", "call-3", { to: "LIS" })], () => [say("Could not book.", "msg-no")]]), tools: [...s.tools] });

    const result = await new Runner({ tracingDisabled: true }).run(agent, "Book Lisbon", { session: s });
    expect(result.finalOutput).toBe("Could not book.");
    // the model was told the call timed out; Tether's authorization comes only now
    tether.addAsService("oa-timed-out", "tool_call_authorized", { callId: "call-3", basis: "POLICY" });

    const answered = await tether.awaitEvent("oa-timed-out", 1, (e) => e.type === "tool_result", 5_000);
    expect(answered?.json).toMatchObject({ callId: "call-3", status: "CANCELLED" });
    expect(booked).toBe(0);
    expect(tether.sessionsById.get("oa-timed-out")!.events.filter((e) => e.type === "tool_call_started")).toHaveLength(1);
  });
});
