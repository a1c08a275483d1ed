/**
 * A new process (a new TetherSaver) reads a thread's records in log order, even when Tether offloaded some of
 * them (content over 64 KiB; over `offloadAbove` characters in the in-memory log): the pending writes of a checkpoint
 * are LangGraph's — the first write per (task, index), the last for special channels.
 */
import { MemorySaver, emptyCheckpoint, uuid6, type BaseCheckpointSaver } from "@langchain/langgraph-checkpoint";
import { describe, expect, it } from "vitest";
import { TetherSaver } from "../src/index.js";
import { FakeTether } from "../../../clients/typescript/test/fake-tether.js";

async function writeTwice(saver: BaseCheckpointSaver) {
  const config = { configurable: { thread_id: "pw", checkpoint_ns: "" } };
  const checkpoint = { ...emptyCheckpoint(), id: uuid6(-1) };
  const saved = await saver.put(config, checkpoint, { source: "input", step: -1, parents: {} }, {});
  // the task ran twice against the checkpoint (a retry, a resume): a large first attempt, then a small one
  await saver.putWrites(saved, [["answer", "A".repeat(5_000)], ["__error__", "E".repeat(5_000)]], "task-1");
  await saver.putWrites(saved, [["answer", "second"], ["__error__", "second error"]], "task-1");
  return saved;
}

const summary = (writes: [string, string, unknown][]) => writes.map(([task, channel, value]) => [task, channel, String(value).slice(0, 12)]);

describe("offloaded writes records", () => {
  it("the pending writes a new process reads are the ones MemorySaver keeps", async () => {
    const memory = new MemorySaver();
    const onMemory = (await memory.getTuple(await writeTwice(memory)))!.pendingWrites!;
    expect(summary(onMemory)).toEqual([["task-1", "__error__", "second error"], ["task-1", "answer", "A".repeat(12)]]);

    const tether = new FakeTether(2_000);
    const saver = new TetherSaver({ client: tether, threadPrefix: "rv-" });
    const config = await writeTwice(saver);
    expect(summary((await saver.getTuple(config))!.pendingWrites!)).toEqual(summary(onMemory));
    const fresh = new TetherSaver({ client: tether, threadPrefix: "rv-" });
    expect(summary((await fresh.getTuple(config))!.pendingWrites!)).toEqual(summary(onMemory));
  });
});
