import { AIMessage, HumanMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { END, MessagesAnnotation, START, StateGraph } from "@langchain/langgraph";
import { ToolNode, toolsCondition } from "@langchain/langgraph/prebuilt";
import { TetherClient } from "@tether/client";
import { TetherSaver, idempotencyKeyOf } from "@tether/langgraph";
import { z } from "zod";

const client = new TetherClient({
  token: "dev-acme-agent", // an agent's token: the saver sees its tenant's threads only
  sessionsUrl: process.env.TETHER_SESSIONS_URL ?? "http://127.0.0.1:8080",
  projectorUrl: process.env.TETHER_PROJECTOR_URL ?? "http://127.0.0.1:8081",
  approvalsUrl: process.env.TETHER_APPROVALS_URL ?? "http://127.0.0.1:8082",
});

const lookupOrder = tool(async ({ order }, config) => {
  // idempotencyKeyOf(config): the key Tether derived for this call; pass it to systems that change things
  console.log(`looking up ${order} (key ${idempotencyKeyOf(config)})`);
  return `order ${order}: shipped`;
}, { name: "lookup_order", description: "Looks an order up", schema: z.object({ order: z.string() }) });

const saver = new TetherSaver({
  client,
  tools: [{ tool: lookupOrder }], // run through Tether: authorized, recorded, run once; tools not listed are recorded-only
  session: () => ({ modelId: "gpt-4.1", objective: "Answer questions about orders" }),
});

// your model here; this one answers from a script so that the example runs without a network
const script = [
  new AIMessage({ content: "", tool_calls: [{ id: "call-1", name: "lookup_order", args: { order: "A-17" } }] }),
  new AIMessage({ content: "Order A-17 has shipped." }),
];
const graph = new StateGraph(MessagesAnnotation)
  .addNode("agent", async (state) => ({ messages: [script[state.messages.filter((m) => m.getType() === "ai").length]!] }))
  .addNode("tools", new ToolNode([...saver.tools]))
  .addEdge(START, "agent")
  .addConditionalEdges("agent", toolsCondition, ["tools", END])
  .addEdge("tools", "agent")
  .compile({ checkpointer: saver });

const thread = { configurable: { thread_id: process.env.THREAD_ID ?? "order-help-1" } };
// durability "sync": each step is in Tether before the next one runs, so a crash loses no step that ran
const result = await graph.invoke({ messages: [new HumanMessage("Where is my order A-17?")] }, { ...thread, durability: "sync" });
console.log(result.messages.at(-1)?.content);

// the same thread in Tether: its log, and the model context Tether renders from it
const sessionId = saver.sessionIdOf(thread.configurable.thread_id);
const events = await client.allEvents(sessionId);
console.log(events?.map((e) => `${e.seq} ${e.type}`).join("\n"));
const context = await client.context(sessionId, "openai");
console.log(`${context?.messages.length} messages in the model context`);
await client.close();
