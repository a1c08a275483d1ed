/**
 * Nodes that rewrite the message list — a window that drops the oldest messages, a summarizer that replaces them with
 * a summary — recorded as Tether's compaction, with the originals kept, while LangGraph reads back exactly what it
 * wrote (the same graph on MemorySaver is the twin).
 */
import { AIMessage, HumanMessage, RemoveMessage, SystemMessage, type BaseMessage } from "@langchain/core/messages";
import { MemorySaver, type BaseCheckpointSaver } from "@langchain/langgraph-checkpoint";
import { END, MessagesAnnotation, REMOVE_ALL_MESSAGES, START, StateGraph } from "@langchain/langgraph";
import { describe, expect, it } from "vitest";
import { TetherSaver } from "../src/index.js";
import { checkpointRecordOf, type MessagesValue } from "../src/records.js";
import { FakeTether } from "../../../clients/typescript/test/fake-tether.js";

type State = typeof MessagesAnnotation.State;

/** A chat turn that answers, then `shrink`s the list when it is longer than four messages. */
function graph(saver: BaseCheckpointSaver, shrink: (messages: BaseMessage[]) => BaseMessage[]) {
  let turn = 0;
  return new StateGraph(MessagesAnnotation)
    .addNode("answer", async (state: State) => ({ messages: [new AIMessage({ content: `answer ${++turn} to: ${String(state.messages.at(-1)!.content)}`, id: `ai-${turn}` })] }))
    .addNode("shrink", async (state: State) => ({ messages: state.messages.length > 4 ? shrink(state.messages) : [] }))
    .addEdge(START, "answer")
    .addEdge("answer", "shrink")
    .addEdge("shrink", END)
    .compile({ checkpointer: saver });
}

async function chat(saver: BaseCheckpointSaver, shrink: (messages: BaseMessage[]) => BaseMessage[], threadId: string) {
  const g = graph(saver, shrink);
  const config = { configurable: { thread_id: threadId } };
  for (let i = 1; i <= 3; i++) {
    await g.invoke({ messages: [new HumanMessage({ content: `question ${i}`, id: `q-${i}` })] }, config);
  }
  return (await g.getState(config)).values.messages as BaseMessage[];
}

const window = (messages: BaseMessage[]) => messages.slice(0, -2).map((m) => new RemoveMessage({ id: m.id! }));
const summarize = (messages: BaseMessage[]) => [
  new RemoveMessage({ id: REMOVE_ALL_MESSAGES }),
  new SystemMessage({ content: `summary of ${messages.length - 2} messages`, id: `summary-${messages.length}` }),
  ...messages.slice(-2),
];

describe("a node that rewrites the messages", () => {
  it("dropping the oldest is a compaction through the last one dropped; LangGraph reads back what it wrote", async () => {
    const tether = new FakeTether();
    const onTether = await chat(new TetherSaver({ client: tether, threadPrefix: "rw-" }), window, "window");
    const onMemory = await chat(new MemorySaver(), window, "window");
    expect(onTether.map((m) => m.toDict())).toEqual(onMemory.map((m) => m.toDict()));
    expect(onTether.map((m) => m.content)).toEqual(["question 3", "answer 3 to: question 3"]);

    const log = tether.sessionsById.get("rw-window")!.events;
    const compactions = log.filter((e) => e.type === "context_compacted");
    expect(compactions).toHaveLength(1); // the list grew past four once: after the third question's answer
    const compaction = compactions[0]!;
    const seqOf = (text: string) => log.find((e) => e.json.content === text)!.seq;
    expect(compaction.json.throughSeq).toBe(seqOf("answer 2 to: question 2"));
    expect(compaction.json.summarySourceSeqs).toEqual(["question 1", "answer 1 to: question 1", "question 2", "answer 2 to: question 2"].map(seqOf));
    expect(compaction.json.summary).toBe("4 earlier messages were removed by the graph");
    // the originals stay in the log, each once
    for (const text of ["question 1", "answer 1 to: question 1", "question 3"]) {
      expect(log.filter((e) => e.json.content === text)).toHaveLength(1);
    }
  });

  it("replacing them with a summary is a compaction whose summary is the summary message's text", async () => {
    const tether = new FakeTether();
    const onTether = await chat(new TetherSaver({ client: tether, threadPrefix: "rw-" }), summarize, "summary");
    const onMemory = await chat(new MemorySaver(), summarize, "summary");
    expect(onTether.map((m) => m.toDict())).toEqual(onMemory.map((m) => m.toDict()));
    expect(onTether.map((m) => m.getType())).toEqual(["system", "human", "ai"]);

    const log = tether.sessionsById.get("rw-summary")!.events;
    const compaction = log.find((e) => e.type === "context_compacted")!;
    expect(compaction.json.summary).toBe("summary of 4 messages");
    // in the list, the summary message is the compaction (besides, it is whole in the shrink node's pending write)
    const lists = log
      .filter((e) => e.type === "framework_state" && e.json.kind === "checkpoint")
      .map((e) => checkpointRecordOf(JSON.parse(String(e.json.content))).stored.messages as MessagesValue | undefined);
    const shrunk = lists.find((list) => list !== undefined && list.base === undefined && list.add.length === 3);
    expect(shrunk!.add[0]!.s).toBe(compaction.seq);
    expect(log.filter((e) => JSON.stringify(e.json).includes("summary of 4 messages")).map((e) => e.type)).toEqual(["framework_state", "context_compacted"]);

    // a new saver (a new process) reads the same list back from the log alone
    const fresh = graph(new TetherSaver({ client: tether, threadPrefix: "rw-" }), summarize);
    const state = await fresh.getState({ configurable: { thread_id: "summary" } });
    expect((state.values.messages as BaseMessage[]).map((m) => m.toDict())).toEqual(onTether.map((m) => m.toDict()));
  });

  it("an edit in the middle has no compaction; LangGraph still reads back what it wrote", async () => {
    const tether = new FakeTether();
    const edit = (messages: BaseMessage[]) => [new HumanMessage({ content: "question 2, edited", id: messages[2]!.id! })];
    const onTether = await chat(new TetherSaver({ client: tether, threadPrefix: "rw-" }), edit, "edit");
    const onMemory = await chat(new MemorySaver(), edit, "edit");
    expect(onTether.map((m) => m.toDict())).toEqual(onMemory.map((m) => m.toDict()));
    expect(tether.sessionsById.get("rw-edit")!.events.filter((e) => e.type === "context_compacted")).toHaveLength(0);
  });
});
