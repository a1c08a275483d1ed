/**
 * Nodes named like secrets (`get_api_key`, `refresh_token`) whose names LangGraph puts in text followed by a `:`: the
 * namespace of a subgraph the node runs (`get_api_key:<task id>`) and a join channel (`join:other+refresh_token:…`).
 * Tether scrubs a value assigned to a secret's name in any text (`refresh_token:<value>`), so before format 3 the
 * subgraph's task id and the join's target became markers in the saver's records: a new process did not find the
 * interrupted subgraph's checkpoint. Format 3 stores every such name escaped (`get_api_key%3A…`), which Tether leaves
 * alone.
 */
import { Command } from "@langchain/langgraph";
import { MemorySaver, type BaseCheckpointSaver } from "@langchain/langgraph-checkpoint";
import { describe, expect, it } from "vitest";
import { TetherSaver } from "../src/index.js";
import { FORMAT, escapeName, unescapeName } from "../src/records.js";
import { vaultGraph as graph } from "./support/graphs.js";
import { ScrubbingTether } from "./support/scrubbing-tether.js";

async function interruptedThenResumed(first: BaseCheckpointSaver, second: BaseCheckpointSaver) {
  const config = { configurable: { thread_id: "vault" } };
  await graph(first).invoke({ log: ["start"] }, config);
  const waiting = await graph(second).getState(config, { subgraphs: true });
  const asked = waiting.tasks.flatMap((t) => t.interrupts.map((i) => i.value));
  const done = await graph(second).invoke(new Command({ resume: "the blue vault" }), config);
  return { next: waiting.next, asked, done };
}

describe("nodes named like secrets, in namespaces and join channels", () => {
  it("a new process resumes the subgraph they interrupted, as on MemorySaver", async () => {
    const memory = new MemorySaver();
    const onMemory = await interruptedThenResumed(memory, memory);
    expect(onMemory.done).toEqual({ note: "key from the blue vault", log: ["start", "other", "refreshed", "after: key from the blue vault"] });

    const tether = new ScrubbingTether();
    const saver = () => new TetherSaver({ client: tether, threadPrefix: "sn-" });
    expect(await interruptedThenResumed(saver(), saver())).toEqual(onMemory);

    const events = tether.sessionsById.get("sn-vault")!.events;
    const all = events.map((e) => JSON.stringify(e.json)).join("\n");
    expect(all.match(/\[REDACTED:[a-z0-9-]+\]/g) ?? [], "nothing scrubbed: no secret was written").toEqual([]);
    const records = events.filter((e) => e.type === "framework_state").map((e) => JSON.parse(String(e.json.content)) as { f?: number; ns?: string });
    expect(new Set(records.map((r) => r.f))).toEqual(new Set([FORMAT]));
    expect(records.some((r) => r.ns?.startsWith("get_api_key%3A")), "the subgraph's namespace, escaped").toBe(true);
    expect(all).toContain("join%3Aother+refresh_token%3Aget_api_key");
  });

  it("are escaped reversibly, and most names are stored as they are", () => {
    for (const name of ["messages", "get_api_key:1ef4", "a:b=c%d", "%3A", "join:x+y:z", "100%", "%253A", ""]) {
      expect(unescapeName(escapeName(name)), name).toBe(name);
    }
    expect(escapeName("messages")).toBe("messages");
    expect(escapeName("get_api_key:1ef4|inner:2")).toBe("get_api_key%3A1ef4|inner%3A2");
    expect(escapeName("a=%")).toBe("a%3D%25");
  });

  it("a thread id with a secret's name and a `=` in it is listed by a new process as it is", async () => {
    const tether = new ScrubbingTether();
    const threadId = "user 7 / session_token=abc"; // no session id as it is: the session's id is a hash of it
    await graph(new TetherSaver({ client: tether, threadPrefix: "sn-" })).invoke({ log: ["start"] }, { configurable: { thread_id: threadId } });
    const listed = new Set<unknown>();
    for await (const tuple of new TetherSaver({ client: tether, threadPrefix: "sn-" }).list({})) {
      listed.add(tuple.config.configurable?.thread_id);
    }
    expect(listed).toEqual(new Set([threadId]));
  });
});
