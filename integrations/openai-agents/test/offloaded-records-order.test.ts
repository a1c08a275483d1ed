/**
 * A new process (a new TetherSession object) reads the session's records in log order, even when Tether
 * offloaded some of them (content over 64 KiB; over `offloadAbove` characters in the in-memory log).
 */
import { Agent, type AgentInputItem, type RunState } from "@openai/agents-core";
import type { TetherClient } from "@tether/client";
import { describe, expect, it } from "vitest";
import { FakeTether } from "../../../clients/typescript/test/fake-tether.js";
import { TetherSession } from "../src/index.js";

function session(tether: FakeTether, sessionId: string) {
  return new TetherSession({ client: tether as unknown as TetherClient, sessionId, workerId: "worker-1" });
}

describe("offloaded records read by a new process", () => {
  it("a run state saved (large, offloaded) and then cleared stays cleared for a new process", async () => {
    const tether = new FakeTether(2_000);
    const s = session(tether, "oa-rs");
    // a run state is a RunState's toString(): only that is called by saveRunState
    const big = JSON.stringify({ $schemaVersion: "1.0", generatedItems: ["x".repeat(5_000)] });
    await s.saveRunState({ toString: () => big } as unknown as RunState<any, any>);
    await s.clearRunState();
    const agent = new Agent({ name: "a" });
    expect(await s.loadRunState(agent)).toBeUndefined();
    // a new process must not take the cleared run up again
    await expect(session(tether, "oa-rs").loadRunState(agent)).resolves.toBeUndefined();
  });

  it("a large history change (offloaded) followed by a small one reads back whole in a new process", async () => {
    const tether = new FakeTether(2_000);
    const s = session(tether, "oa-hist");
    // many items in one change: its history record (the references) is over the offload threshold
    const many: AgentInputItem[] = Array.from({ length: 80 }, (_, i) => ({ role: "user", content: `question number ${i}` }) as AgentInputItem);
    await s.addItems(many);
    await s.addItems([{ role: "user", content: "one more" } as AgentInputItem]);
    expect(await s.getItems()).toHaveLength(81);
    expect(await session(tether, "oa-hist").getItems()).toHaveLength(81);
  });
});
