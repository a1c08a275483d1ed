/**
 * A copy of a checkpoint — LangGraph's `graph.updateState(config, undefined, "__copy__")`, the fork that time travel
 * starts from — is put as a child of the copied checkpoint's parent with no new versions: its values are where the
 * copied checkpoint found them, not in its parent. Compared with MemorySaver, in this process and in a new one, also
 * when another branch of the thread numbered the same versions with other values (a node run again by time travel).
 */
import { AIMessage, HumanMessage } from "@langchain/core/messages";
import { MemorySaver, type BaseCheckpointSaver } from "@langchain/langgraph-checkpoint";
import { Annotation, END, MessagesAnnotation, START, StateGraph } from "@langchain/langgraph";
import { describe, expect, it } from "vitest";
import { TetherSaver } from "../src/index.js";
import { FakeTether } from "../../../clients/typescript/test/fake-tether.js";

const State = Annotation.Root({
  ...MessagesAnnotation.spec,
  note: Annotation<string>(),
  runs: Annotation<number>({ reducer: (a, b) => a + b, default: () => 0 }),
});

function graph(saver: BaseCheckpointSaver, drafts: () => number) {
  return new StateGraph(State)
    // a node that answers differently each time it runs (a model): run again by time travel, it writes another note
    .addNode("draft", async () => {
      const n = drafts();
      return { note: `draft ${n}`, runs: 1, messages: [new AIMessage({ content: `draft ${n}`, id: `d${n}` })] };
    })
    .addNode("review", async (s) => ({ note: `${s.note}, reviewed`, runs: 1 }))
    .addEdge(START, "draft")
    .addEdge("draft", "review")
    .addEdge("review", END)
    .compile({ checkpointer: saver });
}

async function copyAfterDraft(saver: () => BaseCheckpointSaver) {
  let n = 0;
  const drafts = () => ++n;
  const config = { configurable: { thread_id: "essay" } };
  await graph(saver(), drafts).invoke({ messages: [new HumanMessage({ content: "write", id: "h1" })] }, config);
  const history = [];
  for await (const s of graph(saver(), drafts).getStateHistory(config)) {
    history.push(s);
  }
  const afterDraft = history.find((s) => s.next.includes("review"))!;
  const beforeDraft = history.find((s) => s.next.includes("draft"))!;
  // time travel: draft runs again from the same checkpoint, its versions numbered as the first branch's
  await graph(saver(), drafts).invoke(null, beforeDraft.config);

  const copy = await graph(saver(), drafts).updateState(afterDraft.config, undefined, "__copy__");
  const copied = await graph(saver(), drafts).getState(copy);
  const resumed = await graph(saver(), drafts).invoke(null, copy);
  const view = (v: typeof State.State) => ({ note: v.note, runs: v.runs, messages: v.messages.map((m) => String(m.content)) });
  return { copied: view(copied.values as typeof State.State), next: copied.next, source: copied.metadata?.source, resumed: view(resumed) };
}

describe("a copy of a checkpoint (updateState __copy__)", () => {
  it("has the copied checkpoint's values and next nodes, as on MemorySaver, in a new process too", async () => {
    const memory = new MemorySaver();
    const onMemory = await copyAfterDraft(() => memory);
    expect(onMemory).toEqual({
      copied: { note: "draft 1", runs: 1, messages: ["write", "draft 1"] },
      next: ["review"],
      source: "fork",
      resumed: { note: "draft 1, reviewed", runs: 2, messages: ["write", "draft 1"] },
    });

    const tether = new FakeTether();
    const one = new TetherSaver({ client: tether, threadPrefix: "cf-" });
    expect(await copyAfterDraft(() => one)).toEqual(onMemory);
    const restarted = new FakeTether();
    let processes = 0;
    expect(await copyAfterDraft(() => new TetherSaver({ client: restarted, threadPrefix: "cf-", workerId: `w${++processes}` }))).toEqual(onMemory);
  });
});
