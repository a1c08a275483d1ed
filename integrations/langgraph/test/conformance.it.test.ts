/**
 * LangGraph's own checkpointer conformance suite (`@langchain/langgraph-checkpoint-validation` 1.1: every test of
 * `validate`, including "should only store channel_values that have changed", and the delta-channel history tests it
 * exports separately) against TetherSaver on the real stack: a real broker and registry and the four packaged
 * services (test/real-stack.global.ts). Each checkpointer the suite creates has a thread prefix of its own,
 * so it sees only its own threads: the suite reuses thread ids ("1", "thread-1") across checkpointers.
 */
import { deltaChannelHistoryTests, validate } from "@langchain/langgraph-checkpoint-validation";
import type { TetherClient } from "@tether/client";
import { TetherSaver } from "../src/index.js";
import { stackClient } from "./it-client.js";

let client: TetherClient;
let n = 0;
const run = Math.random().toString(16).slice(2, 8);

const initializer = {
  checkpointerName: "@tether/langgraph",
  async beforeAll() {
    client = stackClient("dev-acme-agent");
  },
  async afterAll() {
    await client?.close();
  },
  createCheckpointer: () => new TetherSaver({ client, threadPrefix: `v${run}-${++n}-`, workerId: "conformance" }),
};
validate(initializer);
deltaChannelHistoryTests(initializer);
