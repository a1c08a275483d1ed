/**
 * What Tether refuses in the texts of an append: half of a surrogate pair — a text cut inside an emoji, by a tool that
 * truncates its output or a message sliced to fit — which has no UTF-8 form (400), and a tool call whose id or tool
 * name is over 128 characters (422). Such a message still goes into the log, and the run goes on: a text with the half
 * pair made U+FFFD in its event and its own text kept beside it (LangGraph reads back exactly what it wrote, and a
 * call's result still closes the call); a call Tether cannot take in an AI message kept whole as a record. The
 * in-memory log is given the session-service's refusals.
 */
import { AIMessage, HumanMessage, type BaseMessage } from "@langchain/core/messages";
import { tool, type DynamicStructuredTool } from "@langchain/core/tools";
import { MemorySaver, type BaseCheckpointSaver } from "@langchain/langgraph-checkpoint";
import { END, MessagesAnnotation, START, StateGraph } from "@langchain/langgraph";
import { ToolNode, toolsCondition } from "@langchain/langgraph/prebuilt";
import type { AppendBatch, AppendResult } from "@tether/client";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { TetherSaver } from "../src/index.js";
import { FakeTether } from "../../../clients/typescript/test/fake-tether.js";
import { FakeTetherClient } from "./fake-policy-client.js";
import { ScriptedChatModel } from "./support/scripted-model.js";

/**
 * The in-memory log refusing, as the session-service does, an append with a lone surrogate in any of its texts (400),
 * or a tool call whose id or tool name is over 128 characters (422).
 */
class WellFormedTether extends FakeTether {
  override async append(sessionId: string, batch: AppendBatch): Promise<AppendResult> {
    const bad = batch.events.findIndex((e) => !wellFormed(e.fields));
    if (bad >= 0) {
      return { kind: "rejected", status: 400, code: "invalid_field", message: "holds a lone UTF-16 surrogate, which is no Unicode character", field: `events[${bad}]` };
    }
    const long = batch.events.findIndex((e) => ((e.fields.toolCalls ?? []) as { callId: string; tool: string }[]).some((c) => c.callId.length > 128 || c.tool.length > 128));
    if (long >= 0) {
      return { kind: "rejected", status: 422, code: "illegal_event", message: "must be at most 128 characters", field: `events[${long}].toolCalls` };
    }
    return super.append(sessionId, batch);
  }
}

function wellFormed(node: unknown): boolean {
  if (typeof node === "string") {
    return node.isWellFormed();
  }
  if (Array.isArray(node)) {
    return node.every(wellFormed);
  }
  return typeof node !== "object" || node === null || Object.entries(node).every(([k, v]) => k.isWellFormed() && wellFormed(v));
}

const CUT = "smile 🙂🙂".slice(0, 7); // "smile " and half of the first emoji
const preview = tool(async () => CUT, { name: "preview", description: "The start of a page", schema: z.object({}) });

function graphOf(saver: BaseCheckpointSaver, tools: readonly DynamicStructuredTool[], callId: string) {
  const model = new ScriptedChatModel([
    new AIMessage({ content: "", tool_calls: [{ id: callId, name: "preview", args: {} }] }),
    new AIMessage({ content: `the page starts with ${CUT}` }),
  ]);
  return new StateGraph(MessagesAnnotation)
    .addNode("agent", async (s) => ({ messages: [await model.invoke(s.messages)] }))
    .addNode("tools", new ToolNode([...tools]))
    .addEdge(START, "agent")
    .addConditionalEdges("agent", toolsCondition, ["tools", END])
    .addEdge("tools", "agent")
    .compile({ checkpointer: saver });
}

const config = { configurable: { thread_id: "cut" } };

/** The thread's messages after a run of the graph on `saver`. */
async function run(saver: BaseCheckpointSaver, tools: readonly DynamicStructuredTool[] = [preview], callId = "call-1") {
  await graphOf(saver, tools, callId).invoke({ messages: [new HumanMessage({ content: `what does it say? ${CUT}`, id: "q" })] }, { ...config, durability: "sync" });
  return read(saver);
}

/** The thread's messages as `saver` reads them. */
async function read(saver: BaseCheckpointSaver) {
  return ((await graphOf(saver, [preview], "-").getState(config)).values.messages as BaseMessage[]).map((m) => `${m.getType()}:${String(m.content)}`);
}

describe("a text holding half of a surrogate pair", () => {
  it("is stored, read back as it was written, and its call's result closes the call", async () => {
    expect(CUT.isWellFormed()).toBe(false);
    const onMemory = await run(new MemorySaver());
    const tether = new WellFormedTether();
    expect(await run(new TetherSaver({ client: tether, threadPrefix: "hs-" }))).toEqual(onMemory);
    // from the log alone (a new process)
    expect(await read(new TetherSaver({ client: tether, threadPrefix: "hs-" }))).toEqual(onMemory);

    const events = tether.sessionsById.get("hs-cut")!.events;
    const typed = events.filter((e) => ["user_message", "assistant_message", "tool_result"].includes(e.type));
    expect(typed.map((e) => [e.type, e.json.content])).toEqual([
      ["user_message", "what does it say? smile \ufffd"],
      ["assistant_message", ""],
      ["tool_result", "smile \ufffd"],
      ["assistant_message", "the page starts with smile \ufffd"],
    ]);
  });

  it("is recorded as a harness-run tool's result with U+FFFD, which its tool message then has", async () => {
    const client = new FakeTetherClient(new WellFormedTether());
    const saver = new TetherSaver({ client, threadPrefix: "hs-", tools: [{ tool: preview }], authorizationTimeoutMs: 2_000 });
    const messages = await run(saver, saver.tools);
    expect(messages[2]).toBe("tool:smile \ufffd");
    const results = client.fake.sessionsById.get("hs-cut")!.events.filter((e) => e.type === "tool_result");
    expect(results.map((e) => e.json.content)).toEqual(["smile \ufffd"]);
  });

  it("in a call that Tether cannot take (an id over 128 characters) keeps the AI message whole, and the run goes on", async () => {
    const callId = `call-${"x".repeat(200)}`;
    const onMemory = await run(new MemorySaver(), [preview], callId);
    const tether = new WellFormedTether();
    expect(await run(new TetherSaver({ client: tether, threadPrefix: "hs-" }), [preview], callId)).toEqual(onMemory);
    expect(await read(new TetherSaver({ client: tether, threadPrefix: "hs-" }))).toEqual(onMemory);
    const events = tether.sessionsById.get("hs-cut")!.events;
    expect(events.filter((e) => e.type === "framework_state" && e.json.kind === "message")).toHaveLength(2); // the call and its result
  });
});
