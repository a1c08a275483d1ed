/**
 * A secret in a message, on the real stack: the session-service scrubs it before anything is stored, and the saver that
 * wrote it goes on from the message as the graph holds it — the message is in the log once, scrubbed, however many
 * steps follow — while a new process reads the thread back scrubbed (the unit test, scrubbed-secret.test.ts, does the
 * same against the in-memory log).
 */
import { AIMessage, HumanMessage, type BaseMessage } from "@langchain/core/messages";
import { END, MessagesAnnotation, START, StateGraph } from "@langchain/langgraph";
import type { BaseCheckpointSaver } from "@langchain/langgraph-checkpoint";
import { expect, it } from "vitest";
import { TetherSaver } from "../src/index.js";
import { stackClient } from "./it-client.js";

function twoSteps(saver: BaseCheckpointSaver) {
  const step = (name: string) => async (s: typeof MessagesAnnotation.State) => ({ messages: [new AIMessage({ content: `${name} ${s.messages.length}`, id: `${name}${s.messages.length}` })] });
  return new StateGraph(MessagesAnnotation)
    .addNode("a", step("a"))
    .addNode("b", step("b"))
    .addEdge(START, "a")
    .addEdge("a", "b")
    .addEdge("b", END)
    .compile({ checkpointer: saver });
}

it("a message holding a secret is in the log once, scrubbed, and read back scrubbed by a new process", async () => {
  const client = stackClient("dev-acme-agent");
  const thread = `secret-${Math.random().toString(16).slice(2, 10)}`;
  const config = { configurable: { thread_id: thread }, durability: "sync" as const };
  const token = `ghp_${"Zx9".repeat(12)}`;
  await twoSteps(new TetherSaver({ client, threadPrefix: "lg-sc-" })).invoke({ messages: [new HumanMessage({ content: `my token is ${token}`, id: "h1" })] }, config);
  const saver = new TetherSaver({ client, threadPrefix: "lg-sc-" });
  await twoSteps(saver).invoke({ messages: [new HumanMessage({ content: "and now?", id: "h2" })] }, config);

  const events = (await client.allEvents(`lg-sc-${thread}`))!;
  expect(events.filter((e) => e.type === "user_message").map((e) => e.json.content)).toEqual(["my token is [REDACTED:github-token]", "and now?"]);
  expect(events.filter((e) => JSON.stringify(e.json).includes("[REDACTED:")).map((e) => e.type)).toEqual(["user_message"]);
  expect(JSON.stringify(events.map((e) => e.json))).not.toContain(token);
  const state = await twoSteps(new TetherSaver({ client, threadPrefix: "lg-sc-" })).getState(config);
  expect((state.values.messages as BaseMessage[]).map((m) => `${m.id}:${String(m.content)}`)).toEqual([
    "h1:my token is [REDACTED:github-token]", "a1:a 1", "b2:b 2", "h2:and now?", "a4:a 4", "b5:b 5",
  ]);
});
