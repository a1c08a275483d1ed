// The resume figure of bench/langgraph-savers: a new process reads a thread's state through one saver and prints how
// long that took from the saver's creation (not counting Node's start and the modules' loading).
// Usage: node resume.mjs tether|postgres <thread id>, with the BENCH_* variables the bench sets.
import { AIMessage } from "@langchain/core/messages";
import { PostgresSaver } from "@langchain/langgraph-checkpoint-postgres";
import { END, MessagesAnnotation, START, StateGraph } from "@langchain/langgraph";
import { RetryPolicy, TetherClient } from "@tether/client";
import pg from "pg";
import { TetherSaver } from "../dist/index.js";

const [kind, threadId] = process.argv.slice(2);
const start = performance.now();
let saver;
let close;
if (kind === "postgres") {
  const pool = new pg.Pool({ connectionString: process.env.BENCH_POSTGRES_URL });
  saver = new PostgresSaver(pool);
  close = () => pool.end();
} else {
  const client = new TetherClient({
    sessionsUrl: process.env.BENCH_TETHER_SESSIONS_URL,
    projectorUrl: process.env.BENCH_TETHER_PROJECTOR_URL,
    approvalsUrl: process.env.BENCH_TETHER_APPROVALS_URL,
    token: "dev-acme-agent",
    timeoutMs: 60_000,
    retry: RetryPolicy.of(12, 250, 5_000),
  });
  saver = new TetherSaver({ client, threadPrefix: process.env.BENCH_TETHER_PREFIX, workerId: "bench-resume" });
  close = () => client.close();
}
const graph = new StateGraph(MessagesAnnotation)
  .addNode("agent", async () => ({ messages: [new AIMessage("unused")] }))
  .addEdge(START, "agent")
  .addEdge("agent", END)
  .compile({ checkpointer: saver });
const state = await graph.getState({ configurable: { thread_id: threadId } });
const ms = performance.now() - start;
await close();
console.log(JSON.stringify({ ms, messages: state.values.messages.length }));
