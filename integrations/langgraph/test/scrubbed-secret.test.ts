/**
 * Tether scrubs every secret before anything is stored: a message holding one is in the log with `[REDACTED:<kind>]`
 * in its place, while the graph, in this process, goes on with the message as it wrote it. The steps after it extend
 * the list as the saver wrote it (the records did go into the log, at the seqs planned): the message is in the log
 * once. The saver used to compare the next step's list with the scrubbed one read back, took it for a rewrite, and
 * appended the message again at every step.
 */
import { AIMessage, HumanMessage, type BaseMessage } from "@langchain/core/messages";
import type { BaseCheckpointSaver } from "@langchain/langgraph-checkpoint";
import { END, MessagesAnnotation, START, StateGraph } from "@langchain/langgraph";
import { describe, expect, it } from "vitest";
import { TetherSaver } from "../src/index.js";
import { ScrubbingTether } from "./support/scrubbing-tether.js";

function threeSteps(saver: BaseCheckpointSaver) {
  const step = (name: string) => async (s: typeof MessagesAnnotation.State) => ({ messages: [new AIMessage({ content: `${name} ${s.messages.length}`, id: `${name}${s.messages.length}` })] });
  return new StateGraph(MessagesAnnotation)
    .addNode("a", step("a"))
    .addNode("b", step("b"))
    .addNode("c", step("c"))
    .addEdge(START, "a")
    .addEdge("a", "b")
    .addEdge("b", "c")
    .addEdge("c", END)
    .compile({ checkpointer: saver });
}

describe("a message holding a secret", () => {
  for (const durability of ["sync", "async"] as const) {
    it(`is in the log once, scrubbed, however many steps follow it (${durability})`, async () => {
      const tether = new ScrubbingTether();
      const saver = new TetherSaver({ client: tether, threadPrefix: "sc-" });
      const config = { configurable: { thread_id: "secret" }, durability };
      await threeSteps(saver).invoke({ messages: [new HumanMessage({ content: `my token is ghp_${"a".repeat(36)}`, id: "h1" })] }, config);
      await threeSteps(saver).invoke({ messages: [new HumanMessage({ content: "and now?", id: "h2" })] }, config);
      const users = tether.sessionsById.get("sc-secret")!.events.filter((e) => e.type === "user_message").map((e) => e.json.content);
      expect(users).toEqual(["my token is [REDACTED:github-token]", "and now?"]);
      // nor is the secret in any other event (a record's reference to it, kept against the scrubbed text, would hold it)
      const holding = tether.sessionsById.get("sc-secret")!.events.filter((e) => JSON.stringify(e.json).includes("[REDACTED:"));
      expect(holding.map((e) => e.type)).toEqual(["user_message"]);
      // a new process reads the thread as Tether keeps it: the secret scrubbed, every message once
      const state = await threeSteps(new TetherSaver({ client: tether, threadPrefix: "sc-" })).getState(config);
      expect((state.values.messages as BaseMessage[]).map((m) => `${m.id}:${String(m.content)}`)).toEqual([
        "h1:my token is [REDACTED:github-token]", "a1:a 1", "b2:b 2", "c3:c 3", "h2:and now?", "a5:a 5", "b6:b 6", "c7:c 7",
      ]);
    });
  }
});
