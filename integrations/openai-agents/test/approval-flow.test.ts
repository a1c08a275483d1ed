/**
 * A gated Tether-run call across processes: the run stops with the SDK's interruption, the state is saved, an approver
 * decides in Tether, a new session object (another process) settles and runs the state — the call runs once, and the
 * history is the one MemorySession keeps for the same run approved through the SDK.
 */
import { Agent, MemorySession, Runner, ToolGuardrailFunctionOutputFactory, defineToolInputGuardrail, tool, type AgentInputItem } from "@openai/agents-core";
import type { TetherClient } from "@tether/client";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { TetherSession } from "../src/index.js";
import { AuthorizingTether } from "./support/authorizing-tether.js";
import { ScriptedModel, callTool, say } from "./support/scripted-model.js";

const script = [() => [callTool("book", "call-b", { to: "LIS" })], () => [say("Booked.", "msg-final")]];

describe("an approval across processes", () => {
  it("runs the approved call once, and keeps the history MemorySession keeps", async () => {
    let booked = 0;
    const book = tool({ name: "book", description: "Books", parameters: z.object({ to: z.string() }), needsApproval: true, execute: async ({ to }) => `booked ${to} (${++booked})` });
    const runner = new Runner({ tracingDisabled: true });

    // on MemorySession, approved through the SDK
    const memory = new MemorySession();
    const memAgent = new Agent({ name: "travel", instructions: "Book.", model: new ScriptedModel(script), tools: [book] });
    const first = await runner.run(memAgent, "Book Lisbon", { session: memory });
    expect(first.interruptions).toHaveLength(1);
    first.state.approve(first.interruptions[0]!);
    await runner.run(memAgent, first.state, { session: memory });
    const onMemory = await memory.getItems();
    expect(booked).toBe(1);

    // on Tether: gated, decided by an approver in Tether, taken up by another process
    booked = 0;
    const tether = new AuthorizingTether((callId) => callId === "call-b");
    const open = () => new TetherSession({ client: tether as unknown as TetherClient, sessionId: "oa-approval", workerId: "w", tools: [{ tool: book, mutating: true }] });
    const a = open();
    const agentA = new Agent({ name: "travel", instructions: "Book.", model: new ScriptedModel(script), tools: [...a.tools] });
    const stopped = await runner.run(agentA, "Book Lisbon", { session: a });
    expect(stopped.interruptions.map((i) => (i.rawItem as { callId: string }).callId)).toEqual(["call-b"]);
    await a.saveRunState(stopped.state);
    tether.addAsService("oa-approval", "approval_granted", { callId: "call-b", scope: "ONCE", approver: "ann", reason: "ok" });
    tether.addAsService("oa-approval", "tool_call_authorized", { callId: "call-b", basis: { kind: "APPROVAL" } });

    const b = open();
    const agentB = new Agent({ name: "travel", instructions: "Book.", model: new ScriptedModel(script), tools: [...b.tools] });
    await b.resume();
    const saved = (await b.loadRunState(agentB))!;
    expect(await b.settleApprovals(saved)).toEqual({ approved: ["call-b"], rejected: [], pending: [] });
    const done = await runner.run(agentB, saved, { session: b });
    await b.clearRunState();
    expect(done.finalOutput).toBe("Booked.");
    expect(booked).toBe(1);
    const onTether: AgentInputItem[] = await open().getItems();
    expect(onTether).toEqual(onMemory);
  });
});

describe("a Tether-run call the SDK answered without running it", () => {
  it("is not run by a later resume(): a tool input guardrail rejected it, and the model was told so", async () => {
    let booked = 0;
    const book = tool({
      name: "book",
      description: "Books",
      parameters: z.object({ to: z.string() }),
      inputGuardrails: [defineToolInputGuardrail({ name: "no-lisbon", run: async () => ToolGuardrailFunctionOutputFactory.rejectContent("Lisbon is not allowed") })],
      execute: async ({ to }) => `booked ${to} (${++booked})`,
    });
    const tether = new AuthorizingTether();
    const open = () => new TetherSession({ client: tether as unknown as TetherClient, sessionId: "oa-guarded", workerId: "w", tools: [{ tool: book }] });
    const a = open();
    const agent = new Agent({ name: "travel", instructions: "Book.", model: new ScriptedModel(script), tools: [...a.tools] });
    await new Runner({ tracingDisabled: true }).run(agent, "Book Lisbon", { session: a });
    expect(booked).toBe(0);
    const told = (await a.getItems()).find((i) => (i as { type?: string }).type === "function_call_result") as { output: { text: string } };
    expect(told.output.text).toBe("Lisbon is not allowed");

    // another process takes the conversation up, as the README says to
    await open().resume();

    expect(booked, "a call the guardrail rejected never runs").toBe(0);
    const results = tether.sessionsById.get("oa-guarded")!.events.filter((e) => e.type === "tool_result");
    expect(results.map((e) => [e.json.callId, e.json.status])).toEqual([["call-b", "CANCELLED"]]);
    expect((await open().getItems()).filter((i) => (i as { type?: string }).type === "function_call_result")).toEqual([told]);
  });
});

describe("an approved call a saved run state takes up", () => {
  it("runs in that run, with its context, not in resume() with an empty one", async () => {
    const seen: unknown[] = [];
    const book = tool({
      name: "book",
      description: "Books",
      parameters: z.object({ to: z.string() }),
      execute: async ({ to }, context) => {
        const traveller = (context?.context as { traveller?: string } | undefined)?.traveller;
        seen.push(traveller);
        return `booked ${to} for ${String(traveller)}`;
      },
    });
    const tether = new AuthorizingTether((callId) => callId === "call-b");
    const open = () => new TetherSession({ client: tether as unknown as TetherClient, sessionId: "oa-context", workerId: "w", tools: [{ tool: book, mutating: true }] });
    const runner = new Runner({ tracingDisabled: true });
    const a = open();
    const agentA = new Agent<{ traveller: string }>({ name: "travel", instructions: "Book.", model: new ScriptedModel(script), tools: [...a.tools] });
    const stopped = await runner.run(agentA, "Book Lisbon", { session: a, context: { traveller: "ann" } });
    await a.saveRunState(stopped.state);
    tether.addAsService("oa-context", "approval_granted", { callId: "call-b", scope: "ONCE", approver: "bob", reason: "ok" });
    tether.addAsService("oa-context", "tool_call_authorized", { callId: "call-b", basis: { kind: "APPROVAL" } });

    // a new process, as the README says: resume(), then the saved run state with Tether's decisions
    const b = open();
    const agentB = new Agent<{ traveller: string }>({ name: "travel", instructions: "Book.", model: new ScriptedModel(script), tools: [...b.tools] });
    await b.resume();
    const saved = (await b.loadRunState(agentB))!;
    await b.settleApprovals(saved);
    const done = await runner.run(agentB, saved, { session: b });

    expect(done.finalOutput).toBe("Booked.");
    expect(seen, "the one run of the call saw the run's context").toEqual(["ann"]);
    const results = (await open().getItems()).filter((i) => (i as { type?: string }).type === "function_call_result");
    expect(results.map((i) => (i as { output: { text: string } }).output.text)).toEqual(["booked LIS for ann"]);
  });
});
