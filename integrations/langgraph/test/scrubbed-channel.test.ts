/**
 * A secret in a channel other than a message list (a state field, a config object) is in the log scrubbed, like a
 * message's; the graph, in the process that wrote it, reads it back as it wrote it — in its next invoke, and from the
 * writes a resumed step keeps — as it does with LangGraph's own savers. A new process reads what Tether holds. The saver
 * used to read the checkpoint it had written back from the log, so the node after the one that wrote the secret was
 * given the redaction marker.
 */
import { Annotation, Command, END, INTERRUPT, START, StateGraph, interrupt } from "@langchain/langgraph";
import type { BaseCheckpointSaver } from "@langchain/langgraph-checkpoint";
import { describe, expect, it } from "vitest";
import { TetherSaver } from "../src/index.js";
import { ScrubbingTether } from "./support/scrubbing-tether.js";

const SECRET = `ghp_${"s".repeat(36)}`;
const SCRUBBED = "[REDACTED:github-token]";

const State = Annotation.Root({
  apiKey: Annotation<string>,
  config: Annotation<{ readonly endpoint: string; readonly token: string }>,
  uses: Annotation<number>,
});

/** `setup` writes the secret once; `use` reads it at every invoke (into `seen`, not into the state: no other copy of it). */
function usesASecret(saver: BaseCheckpointSaver, seen: string[]) {
  return new StateGraph(State)
    .addNode("setup", async (s: typeof State.State) => (s.apiKey === undefined ? { apiKey: SECRET, config: { endpoint: "https://api.example", token: SECRET } } : {}))
    .addNode("use", async (s: typeof State.State) => {
      seen.push(`${s.apiKey} ${s.config.token}`);
      return { uses: (s.uses ?? 0) + 1 };
    })
    .addEdge(START, "setup")
    .addEdge("setup", "use")
    .addEdge("use", END)
    .compile({ checkpointer: saver });
}

/** `grab` writes the secret while `ask`, in the same step, interrupts: on resume, the step's writes are grab's as kept. */
function interruptedBesideTheSecret(saver: BaseCheckpointSaver, seen: string[]) {
  return new StateGraph(State)
    .addNode("grab", async () => ({ apiKey: SECRET }))
    .addNode("ask", async () => {
      interrupt("go on?");
      return {};
    })
    .addNode("use", async (s: typeof State.State) => {
      seen.push(s.apiKey);
      return { uses: 1 };
    })
    .addEdge(START, "grab")
    .addEdge(START, "ask")
    .addEdge(["grab", "ask"], "use")
    .addEdge("use", END)
    .compile({ checkpointer: saver });
}

/** Everything Tether holds of a session: its events and the content offloaded from them. */
function stored(tether: ScrubbingTether, sessionId: string): string {
  return [...tether.sessionsById.get(sessionId)!.events.map((e) => JSON.stringify(e.json)), ...tether.blobs.values()].join("\n");
}

