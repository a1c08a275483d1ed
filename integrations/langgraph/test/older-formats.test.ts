/**
 * Threads TetherSaver wrote in older formats read as they did: its state, its history, its interrupted step resumed —
 * format 1 (checkpoint records keyed by channel and node names: `values`, `stored`, the checkpoint's `channel_versions`
 * and `versions_seen`), recorded in fixtures/format-1-thread.json, and format 2 (those as `[name, value]` pairs, names
 * not escaped), in fixtures/format-2-thread.json. The records written after them are of today's format, and the
 * thread, of both formats, reads as one.
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

/** A Tether holding the recorded session `f<format>-old`, its events as the saver of that format appended them. */
async function recorded(format: number): Promise<FakeTether> {
  const file = new URL(`./fixtures/format-${format}-thread.json`, import.meta.url);
  const events = JSON.parse(readFileSync(file, "utf8")) as { type: string; fields: Record<string, unknown> }[];
  const tether = new FakeTether();
  const started = events[0]!.fields as { objective: string; toolMode: "WRITE"; harnessTools: never };
  const sessionId = `f${format}-old`;
  await tether.createSession({ sessionId, objective: started.objective, toolMode: started.toolMode, harnessTools: started.harnessTools });
  events.slice(1).forEach((e) => tether.addAsService(sessionId, e.type, e.fields));
  return tether;
}

/** The `f` of each record of `kind` in the session. */
function formats(tether: FakeTether, sessionId: string, kind: string): (number | undefined)[] {
  return tether.sessionsById.get(sessionId)!.events.filter((e) => e.json.kind === kind).map((e) => JSON.parse(String(e.json.content)).f as number | undefined);
}

const config = { configurable: { thread_id: "old" } };
const texts = (messages: BaseMessage[]) => messages.map((m) => `${m.id}:${String(m.content)}`);

for (const format of [1, 2]) {
  const sessionId = `f${format}-old`;
  const saver = (tether: FakeTether) => new TetherSaver({ client: tether, threadPrefix: `f${format}-` });
  const old = format === 1 ? undefined : format;

  describe(`a thread of format ${format}`, () => {
    it("reads as it was written", async () => {
      const tether = await recorded(format);
      expect(formats(tether, sessionId, "checkpoint")).toEqual([old, old, old]);

      const state = await graph(saver(tether)).getState(config);
      expect({ ...state.values, messages: texts(state.values.messages as BaseMessage[]) }).toEqual({
        messages: ["h1:hello", "a1:answer 1"],
        note: "note 1",
        settings: { region: "eu", tags: ["x", "t1"] },
        count: 1,
      });
      expect(state.next).toEqual(["ask"]);
      expect(state.tasks.flatMap((t) => t.interrupts.map((i) => i.value))).toEqual(["go on?"]);
      const history = [];
      for await (const snapshot of graph(saver(tether)).getStateHistory(config)) {
        history.push([snapshot.metadata?.step, snapshot.values.count]);
      }
      expect(history).toEqual([[1, 1], [0, undefined], [-1, undefined]]);
    });

    it(`goes on in format ${FORMAT}, the thread read as one`, async () => {
      const tether = await recorded(format);
      const writesBefore = formats(tether, sessionId, "writes").length;
      const done = await graph(saver(tether)).invoke(new Command({ resume: "yes" }), config);
      expect([done.note, done.count]).toEqual(["confirmed: yes", 1]);
      expect(formats(tether, sessionId, "checkpoint")).toEqual([old, old, old, FORMAT]);
      const writes = formats(tether, sessionId, "writes");
      expect(writes.slice(0, writesBefore)).toEqual(Array(writesBefore).fill(undefined));
      expect(writes.slice(writesBefore).length).toBeGreaterThan(0);
      expect(new Set(writes.slice(writesBefore))).toEqual(new Set([FORMAT]));

      // a new process reads both: the new checkpoint locates its unchanged values in the old records
      const next = await graph(saver(tether)).invoke({ messages: [{ role: "user", content: "more", id: "h2" }] }, config);
      expect([next.note, next.count, texts(next.messages)]).toEqual(["note 2", 2, ["h1:hello", "a1:answer 1", "h2:more", "a3:answer 3"]]);
      const state = await graph(saver(tether)).getState(config);
      expect([state.values.note, state.values.settings, state.next]).toEqual(["note 2", { region: "eu", tags: ["x", "t2"] }, ["ask"]]);
    });
  });
}
