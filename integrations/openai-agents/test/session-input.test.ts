/**
 * What a caller hands TetherSession and what it hands back: items it cannot store refused before anything is written
 * (naming the field), items handed back as the caller's own copies, text the wire cannot carry kept whole, the run state
 * saved last kept, and resume() adding only the calls a crash kept out of the history.
 */
import { Agent, RunState, type AgentInputItem } from "@openai/agents-core";
import type { TetherClient } from "@tether/client";
import { afterEach, describe, expect, it, vi } from "vitest";
import { FakeTether } from "../../../clients/typescript/test/fake-tether.js";
import { TetherSession } from "../src/index.js";

function session(tether: FakeTether, sessionId: string) {
  return new TetherSession({ client: tether as unknown as TetherClient, sessionId, workerId: "test" });
}

const USER = { role: "user", content: "Book me a flight to Lisbon" } as AgentInputItem;
const REASONING = { type: "reasoning", id: "rs-1", content: [{ type: "input_text", text: "a morning flight" }], providerData: { encrypted: "abc" } } as AgentInputItem;

describe("TetherSession, what it is given", () => {
  it("refuses items JSON cannot hold, naming the field, and writes nothing", async () => {
    const tether = new FakeTether();
    const s = session(tether, "oa-input");
    await s.addItems([USER]);
    const before = tether.sessionsById.get("oa-input")!.events.length;
    const image = { type: "function_call_result", callId: "call-1", name: "snap", status: "completed", output: { type: "image", image: { data: new Uint8Array([137, 80, 78, 71]), mediaType: "image/png" } } };
    const cases: [() => Promise<unknown>, RegExp][] = [
      [() => s.addItems(undefined as unknown as AgentInputItem[]), /addItems: items must be an array of items, not undefined/],
      [() => s.addItems([USER, null as unknown as AgentInputItem]), /addItems: items\[1\] must be an item \(an object\), not null/],
      [() => s.addItems([{ ...USER, providerData: { tokens: 12n } } as unknown as AgentInputItem]), /addItems: items\[0\]\.providerData\.tokens is a bigint/],
      [() => s.addItems([{ ...USER, providerData: { score: Number.NaN } } as unknown as AgentInputItem]), /addItems: items\[0\]\.providerData\.score is NaN/],
      [() => s.addItems([image as unknown as AgentInputItem]), /addItems: items\[0\]\.output\.image\.data is a Uint8Array.*data URL/],
      [() => s.addItems([{ ...USER, providerData: { at: new Date(0) } } as unknown as AgentInputItem]), /items\[0\]\.providerData\.at is a Date/],
      [() => s.applyHistoryTransaction({ operationId: "op-1", transaction: undefined as never }), /applyHistoryTransaction: transaction must be an object/],
      [() => s.applyHistoryTransaction({ operationId: "op-1", transaction: { type: "append_items", items: [{ ...USER, providerData: { f: () => 1 } }] as never } }), /applyHistoryTransaction: transaction\.items\[0\]\.providerData\.f is a function/],
      [() => s.applyHistoryTransaction({ operationId: "op-1", transaction: { type: "replace_suffix", expectedSuffix: [USER], replacement: undefined as never } }), /transaction\.replacement must be an array/],
      [() => s.replaceHistoryWithCompaction([{ type: "compaction", encrypted_content: Number.POSITIVE_INFINITY } as unknown as AgentInputItem]), /replaceHistoryWithCompaction: items\[0\]\.encrypted_content is Infinity/],
    ];
    for (const [call, error] of cases) {
      await expect(call(), String(error)).rejects.toThrow(error);
    }
    const cyclic: Record<string, unknown> = { ...USER };
    cyclic.providerData = { self: cyclic };
    await expect(s.addItems([cyclic as AgentInputItem])).rejects.toThrow(/items\[0\]\.providerData\.self refers to itself/);

    expect(tether.sessionsById.get("oa-input")!.events).toHaveLength(before);
    expect(await session(tether, "oa-input").getItems()).toEqual([USER]);
    // and the operation id of a refused transaction is free: it was never recorded
    await s.applyHistoryTransaction({ operationId: "op-1", transaction: { type: "append_items", items: [REASONING] } });
    expect(await s.getItems()).toEqual([USER, REASONING]);
  });
});

