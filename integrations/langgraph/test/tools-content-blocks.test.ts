/**
 * Harness-run tools through TetherSaver (`saver.tools` in LangGraph's ToolNode), on the in-memory log with a
 * policy that authorizes every call (test/fake-policy-client.ts).
 */
import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { TetherSaver } from "../src/index.js";
import { FakeTetherClient } from "./fake-policy-client.js";
import { ScriptedChatModel } from "./support/scripted-model.js";
import { toolAgent } from "./support/tool-agent.js";

describe("harness-run tools and content blocks", () => {
  it("a call asked by an AI message whose content is a list of blocks (Anthropic's tool_use turns) runs", async () => {
    const ran: string[] = [];
    const lookup = tool(async ({ order }: { order: string }) => (ran.push(order), `order ${order}: shipped`), {
      name: "lookup_order",
      description: "Looks an order up",
      schema: z.object({ order: z.string() }),
    });
    const client = new FakeTetherClient();
    const saver = new TetherSaver({ client, threadPrefix: "rv-", tools: [{ tool: lookup }], authorizationTimeoutMs: 2_000 });
    // what ChatAnthropic returns for a turn with a tool call: text and tool_use blocks, and the parsed tool_calls
    const model = new ScriptedChatModel([
      new AIMessage({
        content: [
          { type: "text", text: "Let me look that up." },
          { type: "tool_use", id: "toolu_01", name: "lookup_order", input: { order: "A-17" } },
        ],
        tool_calls: [{ id: "toolu_01", name: "lookup_order", args: { order: "A-17" } }],
      }),
      new AIMessage({ content: "A-17 has shipped." }),
    ]);
    const result = await toolAgent(saver, model).invoke({ messages: [new HumanMessage("Where is A-17?")] }, { configurable: { thread_id: "blocks" }, durability: "sync" });
    const answered = (result.messages as BaseMessage[]).find((m) => m instanceof ToolMessage)!;
    expect(answered.content).toBe("order A-17: shipped");
    expect(ran).toEqual(["A-17"]);
    expect((result.messages as BaseMessage[]).at(-1)!.content).toBe("A-17 has shipped.");
    // the blocks come back exactly, from the log alone (a new process)
    const fresh = toolAgent(new TetherSaver({ client, threadPrefix: "rv-", tools: [{ tool: lookup }] }), new ScriptedChatModel([]));
    const state = await fresh.getState({ configurable: { thread_id: "blocks" } });
    expect((state.values.messages as BaseMessage[]).map((m) => m.toDict())).toEqual((result.messages as BaseMessage[]).map((m) => m.toDict()));
  });
});
