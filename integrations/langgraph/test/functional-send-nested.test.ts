/**
 * LangGraph's other ways of stopping mid-run, each interrupted in one process and resumed by a new one (a new
 * TetherSaver on the same log), compared with MemorySaver: the functional API (an `entrypoint` whose `task`s' results
 * are pending writes, the asking task run again on resume, the finished ones not), a map-reduce of `Send`s one of which
 * interrupts, and three interrupts at once — two parallel nodes and a node of a subgraph of a subgraph — resumed
 * together by a map of interrupt ids.
 */
import { Annotation, Command, END, START, Send, StateGraph, entrypoint, interrupt, task } from "@langchain/langgraph";
import { MemorySaver, type BaseCheckpointSaver } from "@langchain/langgraph-checkpoint";
import { describe, expect, it } from "vitest";
import { TetherSaver } from "../src/index.js";
import { ScrubbingTether } from "./support/scrubbing-tether.js";

type Interrupted = { __interrupt__?: { id: string; value: unknown }[] };

function functional(saver: BaseCheckpointSaver, calls: string[]) {
  const double = task("double", async (n: number) => (calls.push(`double ${n}`), n * 2));
  const ask = task("ask", async (n: number) => (calls.push(`ask ${n}`), String(interrupt(`ok with ${n}?`))));
  return entrypoint({ name: "flow", checkpointer: saver }, async (input: { n: number }) => {
    const b = await double(await double(input.n));
    return { b, answer: await ask(b) };
  });
}

const Work = Annotation.Root({
  items: Annotation<string[]>,
  results: Annotation<string[]>({ reducer: (a, b) => a.concat(b), default: () => [] }),
});

function mapReduce(saver: BaseCheckpointSaver, calls: string[]) {
  return new StateGraph(Work)
    .addNode("work", async (s: { item: string }) => {
      calls.push(`work ${s.item}`);
      return { results: [s.item === "b" ? `b:${String(interrupt("approve b?"))}` : s.item.toUpperCase()] };
    })
    .addConditionalEdges(START, (s: typeof Work.State) => s.items.map((item) => new Send("work", { item })), ["work"])
    .addEdge("work", END)
    .compile({ checkpointer: saver });
}

const Log = Annotation.Root({ log: Annotation<string[]>({ reducer: (a, b) => a.concat(b), default: () => [] }) });

function nested(saver: BaseCheckpointSaver) {
  const inner = new StateGraph(Log).addNode("deep", async () => ({ log: [`deep:${String(interrupt("deep?"))}`] })).addEdge(START, "deep").addEdge("deep", END).compile();
  const middle = new StateGraph(Log).addNode("pre", async () => ({ log: ["pre"] })).addNode("inner", inner).addEdge(START, "pre").addEdge("pre", "inner").addEdge("inner", END).compile();
  return new StateGraph(Log)
    .addNode("p1", async () => ({ log: [`p1:${String(interrupt("p1?"))}`] }))
    .addNode("p2", async () => ({ log: [`p2:${String(interrupt("p2?"))}`] }))
    .addNode("middle", middle)
    .addNode("end", async (s: typeof Log.State) => ({ log: [`end ${s.log.length}`] }))
    .addEdge(START, "p1")
    .addEdge(START, "p2")
    .addEdge(START, "middle")
    .addEdge(["p1", "p2", "middle"], "end")
    .addEdge("end", END)
    .compile({ checkpointer: saver });
}

/** What a run shows, interrupt ids (hashes of task ids, new in each run) left out. */
function shown(result: Interrupted & Record<string, unknown>) {
  const { __interrupt__: interrupts, ...rest } = result;
  return { ...rest, asked: (interrupts ?? []).map((i) => i.value) };
}

async function stoppedAndResumed(kind: "functional" | "send" | "nested", first: BaseCheckpointSaver, next: () => BaseCheckpointSaver) {
  const config = { configurable: { thread_id: kind } };
  const calls: string[] = [];
  if (kind === "functional") {
    const stopped = (await functional(first, calls).invoke({ n: 3 }, config)) as Interrupted & Record<string, unknown>;
    const done = await functional(next(), calls).invoke(new Command({ resume: "yes" }), config);
    return { stopped: shown(stopped), done, calls };
  }
  if (kind === "send") {
    const stopped = (await mapReduce(first, calls).invoke({ items: ["a", "b", "c"] }, config)) as Interrupted & Record<string, unknown>;
    const done = await mapReduce(next(), calls).invoke(new Command({ resume: "fine" }), config);
    return { stopped: shown(stopped), done, calls, next: (await mapReduce(next(), []).getState(config)).next };
  }
  const stopped = (await nested(first).invoke({ log: ["start"] }, config)) as Interrupted & Record<string, unknown>;
  const resume = Object.fromEntries(stopped.__interrupt__!.map((i) => [i.id, `yes to ${String(i.value)}`]));
  const done = await nested(next()).invoke(new Command({ resume }), config);
  const history: unknown[] = [];
  for await (const snapshot of nested(next()).getStateHistory(config)) {
    history.push([snapshot.metadata?.step, snapshot.values.log?.length, snapshot.next]);
  }
  return { stopped: { ...shown(stopped), asked: shown(stopped).asked.sort() }, done, history };
}

describe("interrupted and resumed by a new process, as on MemorySaver", () => {
  for (const kind of ["functional", "send", "nested"] as const) {
    it(kind, async () => {
      const memory = new MemorySaver();
      const onMemory = await stoppedAndResumed(kind, memory, () => memory);
      const tether = new ScrubbingTether();
      const saver = () => new TetherSaver({ client: tether, threadPrefix: "fs-" });
      expect(await stoppedAndResumed(kind, saver(), saver)).toEqual(onMemory);
      if (kind === "functional") {
        expect(onMemory.calls, "the finished tasks are not run again").toEqual(["double 3", "double 6", "ask 12", "ask 12"]);
      } else if (kind === "nested") {
        expect(onMemory.stopped.asked).toEqual(["deep?", "p1?", "p2?"]);
      }
    });
  }
});