describe("a secret in a channel that holds no messages", () => {
  for (const durability of ["sync", "async"] as const) {
    for (const offloadAbove of [Number.MAX_SAFE_INTEGER, 100]) {
      const records = offloadAbove === 100 ? "records offloaded" : "records inline";
      it(`reads back as written in the process that wrote it, scrubbed in a new one (${durability}, ${records})`, async () => {
        const tether = new ScrubbingTether(offloadAbove);
        const saver = new TetherSaver({ client: tether, threadPrefix: "sc-" });
        const config = { configurable: { thread_id: "key" }, durability };
        const seen: string[] = [];
        await usesASecret(saver, seen).invoke({}, config);
        await usesASecret(saver, seen).invoke({}, config);
        await usesASecret(saver, seen).invoke({}, config);
        expect(seen).toEqual([`${SECRET} ${SECRET}`, `${SECRET} ${SECRET}`, `${SECRET} ${SECRET}`]);
        const state = await usesASecret(saver, []).getState(config);
        expect([state.values.apiKey, state.values.config.token, state.values.uses]).toEqual([SECRET, SECRET, 3]);

        // scrubbed, and only where the saver stored it before it kept what it wrote: both values in the node's write
        // and in the checkpoint after it, no further copy
        expect(stored(tether, "sc-key")).not.toContain("ghp_");
        expect(stored(tether, "sc-key").split(SCRUBBED).length - 1).toBe(4);

        // a new process reads the thread as Tether keeps it
        const again: string[] = [];
        const other = new TetherSaver({ client: tether, threadPrefix: "sc-" });
        const fresh = await usesASecret(other, []).getState(config);
        expect([fresh.values.apiKey, fresh.values.config.token, fresh.values.uses]).toEqual([SCRUBBED, SCRUBBED, 3]);
        await usesASecret(other, again).invoke({}, config);
        expect(again).toEqual([`${SCRUBBED} ${SCRUBBED}`]);
      });

      it(`is read as written from the writes of an interrupted step (${durability}, ${records})`, async () => {
        const tether = new ScrubbingTether(offloadAbove);
        const saver = new TetherSaver({ client: tether, threadPrefix: "sc-" });
        const config = { configurable: { thread_id: "resume" }, durability };
        const seen: string[] = [];
        const first = await interruptedBesideTheSecret(saver, seen).invoke({}, config);
        expect((first as Record<string, unknown>)[INTERRUPT]).toHaveLength(1);
        await interruptedBesideTheSecret(saver, seen).invoke(new Command({ resume: "yes" }), config);
        expect(seen).toEqual([SECRET]);
        expect(stored(tether, "sc-resume")).not.toContain("ghp_");
      });
    }
  }

  it("is kept as written for the newest checkpoint only: memory bounded by the state, not the thread's history", async () => {
    const tether = new ScrubbingTether();
    const saver = new TetherSaver({ client: tether, threadPrefix: "sc-" });
    const config = { configurable: { thread_id: "rotating" } };
    const tokenOf = (n: number) => `ghp_${String(n).padStart(36, "0")}`;
    const seen: string[] = [];
    const rotating = new StateGraph(State)
      .addNode("rotate", async (s: typeof State.State) => ({ apiKey: tokenOf(s.uses ?? 0), config: { endpoint: "https://api.example", token: tokenOf(s.uses ?? 0) } }))
      .addNode("use", async (s: typeof State.State) => {
        seen.push(s.apiKey);
        return { uses: (s.uses ?? 0) + 1 };
      })
      .addEdge(START, "rotate")
      .addEdge("rotate", "use")
      .addEdge("use", END)
      .compile({ checkpointer: saver });
    for (let i = 0; i < 10; i++) {
      await rotating.invoke({}, config);
    }
    expect(seen).toEqual([...Array(10).keys()].map(tokenOf));
    const history = [];
    for await (const snapshot of rotating.getStateHistory(config)) {
      history.push(snapshot.values.apiKey as string | undefined);
    }
    // the newest checkpoint as written (its apiKey is the one the checkpoint before it stores, so that one reads it so
    // too); the older ones as Tether keeps them: what the saver keeps does not grow with the thread
    expect(history.slice(0, 2)).toEqual([tokenOf(9), tokenOf(9)]);
    expect(history.slice(2).filter((v) => v?.startsWith("ghp_"))).toEqual([]);
    const kept = (saver as unknown as { threads: Map<string, { records: Map<number, unknown> }> }).threads.get("sc-rotating")!.records;
    expect(kept.size).toBeLessThanOrEqual(2);
    expect(stored(tether, "sc-rotating")).not.toContain("ghp_");
  });

  it("is read from the log again once the thread is read by a new saver, however the writing one went on", async () => {
    const tether = new ScrubbingTether();
    const config = { configurable: { thread_id: "restart" } };
    await usesASecret(new TetherSaver({ client: tether, threadPrefix: "sc-" }), []).invoke({}, config);
    const seen: string[] = [];
    // a restart (the first saver is gone): the log is the truth, the secret in it scrubbed, the rest of the state whole
    await usesASecret(new TetherSaver({ client: tether, threadPrefix: "sc-" }), seen).invoke({}, config);
    expect(seen).toEqual([`${SCRUBBED} ${SCRUBBED}`]);
    const state = await usesASecret(new TetherSaver({ client: tether, threadPrefix: "sc-" }), []).getState(config);
    expect(state.values).toEqual({ apiKey: SCRUBBED, config: { endpoint: "https://api.example", token: SCRUBBED }, uses: 2 });
  });
});
