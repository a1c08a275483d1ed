/**
 * A thread TetherSaver wrote before format 2 (its checkpoint records keyed by channel and node names: `values`,
 * `stored`, the checkpoint's `channel_versions` and `versions_seen`), as recorded in fixtures/format-1-thread.json,
 * reads as it did: its state, its history, its interrupted step resumed. The checkpoints written after it are of
 * format 2, and the thread, of both formats, reads as one.
 */
import { readFileSync } from "node:fs";
import { AIMessage, type BaseMessage } from "@langchain/core/messages";
import { Annotation, Command, END, MessagesAnnotation, START, StateGraph, interrupt } from "@langchain/langgraph";
import type { BaseCheckpointSaver } from "@langchain/langgraph-checkpoint";
import { describe, expect, it } from "vitest";
import { TetherSaver } from "../src/index.js";
import { FORMAT } from "../src/records.js";
import { FakeTether } from "../../../clients/typescript/test/fake-tether.js";

const State = Annotation.Root({
  ...MessagesAnnotation.spec,
  note: Annotation<string>,
  settings: Annotation<{ readonly region: string; readonly tags: string[] }>,
  count: Annotation<number>,
});

/** The graph that wrote the recorded thread (invoked once with the message "hello": interrupted in `ask`). */
function graph(saver: BaseCheckpointSaver) {
  return new StateGraph(State)
    .addNode("answer", async (s: typeof State.State) => ({
      messages: [new AIMessage({ content: `answer ${s.messages.length}`, id: `a${s.messages.length}` })],
      note: `note ${(s.count ?? 0) + 1}`,
      settings: { region: "eu", tags: ["x", `t${(s.count ?? 0) + 1}`] },
      count: (s.count ?? 0) + 1,
    }))
    .addNode("ask", async () => ({ note: `confirmed: ${String(interrupt("go on?"))}` }))
    .addEdge(START, "answer")
    .addEdge("answer", "ask")
    .addEdge("ask", END)
    .compile({ checkpointer: saver });
}

/** A Tether holding the recorded session `f1-old`, its events as the format-1 saver appended them. */
async function recorded(): Promise<FakeTether> {
  const events = JSON.parse(readFileSync(new URL("./fixtures/format-1-thread.json", import.meta.url), "utf8")) as { type: string; fields: Record<string, unknown> }[];
  const tether = new FakeTether();
  const started = events[0]!.fields as { objective: string; toolMode: "WRITE"; harnessTools: never };
  await tether.createSession({ sessionId: "f1-old", objective: started.objective, toolMode: started.toolMode, harnessTools: started.harnessTools });
  events.slice(1).forEach((e) => tether.addAsService("f1-old", e.type, e.fields));
  return tether;
}

const config = { configurable: { thread_id: "old" } };
const texts = (messages: BaseMessage[]) => messages.map((m) => `${m.id}:${String(m.content)}`);

describe("a thread of format 1", () => {
  it("reads as it was written", async () => {
    const tether = await recorded();
    const checkpoints = tether.sessionsById.get("f1-old")!.events.filter((e) => e.json.kind === "checkpoint");
    expect(checkpoints.map((e) => JSON.parse(String(e.json.content)).f)).toEqual([undefined, undefined, undefined]);

    const state = await graph(new TetherSaver({ client: tether, threadPrefix: "f1-" })).getState(config);
    expect({ ...state.values, messages: texts(state.values.messages as BaseMessage[]) }).toEqual({
      messages: ["h1:hello", "a1:answer 1"],
      note: "note 1",
      settings: { region: "eu", tags: ["x", "t1"] },
      count: 1,
    });
    expect(state.next).toEqual(["ask"]);
    expect(state.tasks.flatMap((t) => t.interrupts.map((i) => i.value))).toEqual(["go on?"]);
    const history = [];
    for await (const snapshot of graph(new TetherSaver({ client: tether, threadPrefix: "f1-" })).getStateHistory(config)) {
      history.push([snapshot.metadata?.step, snapshot.values.count]);
    }
    expect(history).toEqual([[1, 1], [0, undefined], [-1, undefined]]);
  });

  it("goes on in format 2, the thread read as one", async () => {
    const tether = await recorded();
    const done = await graph(new TetherSaver({ client: tether, threadPrefix: "f1-" })).invoke(new Command({ resume: "yes" }), config);
    expect([done.note, done.count]).toEqual(["confirmed: yes", 1]);
    const formats = tether.sessionsById.get("f1-old")!.events.filter((e) => e.json.kind === "checkpoint").map((e) => JSON.parse(String(e.json.content)).f);
    expect(formats).toEqual([undefined, undefined, undefined, FORMAT]);

    // a new process reads both: the format-2 checkpoint locates its unchanged values in the format-1 records
    const next = await graph(new TetherSaver({ client: tether, threadPrefix: "f1-" })).invoke({ messages: [{ role: "user", content: "more", id: "h2" }] }, config);
    expect([next.note, next.count, texts(next.messages)]).toEqual(["note 2", 2, ["h1:hello", "a1:answer 1", "h2:more", "a3:answer 3"]]);
    const state = await graph(new TetherSaver({ client: tether, threadPrefix: "f1-" })).getState(config);
    expect([state.values.note, state.values.settings, state.next]).toEqual(["note 2", { region: "eu", tags: ["x", "t2"] }, ["ask"]]);
  });
});
