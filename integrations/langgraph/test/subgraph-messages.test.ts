/**
 * A subgraph whose state shares its parent's messages (a subgraph added as a node, LangGraph's usual multi-agent
 * shape) is checkpointed in a namespace of its own: its input holds the parent's messages and its output gives them
 * back with its own. Each message is still one typed event of the thread's log — Tether's model context has the
 * conversation once — and LangGraph reads back what it reads back on MemorySaver, in a new process too.
 */
import { AIMessage, HumanMessage, type BaseMessage } from "@langchain/core/messages";
import { MemorySaver, type BaseCheckpointSaver } from "@langchain/langgraph-checkpoint";
import { END, MessagesAnnotation, START, StateGraph } from "@langchain/langgraph";
import { describe, expect, it } from "vitest";
import { TetherSaver } from "../src/index.js";
import { FakeTether } from "../../../clients/typescript/test/fake-tether.js";

function graph(saver: BaseCheckpointSaver) {
  const researcher = new StateGraph(MessagesAnnotation)
    .addNode("research", async (s) => ({ messages: [new AIMessage({ content: `found ${s.messages.length} notes`, id: `found-${s.messages.length}` })] }))
    .addEdge(START, "research")
    .addEdge("research", END)
    .compile();
  return new StateGraph(MessagesAnnotation)
    .addNode("plan", async (s) => ({ messages: [new AIMessage({ content: `plan ${s.messages.length}`, id: `plan-${s.messages.length}` })] }))
    .addNode("researcher", researcher)
    .addEdge(START, "plan")
    .addEdge("plan", "researcher")
    .addEdge("researcher", END)
    .compile({ checkpointer: saver });
}

async function twoTurns(saver: () => BaseCheckpointSaver) {
  const config = { configurable: { thread_id: "team" } };
  await graph(saver()).invoke({ messages: [new HumanMessage({ content: "question one", id: "q1" })] }, config);
  await graph(saver()).invoke({ messages: [new HumanMessage({ content: "question two", id: "q2" })] }, config);
  const g = graph(saver());
  const state = await g.getState(config, { subgraphs: true });
  const history = [];
  for await (const s of g.getStateHistory(config)) {
    history.push({ step: s.metadata?.step, next: s.next, messages: (s.values.messages as BaseMessage[]).map((m) => String(m.content)) });
  }
  return { messages: (state.values.messages as BaseMessage[]).map((m) => `${m.id}:${String(m.content)}`), history };
}

describe("a subgraph sharing its parent's messages", () => {
  it("stores each message once, and reads back what MemorySaver reads back, in a new process too", async () => {
    const memory = new MemorySaver();
    const onMemory = await twoTurns(() => memory);
    expect(onMemory.messages).toEqual(["q1:question one", "plan-1:plan 1", "found-2:found 2 notes", "q2:question two", "plan-4:plan 4", "found-5:found 5 notes"]);

    const tether = new FakeTether();
    let processes = 0;
    expect(await twoTurns(() => new TetherSaver({ client: tether, threadPrefix: "sg-", workerId: `w${++processes}` }))).toEqual(onMemory);
    const typed = tether.sessionsById.get("sg-team")!.events.filter((e) => e.type === "user_message" || e.type === "assistant_message");
    expect(typed.map((e) => e.json.content)).toEqual(["question one", "plan 1", "found 2 notes", "question two", "plan 4", "found 5 notes"]);
  });
});
