/**
 * A channel or a node named like a secret (`apiKey`, `credentials`, `token`, `authToken`) holding no secret: Tether
 * scrubs the value of a key so named, every string in it when it is an object, so the saver's records, which keyed
 * their channel locations, stored values and LangGraph's channel versions by those names, lost their type tags and
 * versions to the markers, and a new process could not read the thread (LangGraph's loadsTyped threw "Unknown
 * serialization type: [REDACTED:secret-assignment]"). The records of format 2 hold no channel or node name as a key,
 * while the values are stored as before: a secret inside one is still scrubbed, by its name too.
 */
import { AIMessage, HumanMessage, type BaseMessage } from "@langchain/core/messages";
import { Annotation, Command, END, INTERRUPT, MessagesAnnotation, START, StateGraph, interrupt } from "@langchain/langgraph";
import type { BaseCheckpointSaver } from "@langchain/langgraph-checkpoint";
import { describe, expect, it } from "vitest";
import { TetherSaver } from "../src/index.js";
import { PASSWORD_ASSIGNMENT, ScrubbingTether } from "./support/scrubbing-tether.js";

interface Credentials {
  readonly user: string;
  readonly scopes: readonly string[];
  readonly vault: { readonly password: string };
}

const State = Annotation.Root({
  ...MessagesAnnotation.spec,
  apiKey: Annotation<string>,
  credentials: Annotation<Credentials>,
  token: Annotation<number>,
});

/** What the node `authToken` writes at its n-th run: names of secrets, values that are none but for the vault's password. */
function written(n: number) {
  return {
    apiKey: `just a name ${n}`,
    credentials: { user: "ann", scopes: ["read", `scope ${n}`], vault: { password: "hunter2" } },
    token: n,
  };
}

/** `credentials` as Tether keeps it: the password scrubbed by its name, the rest as written. */
function kept(n: number): Credentials {
  return { ...written(n).credentials, vault: { password: PASSWORD_ASSIGNMENT } };
}

function secretNames(saver: BaseCheckpointSaver, seen: string[] = []) {
  return new StateGraph(State)
    .addNode("authToken", async (s: typeof State.State) => {
      seen.push(`${s.apiKey} ${s.credentials?.user} ${s.credentials?.vault.password} ${s.token}`);
      const n = (s.token ?? 0) + 1;
      return { ...written(n), messages: [new AIMessage({ content: `run ${n}`, id: `a${n}` })] };
    })
    .addEdge(START, "authToken")
    .addEdge("authToken", END)
    .compile({ checkpointer: saver });
}

/** `authToken` writes the channels while `ask`, in the same step, interrupts: on resume, its writes are read from the log. */
function interruptedBesideThem(saver: BaseCheckpointSaver, seen: string[]) {
  return new StateGraph(State)
    .addNode("authToken", async () => written(1))
    .addNode("ask", async () => {
      interrupt("go on?");
      return {};
    })
    .addNode("use", async (s: typeof State.State) => {
      seen.push(`${s.apiKey} ${JSON.stringify(s.credentials)} ${s.token}`);
      return { token: s.token + 1 };
    })
    .addEdge(START, "authToken")
    .addEdge(START, "ask")
    .addEdge(["authToken", "ask"], "use")
    .addEdge("use", END)
    .compile({ checkpointer: saver });
}

/** The markers in everything Tether holds of a session. */
function markers(tether: ScrubbingTether, sessionId: string): string[] {
  const all = [...tether.sessionsById.get(sessionId)!.events.map((e) => JSON.stringify(e.json)), ...tether.blobs.values()].join("\n");
  return all.match(/\[REDACTED:[a-z0-9-]+\]/g) ?? [];
}

const texts = (messages: BaseMessage[]) => messages.map((m) => `${m.id}:${String(m.content)}`);

describe("channels and nodes named like secrets", () => {
  for (const offloadAbove of [Number.MAX_SAFE_INTEGER, 100]) {
    const records = offloadAbove === 100 ? "records offloaded" : "records inline";
    it(`are read back by a new process, only the secret inside a value scrubbed (${records})`, async () => {
      const tether = new ScrubbingTether(offloadAbove);
      const saver = new TetherSaver({ client: tether, threadPrefix: "sn-" });
      const config = { configurable: { thread_id: "names" } };
      const seen: string[] = [];
      await secretNames(saver, seen).invoke({ messages: [new HumanMessage({ content: "first", id: "h1" })] }, config);
      await secretNames(saver, seen).invoke({ messages: [new HumanMessage({ content: "second", id: "h2" })] }, config);
      // the process that wrote them goes on with them as written, the password included
      expect(seen).toEqual(["undefined undefined undefined undefined", "just a name 1 ann hunter2 1"]);
      const own = await secretNames(saver).getState(config);
      expect(own.values.credentials).toEqual(written(2).credentials);

      // Tether scrubbed the password, by its name, in the node's write and in the checkpoint after it, and nothing else
      expect(markers(tether, "sn-names")).toEqual(Array(4).fill(PASSWORD_ASSIGNMENT));

      // a new process (a restart) reads the thread as Tether keeps it
      const other = new TetherSaver({ client: tether, threadPrefix: "sn-" });
      const state = await secretNames(other).getState(config);
      expect({ ...state.values, messages: texts(state.values.messages as BaseMessage[]) }).toEqual({
        ...written(2),
        credentials: kept(2),
        messages: ["h1:first", "a1:run 1", "h2:second", "a2:run 2"],
      });
      const history = [];
      for await (const snapshot of secretNames(other).getStateHistory(config)) {
        history.push(snapshot.values.token as number | undefined);
      }
      expect(history).toEqual([2, 1, 1, 1, undefined, undefined]);

      const again: string[] = [];
      const after = await secretNames(other, again).invoke({ messages: [new HumanMessage({ content: "third", id: "h3" })] }, config);
      expect(again).toEqual([`just a name 2 ann ${PASSWORD_ASSIGNMENT} 2`]);
      expect([after.apiKey, after.token, texts(after.messages).slice(-2)]).toEqual(["just a name 3", 3, ["h3:third", "a3:run 3"]]);
    });
  }

  it("are read from the writes of an interrupted step by a new process", async () => {
    const tether = new ScrubbingTether();
    const config = { configurable: { thread_id: "resume" } };
    const first = await interruptedBesideThem(new TetherSaver({ client: tether, threadPrefix: "sn-" }), []).invoke({}, config);
    expect((first as Record<string, unknown>)[INTERRUPT]).toHaveLength(1);
    const seen: string[] = [];
    const done = await interruptedBesideThem(new TetherSaver({ client: tether, threadPrefix: "sn-" }), seen).invoke(new Command({ resume: "yes" }), config);
    expect(seen).toEqual([`just a name 1 ${JSON.stringify(kept(1))} 1`]);
    expect(done.token).toBe(2);
  });
});
