/**
 * The saver keeps at most `maxCachedThreads` threads' logs in memory while none is in use: a long-running process
 * serving many threads would otherwise hold every log it ever read. A thread let go is read again from Tether when it
 * is used again and writes under the claim it had (no second claim, no fencing of its own writes), also when calls on
 * many threads run at once.
 */
import { HumanMessage, type BaseMessage } from "@langchain/core/messages";
import { MemorySaver, type BaseCheckpointSaver } from "@langchain/langgraph-checkpoint";
import { describe, expect, it } from "vitest";
import { TetherSaver } from "../src/index.js";
import { FakeTether } from "../../../clients/typescript/test/fake-tether.js";
import { twoSteps } from "./support/graphs.js";

const threads = ["t0", "t1", "t2", "t3", "t4"];
const config = (thread: string) => ({ configurable: { thread_id: thread } });
const texts = (messages: BaseMessage[]) => messages.map((m) => `${m.id}:${String(m.content)}`);

async function turns(saver: BaseCheckpointSaver, together: boolean) {
  const turn = (thread: string, n: number) => twoSteps(saver).invoke({ messages: [new HumanMessage({ content: `${thread} turn ${n}`, id: `${thread}-h${n}` })] }, config(thread));
  for (const n of [1, 2]) {
    if (together) {
      await Promise.all(threads.map((t) => turn(t, n)));
    } else {
      for (const t of threads) {
        await turn(t, n);
      }
    }
  }
  const states: Record<string, string[]> = {};
  for (const t of threads) {
    states[t] = texts((await twoSteps(saver).getState(config(t))).values.messages as BaseMessage[]);
  }
  return states;
}

describe("threads let go beyond maxCachedThreads", () => {
  for (const together of [false, true]) {
    it(`read again and written under their claim (${together ? "all threads at once" : "one thread after another"})`, async () => {
      const onMemory = await turns(new MemorySaver(), together);
      const tether = new FakeTether();
      const saver = new TetherSaver({ client: tether, threadPrefix: "tc-", maxCachedThreads: 2 });

      expect(await turns(saver, together)).toEqual(onMemory);
      expect(saver.cachedThreads).toBeLessThanOrEqual(2);

      for (const t of threads) {
        const events = tether.sessionsById.get(`tc-${t}`)!.events;
        expect(events.filter((e) => e.type === "session_claimed").length, `${t}: one claim`).toBe(1);
        expect(events.filter((e) => e.type === "session_resumed").length, `${t}: never claimed again`).toBe(0);
        expect(events.filter((e) => e.type === "user_message").map((e) => e.json.content)).toEqual([`${t} turn 1`, `${t} turn 2`]);
      }
    });
  }

  it("keeps every thread with the default, and refuses a bound below 1", async () => {
    const saver = new TetherSaver({ client: new FakeTether(), threadPrefix: "tc-" });
    await turns(saver, false);
    expect(saver.cachedThreads).toBe(threads.length);
    expect(() => new TetherSaver({ client: new FakeTether(), maxCachedThreads: 0 })).toThrow(/maxCachedThreads must be a whole number of at least 1: 0/);
  });
});
