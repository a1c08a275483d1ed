import { Agent, Runner, Usage, tool, type Model, type ModelRequest, type ModelResponse } from "@openai/agents-core";
import { TetherClient } from "@tether/client";
import { TetherSession, idempotencyKeyOf } from "@tether/openai-agents";
import { z } from "zod";

const client = new TetherClient({
  token: "dev-acme-agent", // an agent's token: the session is its tenant's
  sessionsUrl: process.env.TETHER_SESSIONS_URL ?? "http://127.0.0.1:8080",
  projectorUrl: process.env.TETHER_PROJECTOR_URL ?? "http://127.0.0.1:8081",
  approvalsUrl: process.env.TETHER_APPROVALS_URL ?? "http://127.0.0.1:8082",
});

const lookupOrder = tool({
  name: "lookup_order",
  description: "Looks an order up",
  parameters: z.object({ order: z.string() }),
  execute: async ({ order }, _context, details) => {
    // idempotencyKeyOf(details): the key Tether derived for this call; pass it to systems that change things
    console.log(`looking up ${order} (key ${idempotencyKeyOf(details)})`);
    return `order ${order}: shipped`;
  },
});

const session = new TetherSession({
  client,
  sessionId: process.env.SESSION_ID ?? "order-help-1", // the same id continues the conversation, in any process
  tools: [{ tool: lookupOrder }], // run through Tether: authorized, recorded, run once; tools not listed are recorded-only
  session: { modelId: "gpt-4.1", objective: "Answer questions about orders" },
});

// your model here (e.g. the OpenAI provider's); this one answers from a script so that the example runs offline
const model: Model = {
  async getResponse(request: ModelRequest): Promise<ModelResponse> {
    const answered = Array.isArray(request.input) && request.input.some((i) => (i as { type?: string }).type === "function_call_result");
    const output = answered
      ? [{ type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text: "Order A-17 has shipped." }] }]
      : [{ type: "function_call", callId: "call-1", name: "lookup_order", arguments: '{"order":"A-17"}', status: "completed" }];
    return { usage: new Usage({ requests: 1, inputTokens: 50, outputTokens: 10 }), output: output as ModelResponse["output"] };
  },
  async *getStreamedResponse() {
    throw new Error("not used here");
  },
};

const agent = new Agent({ name: "orders", instructions: "Answer about orders.", model, tools: [...session.tools] });
const result = await new Runner({ tracingDisabled: true }).run(agent, "Where is my order A-17?", { session });
console.log(result.finalOutput);

// the same conversation in Tether: its log, and the model context Tether renders from it
const events = await client.allEvents(session.sessionId);
console.log(events?.map((e) => `${e.seq} ${e.type}`).join("\n"));
const context = await client.context(session.sessionId, "openai");
console.log(`${context?.messages.length} messages in the model context`);
await client.close();
