/**
 * What a Tether-run tool's output becomes: the same function_call_result the SDK makes of it when it runs the tool
 * itself (a text for an object output, the content parts of a structured one), not the output's String().
 */
import { Agent, MemorySession, Runner, tool, type AgentInputItem } from "@openai/agents-core";
import type { TetherClient } from "@tether/client";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { AuthorizingTether } from "./support/authorizing-tether.js";
import { TetherSession } from "../src/index.js";
import { ScriptedModel, callTool, say } from "./support/scripted-model.js";

const script = [() => [callTool("lookup", "call-1", { city: "Lisbon" })], () => [say("Sunny.", "msg-final")]];

async function resultOf(execute: () => Promise<unknown>, onTether: boolean): Promise<{ items: AgentInputItem[]; tether: AuthorizingTether }> {
  const lookup = tool({ name: "lookup", description: "The weather", parameters: z.object({ city: z.string() }), execute: execute as () => Promise<string> });
  const tether = new AuthorizingTether();
  const session = onTether
    ? new TetherSession({ client: tether as unknown as TetherClient, sessionId: "oa-output", workerId: "test", tools: [{ tool: lookup }] })
    : new MemorySession();
  const tools = session instanceof TetherSession ? [...session.tools] : [lookup];
  const agent = new Agent({ name: "weather", instructions: "Answer.", model: new ScriptedModel(script), tools });
  await new Runner({ tracingDisabled: true }).run(agent, "Weather in Lisbon?", { session });
  return { items: (await session.getItems()).filter((i) => (i as { type?: string }).type === "function_call_result"), tether };
}

describe("a Tether-run tool's output", () => {
  it("is, for an object, the JSON text the SDK makes of it, in the history and in Tether's result", async () => {
    const execute = async () => ({ temperature: 21, unit: "C" });
    const onMemory = await resultOf(execute, false);
    const onTether = await resultOf(execute, true);
    expect(onTether.items).toEqual(onMemory.items);
    const result = onTether.tether.sessionsById.get("oa-output")!.events.find((e) => e.type === "tool_result")!;
    expect(result.json.content).toBe('{"temperature":21,"unit":"C"}');
  });

  it("is, for a structured output (an image), the content parts the SDK makes of it", async () => {
    const execute = async () => ({ type: "image", image: "data:image/png;base64,iVBORw0KGgo=" });
    const onMemory = await resultOf(execute, false);
    const onTether = await resultOf(execute, true);
    expect(onTether.items).toEqual(onMemory.items);
    const result = onTether.tether.sessionsById.get("oa-output")!.events.find((e) => e.type === "tool_result")!;
    expect(result.json.content).not.toContain("[object Object]");
  });
});

describe("a Tether-run tool's large output", () => {
  it("is stored once: in its offloaded tool_result, not again in the history record", async () => {
    const big = `report ${"x".repeat(5_000)}`;
    const lookup = tool({ name: "lookup", description: "The weather", parameters: z.object({ city: z.string() }), execute: async () => big });
    const tether = new AuthorizingTether(() => false, 2_000);
    const session = new TetherSession({ client: tether as unknown as TetherClient, sessionId: "oa-big", workerId: "test", tools: [{ tool: lookup }] });
    const agent = new Agent({ name: "weather", instructions: "Answer.", model: new ScriptedModel(script), tools: [...session.tools] });
    await new Runner({ tracingDisabled: true }).run(agent, "Weather in Lisbon?", { session });

    const items = await new TetherSession({ client: tether as unknown as TetherClient, sessionId: "oa-big", workerId: "other" }).getItems();
    expect(items.filter((i) => (i as { type?: string }).type === "function_call_result").map((i) => (i as { output: { text: string } }).output.text)).toEqual([big]);
    const copies = [...tether.blobs.values(), ...tether.sessionsById.get("oa-big")!.events.map((e) => JSON.stringify(e.json))].filter((t) => t.includes("x".repeat(5_000)));
    expect(copies, "the output's copies in the log and its blobs").toHaveLength(1);
  });
});