describe("TetherSession, what it hands back", () => {
  afterEach(() => vi.restoreAllMocks());

  it("hands back copies: changing an item getItems or popItem answered changes no later read", async () => {
    const tether = new FakeTether();
    const s = session(tether, "oa-copies");
    await s.addItems([USER, REASONING]);
    const [, reasoning] = (await s.getItems()) as unknown as [unknown, { content: unknown[]; providerData: Record<string, unknown> }];
    reasoning.content.push({ type: "input_text", text: "injected" });
    delete reasoning.providerData.encrypted;
    expect(await s.getItems()).toEqual([USER, REASONING]);
    const [last] = (await s.getItems(1)) as unknown as [{ id: string }];
    last.id = "changed";
    expect(await s.popItem()).toEqual(REASONING);
    expect(await session(tether, "oa-copies").getItems()).toEqual([USER]);
  });

  it("keeps the run state saved last, also when the same state was saved (and cleared) before", async () => {
    const tether = new FakeTether();
    const s = session(tether, "oa-run-states");
    const agent = new Agent({ name: "a" });
    const a = JSON.stringify({ $schemaVersion: "1.0", step: "a" });
    const b = JSON.stringify({ $schemaVersion: "1.0", step: "b" });
    const stateOf = (json: string) => ({ toString: () => json }) as unknown as RunState<any, any>;
    // what loadRunState restores (with RunState.fromString) is the text saved last
    vi.spyOn(RunState, "fromString").mockImplementation(async (_agent, text) => text as never);
    const savedOf = async (t: TetherSession) => (await t.loadRunState(agent)) as unknown as string | undefined;
    await s.saveRunState(stateOf(a));
    await s.clearRunState();
    await s.saveRunState(stateOf(a)); // the same run stopped again at the same point
    expect(await savedOf(s)).toBe(a);
    expect(await savedOf(session(tether, "oa-run-states"))).toBe(a);
    await s.saveRunState(stateOf(b));
    await s.saveRunState(stateOf(a));
    expect(await savedOf(session(tether, "oa-run-states"))).toBe(a);
  });
});

describe("TetherSession.resume, the calls the history lacks", () => {
  it("adds a call asked for and answered after the last history change, and no call the application cleared or compacted away", async () => {
    const tether = new FakeTether();
    const s = session(tether, "oa-resume");
    await s.addItems([USER]);
    // a crash after the call was asked for and answered, before the SDK saved the turn's items
    tether.addAsService("oa-resume", "assistant_message", { content: "", toolCalls: [{ callId: "call-9", tool: "lookup", argumentsJson: '{"q":"LIS"}' }] });
    tether.addAsService("oa-resume", "tool_result", { callId: "call-9", status: "OK", content: "found" });
    const call = { type: "function_call", callId: "call-9", name: "lookup", arguments: '{"q":"LIS"}', status: "completed" };
    const result = { type: "function_call_result", callId: "call-9", name: "lookup", status: "completed", output: { type: "text", text: "found" } };
    expect((await session(tether, "oa-resume").resume()).restoredItems).toBe(2);
    expect(await s.getItems()).toEqual([USER, call, result]);
    expect((await session(tether, "oa-resume").resume()).restoredItems).toBe(0);

    const again = session(tether, "oa-resume");
    await again.clearSession();
    expect((await session(tether, "oa-resume").resume()).restoredItems).toBe(0);
    expect(await again.getItems()).toEqual([]);

    const compacting = session(tether, "oa-resume");
    await compacting.addItems([USER, call as AgentInputItem, result as AgentInputItem]);
    const compaction = { type: "compaction", encrypted_content: "opaque" } as AgentInputItem;
    await compacting.replaceHistoryWithCompaction([compaction]);
    expect((await session(tether, "oa-resume").resume()).restoredItems).toBe(0);
    expect(await compacting.getItems()).toEqual([compaction]);
  });
});

describe("TetherSession.resume, a run state that will take its calls up itself", () => {
  it("leaves out the calls the saved run state holds, whatever characters their ids have", async () => {
    const tether = new FakeTether();
    const s = session(tether, "oa-resume-state");
    await s.addItems([USER]);
    const callId = 'call "7" \\ ü';
    tether.addAsService("oa-resume-state", "assistant_message", { content: "", toolCalls: [{ callId, tool: "refund", argumentsJson: "{}" }] });
    // the run stopped for the call's approval and its state was saved: running the state again asks for it
    const state = JSON.stringify({ $schemaVersion: "1.0", interruptions: [{ rawItem: { type: "function_call", callId, name: "refund" } }] });
    await s.saveRunState({ toString: () => state } as unknown as RunState<any, any>);
    expect((await session(tether, "oa-resume-state").resume()).restoredItems).toBe(0);
    expect(await s.getItems()).toEqual([USER]);
  });
});

describe("TetherSession, text the wire cannot carry as it is", () => {
  it("keeps an item whose text has half a surrogate pair whole, as a record, so it comes back as it was", async () => {
    const tether = new FakeTether();
    const s = session(tether, "oa-surrogate");
    // a text cut in the middle of an emoji: UTF-8 (what Tether stores) has no form for the half left, which would be `?`
    const cut = [
      { role: "user", content: "a smile \ud83d" },
      { type: "function_call", callId: "call-1", name: "lookup", arguments: '{"q":"\ude00"}', status: "completed" },
      { type: "function_call_result", callId: "call-1", name: "lookup", status: "completed", output: "found \ud83d" },
    ] as AgentInputItem[];
    await s.addItems(cut);
    const log = tether.sessionsById.get("oa-surrogate")!.events;
    expect(log.filter((e) => ["user_message", "assistant_message", "tool_result"].includes(e.type))).toEqual([]);
    for (const e of log.filter((e) => e.type === "framework_state")) {
      expect(String(e.json.content).isWellFormed(), String(e.json.content)).toBe(true);
    }
    expect(await session(tether, "oa-surrogate").getItems()).toEqual(cut);
  });
});
