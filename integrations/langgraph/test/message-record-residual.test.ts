/**
 * A message no typed event holds (a system message, a tool message of a call Tether does not know) is a `message`
 * record; a later reference to it that differs from it — the id LangGraph's reducer gave a message a node wrote
 * without one — keeps the message as referred to. It used to be read back as the record, without that id: a new
 * process read the checkpoint's messages without their ids, and the next update that gave them back (a subgraph's
 * output) added them again instead of replacing them.
 */
import { HumanMessage, SystemMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { MemorySaver, emptyCheckpoint, uuid6, type BaseCheckpointSaver } from "@langchain/langgraph-checkpoint";
import { Annotation, Command, END, MessagesAnnotation, START, Send, StateGraph, interrupt } from "@langchain/langgraph";
import { describe, expect, it } from "vitest";
import { TetherSaver } from "../src/index.js";
import { FakeTether } from "../../../clients/typescript/test/fake-tether.js";

async function writeThenCheckpoint(saver: BaseCheckpointSaver) {
  const config = { configurable: { thread_id: "ids", checkpoint_ns: "" } };
  const first = { ...emptyCheckpoint(), id: uuid6(-1), channel_values: { messages: [new HumanMessage({ content: "hi", id: "h1" })] }, channel_versions: { messages: 1 } };
  const saved = await saver.put(config, first, { source: "input", step: -1, parents: {} }, { messages: 1 });
  // a node's writes: messages without ids (the reducer gives them theirs)
  await saver.putWrites(saved, [["messages", [new SystemMessage("be brief"), new ToolMessage({ content: "w1", tool_call_id: "unknown-call" })]]], "task-1");
  const messages = [
    new HumanMessage({ content: "hi", id: "h1" }),
    new SystemMessage({ content: "be brief", id: "s1" }),
    new ToolMessage({ content: "w1", tool_call_id: "unknown-call", id: "t1" }),
  ];
  const second = { ...first, id: uuid6(-1), channel_values: { messages }, channel_versions: { messages: 2 } };
  return saver.put(saved, second, { source: "loop", step: 0, parents: {} }, { messages: 2 });
}

const ids = (messages: BaseMessage[]) => messages.map((m) => [m.getType(), m.id]);

describe("a reference to a message record", () => {
  it("reads back the message as the checkpoint has it (its id), as MemorySaver does, in a new process too", async () => {
    const memory = new MemorySaver();
    const onMemory = (await memory.getTuple(await writeThenCheckpoint(memory)))!.checkpoint.channel_values.messages as BaseMessage[];
    expect(ids(onMemory)).toEqual([["human", "h1"], ["system", "s1"], ["tool", "t1"]]);

    const tether = new FakeTether();
    const config = await writeThenCheckpoint(new TetherSaver({ client: tether, threadPrefix: "mr-" }));
    const fresh = await new TetherSaver({ client: tether, threadPrefix: "mr-" }).getTuple(config);
    expect(ids(fresh!.checkpoint.channel_values.messages as BaseMessage[])).toEqual(ids(onMemory));
    expect(fresh!.checkpoint.channel_values.messages).toEqual(onMemory);
  });
});

let failing = true;
function graph(saver: BaseCheckpointSaver) {
  const sub = new StateGraph(MessagesAnnotation)
    .addNode("confirm", async () => ({ messages: [new SystemMessage({ content: `confirmed: ${String(interrupt("confirm?"))}`, id: "c" })] }))
    .addEdge(START, "confirm")
    .compile();
  return new StateGraph(Annotation.Root({ ...MessagesAnnotation.spec }))
    .addNode("fanout", async () => ({}))
    .addNode("worker", async (s: { n: number }) => {
      if (s.n === 2 && failing) {
        throw new Error("boom");
      }
      return { messages: [new ToolMessage({ content: `w${s.n}`, tool_call_id: `c${s.n}` })] };
    })
    .addNode("sub", sub)
    .addEdge(START, "fanout")
    .addConditionalEdges("fanout", () => [new Send("worker", { n: 1 }), new Send("worker", { n: 2 }), new Send("worker", { n: 3 })])
    .addEdge("worker", "sub")
    .addEdge("sub", END)
    .compile({ checkpointer: saver });
}

async function failResumeConfirm(saver: () => BaseCheckpointSaver) {
  failing = true;
  const config = { configurable: { thread_id: "sub" }, durability: "exit" as const };
  await expect(graph(saver()).invoke({ messages: [new HumanMessage({ content: "hi", id: "h1" })] }, config)).rejects.toThrow(/boom/);
  failing = false;
  await graph(saver()).invoke(null, config); // the failed task again: the subgraph interrupts
  const done = await graph(saver()).invoke(new Command({ resume: "yes" }), config);
  return (done.messages as BaseMessage[]).map((m) => `${m.getType()}:${String(m.content)}`);
}

describe("a graph whose tasks wrote messages without ids", () => {
  it("gets its messages back once from a subgraph's output after a resume in a new process, as on MemorySaver", async () => {
    const memory = new MemorySaver();
    const onMemory = await failResumeConfirm(() => memory);
    expect(onMemory).toEqual(["human:hi", "tool:w1", "tool:w2", "tool:w3", "system:confirmed: yes"]);
    const tether = new FakeTether();
    expect(await failResumeConfirm(() => new TetherSaver({ client: tether, threadPrefix: "mr-" }))).toEqual(onMemory);
  });
});
