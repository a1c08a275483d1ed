/**
 * A harness-run tool runs only once the message that asked for it is in the thread's log: with LangGraph's `"exit"`
 * durability, nothing is written until the graph ends, so the tool cannot run through Tether. It does not run, and the
 * call's ToolMessage says why and what to do, rather than pointing at Tether.
 */
import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { TetherSaver } from "../src/index.js";
import { FakeTetherClient } from "./fake-policy-client.js";
import { ScriptedChatModel } from "./support/scripted-model.js";
import { toolAgent } from "./support/tool-agent.js";

describe("a harness-run tool under durability \"exit\"", () => {
  it("does not run, and its ToolMessage tells the graph to write its steps first (durability sync or async)", async () => {
    const ran: string[] = [];
    const lookup = tool(async ({ order }: { order: string }) => (ran.push(order), `order ${order}: shipped`), {
      name: "lookup_order",
      description: "Looks an order up",
      schema: z.object({ order: z.string() }),
    });
    const saver = new TetherSaver({ client: new FakeTetherClient(), threadPrefix: "ex-", tools: [{ tool: lookup }], authorizationTimeoutMs: 2_000 });
    const model = new ScriptedChatModel([
      new AIMessage({ content: "", tool_calls: [{ id: "call-1", name: "lookup_order", args: { order: "A-17" } }] }),
      new AIMessage({ content: "Sorry." }),
    ]);

    const result = await toolAgent(saver, model).invoke({ messages: [new HumanMessage("Where is A-17?")] }, { configurable: { thread_id: "exit" }, durability: "exit" });

    const answered = (result.messages as BaseMessage[]).find((m) => m instanceof ToolMessage)!;
    expect(answered.status).toBe("error");
    expect(String(answered.content)).toContain('durability "sync" or "async"');
    expect(ran).toEqual([]);
  });
});
