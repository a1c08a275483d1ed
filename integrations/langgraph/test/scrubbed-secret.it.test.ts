/**
 * A secret in a message, on the real stack: the session-service scrubs it before anything is stored, and the saver that
 * wrote it goes on from the message as the graph holds it — the message is in the log once, scrubbed, however many
 * steps follow — while a new process reads the thread back scrubbed (the unit test, scrubbed-secret.test.ts, does the
 * same against the in-memory log). And names that look like secrets, holding none — channels and a node
 * (secret-named-channels.test.ts), a node running a subgraph and a join into it (secret-named-nodes.test.ts) — are read
 * back by a new process as the session-service's own scrubbing left them.
 */
import { AIMessage, HumanMessage, type BaseMessage } from "@langchain/core/messages";
import { Annotation, Command, END, MessagesAnnotation, START, StateGraph } from "@langchain/langgraph";
import type { BaseCheckpointSaver } from "@langchain/langgraph-checkpoint";
import { expect, it } from "vitest";
import { TetherSaver } from "../src/index.js";
import { stackClient } from "./it-client.js";
import { twoSteps, vaultGraph } from "./support/graphs.js";

it("a message holding a secret is in the log once, scrubbed, and read back scrubbed by a new process", async () => {
  const client = stackClient("dev-acme-agent");
  const thread = `secret-${Math.random().toString(16).slice(2, 10)}`;
  const config = { configurable: { thread_id: thread }, durability: "sync" as const };
  const token = `ghp_${"Zx9".repeat(12)}`;
  await twoSteps(new TetherSaver({ client, threadPrefix: "lg-sc-" })).invoke({ messages: [new HumanMessage({ content: `my token is ${token}`, id: "h1" })] }, config);
  const saver = new TetherSaver({ client, threadPrefix: "lg-sc-" });
  await twoSteps(saver).invoke({ messages: [new HumanMessage({ content: "and now?", id: "h2" })] }, config);

  const events = (await client.allEvents(`lg-sc-${thread}`))!;
  expect(events.filter((e) => e.type === "user_message").map((e) => e.json.content)).toEqual(["my token is [REDACTED:github-token]", "and now?"]);
  expect(events.filter((e) => JSON.stringify(e.json).includes("[REDACTED:")).map((e) => e.type)).toEqual(["user_message"]);
  expect(JSON.stringify(events.map((e) => e.json))).not.toContain(token);
  const state = await twoSteps(new TetherSaver({ client, threadPrefix: "lg-sc-" })).getState(config);
  expect((state.values.messages as BaseMessage[]).map((m) => `${m.id}:${String(m.content)}`)).toEqual([
    "h1:my token is [REDACTED:github-token]", "a1:a 1", "b2:b 2", "h2:and now?", "a4:a 4", "b5:b 5",
  ]);
});

it("channels and a node named like secrets, holding none, are read back by a new process; a password inside a value is scrubbed", async () => {
  const State = Annotation.Root({
    ...MessagesAnnotation.spec,
    apiKey: Annotation<string>,
    credentials: Annotation<{ user: string; vault: { password: string } }>,
    token: Annotation<number>,
  });
  const graph = (saver: BaseCheckpointSaver) => new StateGraph(State)
    .addNode("authToken", async (s: typeof State.State) => {
      const n = (s.token ?? 0) + 1;
      return { apiKey: `just a name ${n}`, credentials: { user: "ann", vault: { password: "hunter2" } }, token: n,
        messages: [new AIMessage({ content: `run ${n}`, id: `a${n}` })] };
    })
    .addEdge(START, "authToken")
    .addEdge("authToken", END)
    .compile({ checkpointer: saver });
  const client = stackClient("dev-acme-agent");
  const thread = `named-${Math.random().toString(16).slice(2, 10)}`;
  const config = { configurable: { thread_id: thread }, durability: "sync" as const };
  await graph(new TetherSaver({ client, threadPrefix: "lg-sn-" })).invoke({ messages: [new HumanMessage({ content: "go", id: "h1" })] }, config);

  // a new process: the session-service scrubbed by name what was under those names, and only the password in the value
  const fresh = graph(new TetherSaver({ client, threadPrefix: "lg-sn-" }));
  const state = await fresh.getState(config);
  expect(state.values.apiKey).toBe("just a name 1");
  expect(state.values.token).toBe(1);
  expect(state.values.credentials).toEqual({ user: "ann", vault: { password: "[REDACTED:password-assignment]" } });
  const next = await fresh.invoke({ messages: [new HumanMessage({ content: "again", id: "h2" })] }, config);
  expect(next.token).toBe(2);
  expect((next.messages as BaseMessage[]).map((m) => m.id)).toEqual(["h1", "a1", "h2", "a2"]);
  const events = (await client.allEvents(`lg-sn-${thread}`))!;
  expect(JSON.stringify(events.map((e) => e.json))).not.toContain("hunter2");
});

it("a subgraph run by a node named like a secret, joined into from another, is resumed by a new process", async () => {
  const client = stackClient("dev-acme-agent");
  const thread = `vault-${Math.random().toString(16).slice(2, 10)}`;
  const config = { configurable: { thread_id: thread }, durability: "sync" as const };
  await vaultGraph(new TetherSaver({ client, threadPrefix: "lg-sn-" })).invoke({ log: ["start"] }, config);

  const fresh = vaultGraph(new TetherSaver({ client, threadPrefix: "lg-sn-" }));
  const waiting = await fresh.getState(config, { subgraphs: true });
  expect(waiting.next).toEqual(["get_api_key"]);
  expect(waiting.tasks.flatMap((t) => t.interrupts.map((i) => i.value))).toEqual(["which vault?"]);
  const done = await fresh.invoke(new Command({ resume: "the blue vault" }), config);
  expect(done).toEqual({ note: "key from the blue vault", log: ["start", "other", "refreshed", "after: key from the blue vault"] });
  const events = (await client.allEvents(`lg-sn-${thread}`))!;
  expect(JSON.stringify(events.map((e) => e.json))).not.toContain("[REDACTED");
});
