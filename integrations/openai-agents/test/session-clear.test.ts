/**
 * `clearSession` as the SDK's `MemorySession` clears: afterwards the session is a fresh one as far as the SDK can tell —
 * no items, no operation ids recognised, no run state to take up — while Tether's log keeps everything (append-only).
 */
import { Agent, MemorySession, RunState, type AgentInputItem } from "@openai/agents-core";
import type { TetherClient } from "@tether/client";
import { afterEach, describe, expect, it, vi } from "vitest";
import { FakeTether } from "../../../clients/typescript/test/fake-tether.js";
import { TetherSession } from "../src/index.js";

const USER = { role: "user", content: "Book me a flight to Lisbon" } as AgentInputItem;
const CALL = { type: "function_call", callId: "call-1", name: "search_flights", arguments: '{"to":"LIS"}', status: "completed", id: "fc-1" } as AgentInputItem;
const RESULT = { type: "function_call_result", callId: "call-1", name: "search_flights", status: "completed", output: { type: "text", text: "TP1234" } } as AgentInputItem;
const REASONING = { type: "reasoning", id: "rs-1", content: [], providerData: { encrypted: "abc" } } as unknown as AgentInputItem;
const ANSWER = { type: "message", role: "assistant", status: "completed", id: "msg-1", content: [{ type: "output_text", text: "Found one." }] } as AgentInputItem;

function session(tether: FakeTether, sessionId: string) {
  return new TetherSession({ client: tether as unknown as TetherClient, sessionId, workerId: "test" });
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe("TetherSession.clearSession, as MemorySession's", () => {
  it("takes the same items again afterwards, ids seen before included", async () => {
    async function clearAndAddAgain(s: TetherSession | MemorySession) {
      await s.addItems([USER, REASONING, CALL, RESULT, ANSWER]);
      await s.clearSession();
      await s.addItems([USER, REASONING, CALL, RESULT, ANSWER]);
      return s.getItems();
    }

    const tether = new FakeTether();
    const onTether = await clearAndAddAgain(session(tether, "oa-clear-items"));

    expect(onTether).toEqual(await clearAndAddAgain(new MemorySession()));
    expect(await session(tether, "oa-clear-items").getItems()).toEqual([USER, REASONING, CALL, RESULT, ANSWER]);
  });

  it("forgets the operation ids applied before: the same id applies again, with the same transaction or another", async () => {
    const same = { operationId: "op-1", transaction: { type: "append_items" as const, items: [USER] } };
    const other = { operationId: "op-2", transaction: { type: "append_items" as const, items: [ANSWER] } };
    async function clearAndApplyAgain(s: TetherSession | MemorySession) {
      await s.applyHistoryTransaction(same);
      await s.applyHistoryTransaction({ operationId: "op-2", transaction: { type: "append_items", items: [REASONING] } });
      await s.clearSession();
      await s.applyHistoryTransaction(same);
      await s.applyHistoryTransaction(other);
      await s.applyHistoryTransaction(same); // a retry after the clear: applied once
      return s.getItems();
    }

    const tether = new FakeTether();
    const onTether = await clearAndApplyAgain(session(tether, "oa-clear-ops"));

    expect(onTether).toEqual(await clearAndApplyAgain(new MemorySession()));
    expect(onTether).toEqual([USER, ANSWER]);
    // a new process reads the same, and recognises the operations applied since the clear
    const later = session(tether, "oa-clear-ops");
    await later.applyHistoryTransaction(other);
    await expect(later.applyHistoryTransaction({ operationId: "op-1", transaction: { type: "append_items", items: [REASONING] } })).rejects.toThrow(/different transaction/);
    expect(await later.getItems()).toEqual([USER, ANSWER]);
  });

  it("recognises in a new process the operation applied after the clear, when the one before it under the same id was offloaded", async () => {
    const tether = new FakeTether(2_000);
    const s = session(tether, "oa-clear-offloaded");
    const many = Array.from({ length: 80 }, (_, i) => ({ role: "user", content: `question number ${i}` }) as AgentInputItem);
    await s.applyHistoryTransaction({ operationId: "op-1", transaction: { type: "append_items", items: many } });
    await s.clearSession();
    const again = { operationId: "op-1", transaction: { type: "append_items" as const, items: [USER] } };
    await s.applyHistoryTransaction(again);

    const later = session(tether, "oa-clear-offloaded");
    await later.applyHistoryTransaction(again); // a retry
    await expect(later.applyHistoryTransaction({ operationId: "op-1", transaction: { type: "append_items", items: [ANSWER] } })).rejects.toThrow(/different transaction/);
    expect(await later.getItems()).toEqual([USER]);
  });

  it("forgets the operation ids applied before also when the history is empty already", async () => {
    const tether = new FakeTether();
    const s = session(tether, "oa-clear-empty-ops");
    const tx = { operationId: "op-1", transaction: { type: "append_items" as const, items: [USER] } };
    await s.applyHistoryTransaction(tx);
    await s.popItem();
    await s.clearSession();
    await s.applyHistoryTransaction(tx);
    expect(await s.getItems()).toEqual([USER]);
  });

  it("leaves no run state to take up, for this process or a new one", async () => {
    const tether = new FakeTether();
    const s = session(tether, "oa-clear-state");
    const agent = new Agent({ name: "a" });
    vi.spyOn(RunState, "fromString").mockImplementation(async (_agent, text) => text as never);
    await s.addItems([USER]);
    await s.saveRunState({ toString: () => JSON.stringify({ $schemaVersion: "1.0", step: "a" }) } as unknown as RunState<any, any>);

    await s.clearSession();

    expect(await s.loadRunState(agent)).toBeUndefined();
    expect(await session(tether, "oa-clear-state").loadRunState(agent)).toBeUndefined();
  });

  it("deletes nothing from Tether's log: the items cleared stay in it", async () => {
    const tether = new FakeTether();
    const s = session(tether, "oa-clear-log");
    await s.applyHistoryTransaction({ operationId: "op-1", transaction: { type: "append_items", items: [USER] } });
    await s.saveRunState({ toString: () => JSON.stringify({ $schemaVersion: "1.0", step: "a" }) } as unknown as RunState<any, any>);
    const before = tether.sessionsById.get("oa-clear-log")!.events.map((e) => e.eventId);

    await s.clearSession();

    const after = tether.sessionsById.get("oa-clear-log")!.events.map((e) => e.eventId);
    expect(after.slice(0, before.length)).toEqual(before);
    expect(tether.sessionsById.get("oa-clear-log")!.events.filter((e) => e.type === "user_message")).toHaveLength(1);
  });
});
