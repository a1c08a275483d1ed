/**
 * put() stores the checkpoint it is given: a message object whose content changed in place (same id) is stored as it is
 * now, as MemorySaver stores it (the saver used to keep a message's JSON per object and id, and stored the old content).
 */
import { AIMessage, HumanMessage, type BaseMessage } from "@langchain/core/messages";
import { MemorySaver, emptyCheckpoint, uuid6, type BaseCheckpointSaver, type Checkpoint } from "@langchain/langgraph-checkpoint";
import { END, MessagesAnnotation, START, StateGraph } from "@langchain/langgraph";
import { describe, expect, it } from "vitest";
import { TetherSaver } from "../src/index.js";
import { FakeTether } from "../../../clients/typescript/test/fake-tether.js";

function checkpointWith(messages: BaseMessage[], version: number, parent?: Checkpoint): Checkpoint {
  const base = parent === undefined ? emptyCheckpoint() : { ...parent };
  return { ...base, id: uuid6(-1), channel_values: { messages }, channel_versions: { messages: version } };
}

async function putTwice(saver: BaseCheckpointSaver): Promise<BaseMessage[]> {
  const config = { configurable: { thread_id: "mut", checkpoint_ns: "" } };
  const human = new HumanMessage({ content: "my card is 4111 1111 1111 1111", id: "h1" });
  const first = checkpointWith([human], 1);
  const c1 = await saver.put(config, first, { source: "input", step: -1, parents: {} }, { messages: 1 });
  // a node redacts the message in place and returns it (same id: the reducer replaces it)
  human.content = "my card is [redacted]";
  const second = checkpointWith([human], 2, first);
  await saver.put(c1, second, { source: "loop", step: 0, parents: {} }, { messages: 2 });
  const tuple = await saver.getTuple({ configurable: { thread_id: "mut" } });
  return tuple!.checkpoint.channel_values.messages as BaseMessage[];
}

describe("a message changed in place", () => {
  it("put stores the message's current content, as MemorySaver does", async () => {
    const onMemory = await putTwice(new MemorySaver());
    expect(onMemory.map((m) => m.content)).toEqual(["my card is [redacted]"]);
    const tether = new FakeTether();
    const onTether = await putTwice(new TetherSaver({ client: tether, threadPrefix: "rv-" }));
    expect(onTether.map((m) => m.content)).toEqual(["my card is [redacted]"]);
    // and from the log alone (a new process)
    const fresh = await new TetherSaver({ client: tether, threadPrefix: "rv-" }).getTuple({ configurable: { thread_id: "mut" } });
    expect((fresh!.checkpoint.channel_values.messages as BaseMessage[]).map((m) => m.content)).toEqual(["my card is [redacted]"]);
  });

  it("a graph node that edits a message in place is persisted", async () => {
    const run = async (saver: BaseCheckpointSaver) => {
      const graph = new StateGraph(MessagesAnnotation)
        .addNode("answer", async () => ({ messages: [new AIMessage({ content: "the answer", id: "a1" })] }))
        .addNode("redact", async (state: typeof MessagesAnnotation.State) => {
          const m = state.messages[0]!;
          m.content = "redacted";
          return { messages: [m] };
        })
        .addEdge(START, "answer")
        .addEdge("answer", "redact")
        .addEdge("redact", END)
        .compile({ checkpointer: saver });
      const config = { configurable: { thread_id: "g" } };
      await graph.invoke({ messages: [new HumanMessage({ content: "secret", id: "h1" })] }, config);
      return graph;
    };
    const memory = await run(new MemorySaver());
    const memState = await memory.getState({ configurable: { thread_id: "g" } });
    expect((memState.values.messages as BaseMessage[]).map((m) => m.content)).toEqual(["redacted", "the answer"]);

    const tether = new FakeTether();
    await run(new TetherSaver({ client: tether, threadPrefix: "rv-" }));
    const freshGraph = new StateGraph(MessagesAnnotation).addNode("x", async () => ({})).addEdge(START, "x").addEdge("x", END)
      .compile({ checkpointer: new TetherSaver({ client: tether, threadPrefix: "rv-" }) });
    const state = await freshGraph.getState({ configurable: { thread_id: "g" } });
    expect((state.values.messages as BaseMessage[]).map((m) => m.content)).toEqual(["redacted", "the answer"]);
  });
});

describe("what getTuple returns is the caller's", () => {
  it("changing a message getTuple returned does not change what the next getTuple returns", async () => {
    const read = async (saver: BaseCheckpointSaver) => {
      const config = { configurable: { thread_id: "alias", checkpoint_ns: "" } };
      const first = checkpointWith([new HumanMessage({ content: "original", id: "h1" })], 1);
      await saver.put(config, first, { source: "input", step: -1, parents: {} }, { messages: 1 });
      const a = await saver.getTuple({ configurable: { thread_id: "alias" } });
      (a!.checkpoint.channel_values.messages as BaseMessage[])[0]!.content = "changed by the caller";
      const b = await saver.getTuple({ configurable: { thread_id: "alias" } });
      return (b!.checkpoint.channel_values.messages as BaseMessage[]).map((m) => m.content);
    };
    expect(await read(new MemorySaver())).toEqual(["original"]);
    expect(await read(new TetherSaver({ client: new FakeTether(), threadPrefix: "rv-" }))).toEqual(["original"]);
  });
});
