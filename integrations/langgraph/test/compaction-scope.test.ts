/**
 * A compaction (`context_compacted`) takes every event through its `throughSeq` out of Tether's model context. A list
 * that drops its oldest messages is recorded as one only when nothing else of the thread still holds the messages
 * that compaction would take out: not when a second message channel (notes kept beside the conversation) is trimmed
 * while the conversation still has the messages before it, nor when a subgraph trims its own copy of the parent's
 * messages. The saver used to record both, and Tether's context lost the user's question the graph still had.
 */
import { AIMessage, HumanMessage, RemoveMessage, type BaseMessage } from "@langchain/core/messages";
import { Annotation, END, MessagesAnnotation, START, StateGraph, messagesStateReducer } from "@langchain/langgraph";
import { describe, expect, it } from "vitest";
import { TetherSaver } from "../src/index.js";
import { FakeTether } from "../../../clients/typescript/test/fake-tether.js";

const WithNotes = Annotation.Root({
  ...MessagesAnnotation.spec,
  notes: Annotation<BaseMessage[]>({ reducer: messagesStateReducer, default: () => [] }),
});

function compactions(tether: FakeTether, sessionId: string) {
  return tether.sessionsById.get(sessionId)!.events.filter((e) => e.type === "context_compacted");
}

describe("a list that drops its oldest messages", () => {
  it("is no compaction when another channel still has messages the compaction would take out of the context", async () => {
    const tether = new FakeTether();
    const graph = new StateGraph(WithNotes)
      .addNode("note", async () => ({ notes: [new AIMessage({ content: "note 1", id: "n1" }), new AIMessage({ content: "note 2", id: "n2" })] }))
      .addNode("answer", async () => ({ messages: [new AIMessage({ content: "the answer", id: "a1" })] }))
      .addNode("trim", async () => ({ notes: [new RemoveMessage({ id: "n1" })] }))
      .addEdge(START, "note")
      .addEdge("note", "answer")
      .addEdge("answer", "trim")
      .addEdge("trim", END)
      .compile({ checkpointer: new TetherSaver({ client: tether, threadPrefix: "cs-" }) });
    const state = await graph.invoke({ messages: [new HumanMessage({ content: "the question", id: "h1" })] }, { configurable: { thread_id: "notes" } });
    expect((state.messages as BaseMessage[]).map((m) => m.content)).toEqual(["the question", "the answer"]);
    expect(compactions(tether, "cs-notes")).toEqual([]);
  });

  it("is no compaction when a subgraph trims its copy of the parent's messages", async () => {
    const tether = new FakeTether();
    const sub = new StateGraph(MessagesAnnotation)
      .addNode("window", async (s) => ({ messages: s.messages.slice(0, -1).map((m) => new RemoveMessage({ id: m.id! })) }))
      .addNode("reply", async () => ({ messages: [new AIMessage({ content: "from the subgraph", id: "s1" })] }))
      .addEdge(START, "window")
      .addEdge("window", "reply")
      .compile();
    const graph = new StateGraph(MessagesAnnotation)
      .addNode("answer", async () => ({ messages: [new AIMessage({ content: "the answer", id: "a1" }), new HumanMessage({ content: "and?", id: "h2" })] }))
      .addNode("sub", async (s, config) => {
        const out = await sub.invoke({ messages: s.messages }, config);
        return { messages: [(out.messages as BaseMessage[]).at(-1)!] };
      })
      .addEdge(START, "answer")
      .addEdge("answer", "sub")
      .addEdge("sub", END)
      .compile({ checkpointer: new TetherSaver({ client: tether, threadPrefix: "cs-" }) });
    const state = await graph.invoke({ messages: [new HumanMessage({ content: "the question", id: "h1" })] }, { configurable: { thread_id: "sub" } });
    expect((state.messages as BaseMessage[]).map((m) => m.content)).toEqual(["the question", "the answer", "and?", "from the subgraph"]);
    expect(compactions(tether, "cs-sub")).toEqual([]);
  });
});