describe("a Tether-run tool with an output schema", () => {
  const output = z.object({ temperature: z.number() });

  it("gives the run its output as the schema has it", async () => {
    const lookup = tool({ name: "lookup", description: "The weather", parameters: z.object({ city: z.string() }), outputSchema: output, execute: async () => ({ temperature: 21 }) });
    const tether = new AuthorizingTether();
    const session = new TetherSession({ client: tether as unknown as TetherClient, sessionId: "oa-schema", workerId: "test", tools: [{ tool: lookup }] });
    const agent = new Agent({ name: "weather", instructions: "Answer.", model: new ScriptedModel(script), tools: [...session.tools] });
    const result = await new Runner({ tracingDisabled: true }).run(agent, "Weather in Lisbon?", { session });
    expect(result.finalOutput).toBe("Sunny.");
    const items = (await session.getItems()).filter((i) => (i as { type?: string }).type === "function_call_result");
    expect(items.map((i) => (i as { output: { text: string } }).output.text)).toEqual(['{"temperature":21}']);
  });

  it("gives a run that takes the call up again the output Tether recorded, as the schema has it (not run twice)", async () => {
    let runs = 0;
    const lookup = tool({
      name: "lookup", description: "The weather", parameters: z.object({ city: z.string() }), outputSchema: output,
      execute: async () => ({ temperature: 20 + ++runs }),
    });
    const tether = new AuthorizingTether((callId) => callId === "call-1");
    const open = () => new TetherSession({ client: tether as unknown as TetherClient, sessionId: "oa-schema-again", workerId: "w", tools: [{ tool: lookup }] });
    const runner = new Runner({ tracingDisabled: true });
    const a = open();
    const stopped = await runner.run(new Agent({ name: "w", instructions: "Answer.", model: new ScriptedModel(script), tools: [...a.tools] }), "Weather?", { session: a });
    await a.saveRunState(stopped.state);
    tether.addAsService("oa-schema-again", "approval_granted", { callId: "call-1", scope: "ONCE", approver: "ann", reason: "ok" });
    tether.addAsService("oa-schema-again", "tool_call_authorized", { callId: "call-1", basis: { kind: "APPROVAL" } });

    // a process runs the state: the call runs, then the model call fails (a crash there); the state stays saved
    const b = open();
    const failing = new ScriptedModel([script[0]!, () => { throw new Error("the model is down"); }]);
    const agentB = new Agent({ name: "w", instructions: "Answer.", model: failing, tools: [...b.tools] });
    const savedB = (await b.loadRunState(agentB))!;
    await b.settleApprovals(savedB);
    await expect(runner.run(agentB, savedB, { session: b })).rejects.toThrow(/the model is down/);
    expect(runs).toBe(1);

    // another process takes the saved state up again: the call is answered from Tether
    const c = open();
    const seen: unknown[] = [];
    const modelC = new ScriptedModel(script);
    const answer = modelC.getResponse.bind(modelC);
    modelC.getResponse = async (request) => {
      seen.push(...(request.input as Record<string, unknown>[]).filter((i) => i.type === "function_call_result").map((i) => (i.output as { text: string }).text));
      return answer(request);
    };
    const agentC = new Agent({ name: "w", instructions: "Answer.", model: modelC, tools: [...c.tools] });
    await c.resume();
    const savedC = (await c.loadRunState(agentC))!;
    await c.settleApprovals(savedC);
    const done = await runner.run(agentC, savedC, { session: c });
    expect(done.finalOutput).toBe("Sunny.");
    expect(runs).toBe(1);
    const items = (await open().getItems()).filter((i) => (i as { type?: string }).type === "function_call_result");
    expect(items.map((i) => (i as { output: { text: string } }).output.text)).toEqual(['{"temperature":21}']);
    expect(seen, "what the model was given as the call's output").toEqual(['{"temperature":21}']);
  });
});
