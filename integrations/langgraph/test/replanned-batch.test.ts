/**
 * A call answered in the log by another part (a resumed harness-run call's runner; here the executor's, as the
 * in-memory Tether has no harness-run protocol) appends the tool_result itself, while the saver — whose log has not read it
 * yet — plans the ToolMessage as a message record, its pending write and the next checkpoint on top of it, sent as one
 * append. Tether refuses it (the log moved), and the saver plans both again on the log as read: the write now refers
 * to the runner's tool_result, one event fewer, so the checkpoint lands at the very seq it was planned at before, under
 * the same eventId, holding other references. The saver must go on with the checkpoint it sent, not the one it took
 * back (which referred to a message record at the tool_result's seq): a later list that starts from it read as a
 * message `undefined` (a SyntaxError in the agent loop's resumed worker, now and then, in agent.it.test.ts).
 */
import { AIMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { emptyCheckpoint, uuid6, type Checkpoint } from "@langchain/langgraph-checkpoint";
import type { RunnableConfig } from "@langchain/core/runnables";
import type { AppendBatch, AppendResult } from "@tether/client";
import { describe, expect, it } from "vitest";
import { TetherSaver } from "../src/index.js";
import { FakeTether } from "../../../clients/typescript/test/fake-tether.js";

/** A FakeTether that holds the next append until {@link release} (so that more is planned on top of it). */
class HeldTether extends FakeTether {
  private held: Promise<void> | undefined;
  release: () => void = () => undefined;

  holdNext(): void {
    this.held = new Promise<void>((resolve) => (this.release = resolve));
  }

  override async append(sessionId: string, batch: AppendBatch): Promise<AppendResult> {
    const held = this.held;
    this.held = undefined;
    await held;
    return super.append(sessionId, batch);
  }
}

function checkpointOf(messages: object[], version: number): Checkpoint {
  return { ...emptyCheckpoint(), id: uuid6(-1), channel_values: { messages }, channel_versions: { messages: version } };
}

describe("a batch planned again at the seqs of the one taken back", () => {
  it("the saver goes on from the checkpoint it appended, not from the one it planned before the conflict", async () => {
    const tether = new HeldTether();
    const saver = new TetherSaver({ client: tether, threadPrefix: "rp-", otherTools: "executor" });
    const thread = { configurable: { thread_id: "t", checkpoint_ns: "" } };
    const human = new HumanMessage({ content: "Book me a flight", id: "user-0" });
    const ai = new AIMessage({ content: "", id: "ai-0", tool_calls: [{ id: "call-1", name: "book_flight", args: { to: "Lisbon" } }] });
    const asked = await saver.put(thread, checkpointOf([human, ai], 1), { source: "loop", step: 0, parents: {} }, { messages: 1 });
    const sessionId = "rp-t";
    const lastSeq = () => tether.sessionsById.get(sessionId)!.events.length;
    const askedAt = lastSeq();

    // the runner answers the call in the log; the saver has not read it when it plans the ToolMessage
    const result = new ToolMessage({ content: "booked", tool_call_id: "call-1", name: "book_flight", id: "tool-0" });
    tether.addAsService(sessionId, "tool_result", { callId: "call-1", status: "OK", content: "booked" });
    tether.holdNext();
    const writes = saver.putWrites(asked, [["messages", [result]]], "task-tools");
    await new Promise((resolve) => setTimeout(resolve, 20)); // planned and sent (held), as LangGraph's loop does
    const next = saver.put(asked, checkpointOf([human, ai, result], 2), { source: "loop", step: 1, parents: {} }, { messages: 2 });
    await new Promise((resolve) => setTimeout(resolve, 50)); // both planned, one append held
    tether.release();
    await writes;
    const answered = await next;

    const events = tether.sessionsById.get(sessionId)!.events;
    expect(events.slice(askedAt).map((e) => `${e.type} ${String(e.json.kind ?? "")}`.trim())).toEqual([
      "tool_result",
      "framework_state writes",
      "framework_state checkpoint",
    ]);
    expect(events.filter((e) => e.json.kind === "message"), "the ToolMessage is the runner's tool_result, not a record").toEqual([]);

    // the next step extends that checkpoint's list; the log moves under it again (a service's event), so the saver
    // reads the list it extends back from the checkpoint record it knows
    const final = new AIMessage({ content: "Booked.", id: "ai-1" });
    tether.holdNext();
    const last = saver.put(answered as RunnableConfig, checkpointOf([human, ai, result, final], 3), { source: "loop", step: 2, parents: {} }, { messages: 3 });
    await new Promise((resolve) => setTimeout(resolve, 50));
    tether.addAsService(sessionId, "tool_call_authorized", { callId: "call-2" });
    tether.release();
    const stored = await last;

    const read = (await saver.getTuple(stored))!.checkpoint.channel_values.messages as { content: string; id: string }[];
    expect(read.map((m) => [m.id, m.content])).toEqual([["user-0", "Book me a flight"], ["ai-0", ""], ["tool-0", "booked"], ["ai-1", "Booked."]]);
    const fresh = new TetherSaver({ client: tether, threadPrefix: "rp-", otherTools: "executor" });
    const readFresh = (await fresh.getTuple(stored))!.checkpoint.channel_values.messages as { content: string; id: string }[];
    expect(readFresh.map((m) => [m.id, m.content])).toEqual(read.map((m) => [m.id, m.content]));
  });
});
