// An OpenAI Agents SDK agent in a process of its own, its history in a TetherSession: a scripted model (no network)
// and three function tools — book_flight (mutating: gated by an approver, reconciled by its idempotency key against a
// counting booking service) and weather (read-only), both run through Tether, and note_down, which the session only
// records. The integration tests start it, SIGKILL it at chosen points and start it again. Plain JavaScript on the built
// package (dist/), so Node runs it as it is.
//
// Usage: node travel-agent.mjs '<json>'   with {sessionsUrl, projectorUrl, approvalsUrl, token, sessionId, workerId,
//        input?, killAt?, bookingUrl}
// What it does, as an application would after any restart: resume the session (calls cut short are reconciled); take
// up the run state saved at an interruption, with Tether's decisions applied, if there is one, else run the input (or
// continue the history); save the state at an interruption, forget it at the end.
//   killAt: "model-call" (the first model call), "before-effect", "after-effect" (book_flight's booking)
// Prints one JSON line per event: {"event": "done" | "interrupted" | "pending" | "error" | "killing", ...}.
import { Agent, Runner, Usage, tool } from "@openai/agents-core";
import { Reconciliation, RetryPolicy, TetherClient, ToolOutput } from "@tether/client";
import { z } from "zod";
import { TetherSession, idempotencyKeyOf } from "../../dist/index.js";

const config = JSON.parse(process.argv[2]);
const say = (event, fields = {}) => process.stdout.write(`${JSON.stringify({ event, ...fields })}\n`);
const die = (where) => {
  say("killing", { where });
  process.kill(process.pid, "SIGKILL");
};

/** Answers by how many function results the input has: the same answer to the same history, in any process. */
const SCRIPT = [
  (n) => [{ type: "function_call", callId: `call-book-${n}`, name: "book_flight", arguments: '{"to":"Lisbon"}', status: "completed", id: `fc-book-${n}` }],
  (n) => [{ type: "function_call", callId: `call-weather-${n}`, name: "weather", arguments: '{"city":"Lisbon"}', status: "completed", id: `fc-weather-${n}` }],
  (n) => [{ type: "function_call", callId: `call-note-${n}`, name: "note_down", arguments: '{"text":"flight booked"}', status: "completed", id: `fc-note-${n}` }],
  () => [{ type: "message", role: "assistant", status: "completed", id: "msg-final", content: [{ type: "output_text", text: "Booked your flight to Lisbon; it will be sunny." }] }],
];

let modelCalls = 0;
const model = {
  async getResponse(request) {
    if (config.killAt === "model-call" && modelCalls++ === 0) {
      die("model-call");
    }
    const input = Array.isArray(request.input) ? request.input : [];
    const turn = input.filter((i) => i.type === "function_call_result").length;
    return { usage: new Usage({ requests: 1, inputTokens: 100 + turn, outputTokens: 10 }), output: SCRIPT[Math.min(turn, SCRIPT.length - 1)](turn), responseId: `resp-${turn}` };
  },
  async *getStreamedResponse() {
    throw new Error("no streaming");
  },
};

const booking = async (method, path, body) => {
  const response = await fetch(`${config.bookingUrl}${path}`, { method, body: body === undefined ? undefined : JSON.stringify(body) });
  return response.json();
};
const bookFlight = tool({
  name: "book_flight",
  description: "Books a flight",
  parameters: z.object({ to: z.string() }),
  execute: async ({ to }, _context, details) => {
    if (config.killAt === "before-effect") {
      die("before-effect");
    }
    // the attempt's idempotency key, as Tether derived it: the booking service books once per key
    const key = idempotencyKeyOf(details);
    const booked = await booking("POST", "/bookings", { key, to });
    if (config.killAt === "after-effect") {
      die("after-effect");
    }
    return `booked ${to}: confirmation ${booked.confirmation}`;
  },
});
const weather = tool({ name: "weather", description: "The forecast", parameters: z.object({ city: z.string() }), execute: async ({ city }) => `sunny in ${city}` });
const noteDown = tool({ name: "note_down", description: "Notes something down", parameters: z.object({ text: z.string() }), execute: async ({ text }) => `noted: ${text}` });

const client = new TetherClient({
  sessionsUrl: config.sessionsUrl,
  projectorUrl: config.projectorUrl,
  approvalsUrl: config.approvalsUrl,
  token: config.token,
  timeoutMs: 30_000,
  retry: RetryPolicy.of(12, 250, 5_000),
});
const session = new TetherSession({
  client,
  sessionId: config.sessionId,
  workerId: config.workerId,
  tools: [
    {
      tool: bookFlight,
      mutating: true,
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
const agent = new Agent({ name: "travel", instructions: "Book what is asked.", model, tools: [...session.tools, noteDown] });
const runner = new Runner({ tracingDisabled: true });

try {
  const resumed = await session.resume();
  if (resumed.calls.length > 0 || resumed.restoredItems > 0) {
    say("resumed", { calls: resumed.calls.map((c) => ({ kind: c.kind, how: c.how })), restoredItems: resumed.restoredItems });
  }
  const saved = await session.loadRunState(agent);
  let result;
  if (saved !== undefined && saved.getInterruptions().length > 0) {
    const settled = await session.settleApprovals(saved);
    if (settled.pending.length > 0) {
      say("pending", { calls: settled.pending });
      process.exit(0);
    }
    result = await runner.run(agent, saved, { session });
  } else {
    // the user's message, unless the history has it already: a run cut short before its first turn was saved
    // (a crash during the first model call) left nothing, and is run again from the message
    const history = await session.getItems();
    const input = history.some((i) => i.role === "user") ? [] : config.input ?? [];
    result = await runner.run(agent, input, { session });
  }
  if (result.interruptions.length > 0) {
    await session.saveRunState(result.state);
    say("interrupted", { calls: result.interruptions.map((i) => i.rawItem.callId) });
  } else {
    await session.clearRunState();
    const items = await session.getItems();
    say("done", { output: result.finalOutput, items });
  }
} catch (e) {
  say("error", { name: e?.name, message: String(e?.message ?? e) });
  process.exitCode = 3;
} finally {
  await client.close();
}
