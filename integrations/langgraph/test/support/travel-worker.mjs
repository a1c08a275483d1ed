// A LangGraph.js agent in a process of its own, checkpointed by TetherSaver: a StateGraph with a model node (a
// scripted chat model, no network) and LangGraph's ToolNode running two harness-run tools through Tether —
// book_flight (mutating, reconciled by its idempotency key against a counting booking service) and weather
// (read-only) — plus one tool it does not wrap (note_down: recorded-only). The integration tests start it, SIGKILL it
// at chosen points and start it again. Plain JavaScript on the built package (dist/), so Node runs it as it is.
//
// Usage: node travel-worker.mjs '<json>'   with {urls..., token, threadPrefix, threadId, workerId, action, input?,
//        killAt?, bookingUrl, authorizationTimeoutMs?, wait?}
//   action: "turn" (input: the user's message), "resume" (Command({resume: true})), "continue" (invoke(null)),
//           "two-turns" (a turn, then waits for a line on stdin, then another turn: for the one-writer test)
//   killAt: "model-call" (the first model call), "before-effect", "after-effect" (book_flight's first attempt)
// Prints one JSON line per event: {"event": "done" | "interrupted" | "error" | "ready" | "killing", ...}.
import { AIMessage, HumanMessage } from "@langchain/core/messages";
import { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { tool } from "@langchain/core/tools";
import { Command, END, MessagesAnnotation, START, StateGraph } from "@langchain/langgraph";
import { ToolNode, toolsCondition } from "@langchain/langgraph/prebuilt";
import { Reconciliation, TetherClient, ToolOutput, RetryPolicy } from "@tether/client";
import { createInterface } from "node:readline";
import { z } from "zod";
import { TetherSaver, idempotencyKeyOf } from "../../dist/index.js";

const config = JSON.parse(process.argv[2]);
const say = (event, fields = {}) => process.stdout.write(`${JSON.stringify({ event, ...fields })}\n`);
const die = (where) => {
  say("killing", { where });
  process.kill(process.pid, "SIGKILL");
};

/** Answers by how many AI messages the thread has: the same answer to the same state, in any process. */
const SCRIPT = [
  (n) => ({ content: "", tool_calls: [{ id: `call-book-${n}`, name: "book_flight", args: { to: "Lisbon" } }] }),
  (n) => ({ content: "", tool_calls: [{ id: `call-weather-${n}`, name: "weather", args: { city: "Lisbon" } }] }),
  (n) => ({ content: "", tool_calls: [{ id: `call-note-${n}`, name: "note_down", args: { text: "flight booked" } }] }),
  () => ({ content: "Booked your flight to Lisbon; it will be sunny." }),
];

class ScriptedModel extends BaseChatModel {
  _llmType() {
    return "scripted";
  }
  bindTools() {
    return this;
  }
  async _generate(messages) {
    if (config.killAt === "model-call") {
      die("model-call");
    }
    const turn = messages.filter((m) => m.getType() === "ai").length;
    const answer = SCRIPT[turn % SCRIPT.length](turn);
    const message = new AIMessage({ ...answer, id: `ai-${turn}`, usage_metadata: { input_tokens: 100 + turn, output_tokens: 10, total_tokens: 110 + turn } });
    return { generations: [{ message, text: answer.content }] };
  }
}

const booking = async (method, path, body) => {
  const response = await fetch(`${config.bookingUrl}${path}`, { method, body: body === undefined ? undefined : JSON.stringify(body) });
  return response.json();
};

const bookFlight = tool(
  async ({ to }, runConfig) => {
    const key = idempotencyKeyOf(runConfig);
    if (config.killAt === "before-effect") {
      die("before-effect");
    }
    const booked = await booking("POST", "/bookings", { key, to });
    if (config.killAt === "after-effect") {
      die("after-effect");
    }
    return `booked ${to}: confirmation ${booked.confirmation}`;
  },
  { name: "book_flight", description: "Books a flight", schema: z.object({ to: z.string() }) },
);
const weather = tool(async ({ city }) => `sunny in ${city}`, { name: "weather", description: "The forecast", schema: z.object({ city: z.string() }) });
const noteDown = tool(async ({ text }) => `noted: ${text}`, { name: "note_down", description: "Notes something down", schema: z.object({ text: z.string() }) });

const client = new TetherClient({
  sessionsUrl: config.sessionsUrl,
  projectorUrl: config.projectorUrl,
  approvalsUrl: config.approvalsUrl,
  token: config.token,
  timeoutMs: 30_000,
  retry: RetryPolicy.of(12, 250, 5_000),
});
const saver = new TetherSaver({
  client,
  threadPrefix: config.threadPrefix,
  workerId: config.workerId,
  authorizationTimeoutMs: config.authorizationTimeoutMs ?? 120_000,
  tools: [
    {
      tool: bookFlight,
      mutating: true,
      // the booking service answers by the attempt's key whether it booked: an attempt cut short is reconciled
      reconcile: async (attempt) => {
        const found = await booking("GET", `/bookings/${encodeURIComponent(attempt.idempotencyKey)}`);
        return found.count > 0
          ? Reconciliation.tookEffect(ToolOutput.ok(`booked ${found.to}: confirmation ${found.confirmation}`))
          : Reconciliation.noEffect("the booking service has no booking under this key");
      },
    },
    { tool: weather },
  ],
});

const graph = new StateGraph(MessagesAnnotation)
  .addNode("agent", async (state) => ({ messages: [await new ScriptedModel({}).invoke(state.messages)] }))
  .addNode("tools", new ToolNode([...saver.tools, noteDown]))
  .addEdge(START, "agent")
  .addConditionalEdges("agent", toolsCondition, ["tools", END])
  .addEdge("tools", "agent")
  .compile({ checkpointer: saver });
const thread = { configurable: { thread_id: config.threadId } };
// "sync": each step's checkpoint is in Tether before the next step runs, so a crash loses no step that ran (with
// LangGraph's default, "async", a crash during a step may lose the previous step's checkpoint still on its way)
const run = { ...thread, durability: "sync" };

async function invoke(input) {
  const result = await graph.invoke(input, run);
  const state = await graph.getState(thread);
  const interrupts = state.tasks.flatMap((t) => t.interrupts ?? []).map((i) => i.value);
  if (interrupts.length > 0) {
    say("interrupted", { interrupts });
  } else {
    say("done", { messages: result.messages.map((m) => ({ type: m.getType(), content: m.content, id: m.id })) });
  }
}

try {
  switch (config.action) {
    case "turn":
      await invoke({ messages: [new HumanMessage({ content: config.input, id: `user-${config.input.length}` })] });
      break;
    case "resume":
      await invoke(new Command({ resume: true }));
      break;
    case "continue":
      await invoke(null);
      break;
    case "two-turns": {
      await invoke({ messages: [new HumanMessage({ content: config.input, id: "user-first" })] });
      say("ready");
      const lines = createInterface({ input: process.stdin });
      await new Promise((resolve) => lines.once("line", resolve));
      lines.close();
      process.stdin.destroy();
      await invoke({ messages: [new HumanMessage({ content: "and once more", id: "user-second" })] });
      break;
    }
    default:
      throw new Error(`unknown action ${config.action}`);
  }
} catch (e) {
  say("error", { name: e?.name, message: String(e?.message ?? e), stack: String(e?.stack) });
  process.exitCode = 3;
} finally {
  await client.close();
}
