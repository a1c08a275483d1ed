/**
 * Corners of the BaseCheckpointSaver contract the conformance suite does not reach, each compared with MemorySaver:
 * a special channel's write (ERROR, INTERRUPT, RESUME: the last one wins) written again after another one; a thread
 * whose id is hashed, first seen through `list()`; a value LangGraph's serializer cannot write (a BigInt: it writes a
 * placeholder text instead, which was stored in its place); options refused when the saver is made, not at a tool's call.
 */
import { HumanMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { ERROR, MemorySaver, RESUME, emptyCheckpoint, uuid6, type BaseCheckpointSaver } from "@langchain/langgraph-checkpoint";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { TetherClient, TetherError } from "@tether/client";
import { TetherSaver, ThreadTakenOverError } from "../src/index.js";
import { FakeTether } from "../../../clients/typescript/test/fake-tether.js";

const META = { source: "input" as const, step: -1, parents: {} };

async function writesAgain(saver: BaseCheckpointSaver, channel: string) {
  const config = { configurable: { thread_id: "sw", checkpoint_ns: "" } };
  const saved = await saver.put(config, { ...emptyCheckpoint(), id: uuid6(-1) }, META, {});
  // resumed three times against the same checkpoint: yes, no, then yes again
  for (const value of ["yes", "no", "yes"]) {
    await saver.putWrites(saved, [[channel, value]], "00000000-0000-0000-0000-000000000000");
  }
  return (await saver.getTuple(saved))!.pendingWrites!;
}

describe("a special channel's write", () => {
  for (const channel of [RESUME, ERROR]) {
    it(`written again after another one is the last one (${channel}), as MemorySaver keeps it`, async () => {
      const onMemory = await writesAgain(new MemorySaver(), channel);
      expect(onMemory.map(([, c, v]) => [c, v])).toEqual([[channel, "yes"]]);
      const tether = new FakeTether();
      expect(await writesAgain(new TetherSaver({ client: tether, threadPrefix: "sw-" }), channel)).toEqual(onMemory);
      // and from the log alone
      const fresh = new TetherSaver({ client: tether, threadPrefix: "sw-" });
      expect((await fresh.getTuple({ configurable: { thread_id: "sw" } }))!.pendingWrites).toEqual(onMemory);
    });
  }

  it("sent again as it was (the same call once more) is still stored once", async () => {
    const tether = new FakeTether();
    const saver = new TetherSaver({ client: tether, threadPrefix: "sw-" });
    const saved = await saver.put({ configurable: { thread_id: "once" } }, { ...emptyCheckpoint(), id: uuid6(-1) }, META, {});
    await saver.putWrites(saved, [[RESUME, "yes"]], "t1");
    const events = tether.sessionsById.get("sw-once")!.events.length;
    await saver.putWrites(saved, [[RESUME, "yes"]], "t1");
    expect(tether.sessionsById.get("sw-once")!.events.length).toBe(events);
  });
});

describe("a thread whose id is hashed", () => {
  it("is named by its own id after list() saw its session first", async () => {
    const tether = new FakeTether();
    const threadId = "user@example.com/chat 1";
    const first = new TetherSaver({ client: tether, threadPrefix: "hx-", workerId: "w1" });
    const saved = await first.put({ configurable: { thread_id: threadId } }, { ...emptyCheckpoint(), id: uuid6(-1) }, META, {});

    const second = new TetherSaver({ client: tether, threadPrefix: "hx-", workerId: "w2" });
    const listed = [];
    for await (const t of second.list({ configurable: {} })) {
      listed.push(t.config.configurable?.thread_id);
    }
    expect(listed).toEqual([threadId]);
    const next = await second.put(saved, { ...emptyCheckpoint(), id: uuid6(-1) }, { ...META, step: 0, source: "loop" }, {});
    const records = tether.sessionsById.get(second.sessionIdOf(threadId))!.events
      .filter((e) => e.type === "framework_state")
      .map((e) => JSON.parse(String(e.json.content)) as { thread?: string });
    expect(records.map((r) => r.thread)).toEqual([threadId, threadId]);

    // the first saver's claim was taken over: its error names the thread as LangGraph knows it
    const late = first.put(next, { ...emptyCheckpoint(), id: uuid6(-1) }, { ...META, step: 1, source: "loop" }, {});
    await expect(late).rejects.toBeInstanceOf(ThreadTakenOverError);
    await expect(late).rejects.toMatchObject({ threadId });
    const third = new TetherSaver({ client: tether, threadPrefix: "hx-", workerId: "w3" });
    for await (const t of third.list({ configurable: {} })) {
      void t;
    }
    await third.put(next, { ...emptyCheckpoint(), id: uuid6(-1) }, { ...META, step: 1, source: "loop" }, {});
    const stale = second.put(next, { ...emptyCheckpoint(), id: uuid6(-1) }, { ...META, step: 2, source: "loop" }, {});
    await expect(stale).rejects.toMatchObject({ threadId });
  });
});

describe("a value the serializer cannot write", () => {
  it("fails the put naming the channel (the metadata, the message), writes nothing, and leaves the thread as it was", async () => {
    const tether = new FakeTether();
    const saver = new TetherSaver({ client: tether, threadPrefix: "bi-" });
    const config = { configurable: { thread_id: "big" } };
    const first = await saver.put(config, { ...emptyCheckpoint(), id: uuid6(-1), channel_values: { n: 1 }, channel_versions: { n: 1 } }, META, { n: 1 });
    const events = tether.sessionsById.get("bi-big")!.events.length;
    const bad = { ...emptyCheckpoint(), id: uuid6(-1), channel_values: { n: 2n }, channel_versions: { n: 2 } };
    await expect(saver.put(first, bad, { ...META, step: 0, source: "loop" }, { n: 2 })).rejects.toThrow(/channel n/);
    await expect(saver.putWrites(first, [["n", 3n]], "t1")).rejects.toThrow(/channel n/);
    expect(tether.sessionsById.get("bi-big")!.events.length).toBe(events);
    await expect(saver.put(first, bad, { ...META, step: 0, source: "loop", big: 1n } as never, {})).rejects.toThrow(/metadata/);
    const message = new HumanMessage({ content: "hi", id: "m1", additional_kwargs: { n: 1n } });
    const withMessage = { ...emptyCheckpoint(), id: uuid6(-1), channel_values: { messages: [message] }, channel_versions: { messages: 1 } };
    await expect(saver.put(first, withMessage, { ...META, step: 0, source: "loop" }, { messages: 1 })).rejects.toThrow(/m1/);
    expect(tether.sessionsById.get("bi-big")!.events.length).toBe(events);
    const good = { ...emptyCheckpoint(), id: uuid6(-1), channel_values: { n: 3 }, channel_versions: { n: 3 } };
    await saver.put(first, good, { ...META, step: 0, source: "loop" }, { n: 3 });
    expect((await saver.getTuple(config))!.checkpoint.channel_values).toEqual({ n: 3 });
  });
});

describe("a checkpoint id Tether cannot key a record by", () => {
  it("is refused before anything is sent, naming it (empty, over 512 characters, a control character)", async () => {
    const tether = new FakeTether();
    const saver = new TetherSaver({ client: tether, threadPrefix: "ck-" });
    const config = { configurable: { thread_id: "ids" } };
    for (const id of ["", "x".repeat(513), "a\nb"]) {
      await expect(saver.put(config, { ...emptyCheckpoint(), id }, META, {}), JSON.stringify(id)).rejects.toThrow(/checkpoint id/);
      await expect(saver.putWrites({ configurable: { thread_id: "ids", checkpoint_id: id } }, [["a", 1]], "t1")).rejects.toThrow(/checkpoint/);
    }
    expect(tether.sessionsById.get("ck-ids")).toBeUndefined();
  });
});

describe("deleteThread whose answer was lost", () => {
  it("leaves no stale claim behind: the thread's next put starts it again", async () => {
    const tether = new FakeTether();
    const saver = new TetherSaver({ client: tether, threadPrefix: "dl-" });
    const config = { configurable: { thread_id: "gone" } };
    await saver.put(config, { ...emptyCheckpoint(), id: uuid6(-1) }, META, {});
    const erase = tether.eraseSession.bind(tether);
    tether.eraseSession = async (sessionId) => {
      await erase(sessionId); // erased, and then the answer is lost
      throw new TetherError("DELETE got no answer", { outcomeUnknown: true });
    };
    await expect(saver.deleteThread("gone")).rejects.toThrow(/no answer/);
    const again = await saver.put(config, { ...emptyCheckpoint(), id: uuid6(-1) }, META, {});
    expect((await saver.getTuple(again))!.config.configurable?.checkpoint_id).toBe(again.configurable?.checkpoint_id);
  });
});

describe("the saver's options", () => {
  it("refuse an authorization timeout that is NaN or negative when the saver is made", () => {
    const lookup = tool(async () => "ok", { name: "lookup", description: "looks up", schema: z.object({}) });
    for (const authorizationTimeoutMs of [Number.NaN, -1]) {
      expect(() => new TetherSaver({ client: new TetherClient({ token: "t" }), tools: [{ tool: lookup }], authorizationTimeoutMs })).toThrow(
        /authorizationTimeoutMs/,
      );
    }
  });
});
