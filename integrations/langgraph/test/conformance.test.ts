/**
 * LangGraph's own checkpointer conformance suite (`@langchain/langgraph-checkpoint-validation`: every test of
 * `validate`, and the delta-channel history tests it exports separately) against TetherSaver on an in-memory log —
 * the quick run, in the unit tests. `conformance.it.test.ts` runs the same suite against the real stack.
 */
import { deltaChannelHistoryTests, validate } from "@langchain/langgraph-checkpoint-validation";
import { TetherSaver } from "../src/index.js";
import { FakeTether } from "../../../clients/typescript/test/fake-tether.js";

const tether = new FakeTether(2_000); // offload content over 2,000 characters, as Tether does over 64 KiB
let n = 0;
const initializer = {
  checkpointerName: "@tether/langgraph (in-memory log)",
  // each checkpointer sees only its own threads: the suite reuses thread ids ("1", "thread-1") across checkpointers
  createCheckpointer: () => new TetherSaver({ client: tether, threadPrefix: `t${++n}-` }),
};
validate(initializer);
deltaChannelHistoryTests(initializer);
