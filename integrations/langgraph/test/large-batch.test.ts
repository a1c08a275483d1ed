/**
 * Tether takes at most 512 KiB in one append, once content over 64 KiB is offloaded: a step whose new messages are
 * more than that — tools called in parallel, each answering just under 64 KiB (pages fetched), an imported
 * conversation — is refused as too large (413). Its messages then go first, in appends of their own, and the
 * checkpoint or writes refer to them: the run goes on, each message once in the log, read back as MemorySaver reads it.
 * The in-memory log is given the session-service's limit.
 */
import { AIMessage, HumanMessage, type BaseMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { MemorySaver, type BaseCheckpointSaver } from "@langchain/langgraph-checkpoint";
import { END, MessagesAnnotation, START, StateGraph } from "@langchain/langgraph";
import { ToolNode, toolsCondition } from "@langchain/langgraph/prebuilt";
import type { AppendBatch, AppendResult } from "@tether/client";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { TetherSaver } from "../src/index.js";
import { FakeTether } from "../../../clients/typescript/test/fake-tether.js";
import { ScriptedChatModel } from "./support/scripted-model.js";

const OFFLOAD_ABOVE = 64 * 1024;
const MAX_BYTES = 512 * 1024;

/** The in-memory log refusing, as the session-service does, an append over 512 KiB once content over 64 KiB is offloaded. */
class LimitedTether extends FakeTether {
  refused = 0;

  constructor() {
    super(OFFLOAD_ABOVE);
  }

  override async append(sessionId: string, batch: AppendBatch): Promise<AppendResult> {
    const size = batch.events.reduce((n, e) => {
      const content = e.fields.content;
      const fields = typeof content === "string" && content.length > OFFLOAD_ABOVE ? { ...e.fields, content: content.slice(0, 512) } : e.fields;
      return n + JSON.stringify({ type: e.type, ...fields }).length;
    }, 0);
    if (size > MAX_BYTES) {
      this.refused++;
      return { kind: "rejected", status: 413, code: "too_large", message: `the request is ${size} bytes after large content was offloaded`, field: undefined };
    }
    return super.append(sessionId, batch);
  }
}

const PAGES = 12;
const page = tool(async ({ n }: { n: number }) => `page ${n}: ${"x".repeat(60_000)}`, { name: "page", description: "Fetches a page", schema: z.object({ n: z.number() }) });

async function run(saver: BaseCheckpointSaver) {
  const model = new ScriptedChatModel([
    new AIMessage({ content: "", tool_calls: Array.from({ length: PAGES }, (_, n) => ({ id: `call-${n}`, name: "page", args: { n } })) }),
    new AIMessage({ content: "read them all" }),
  ]);
  const graph = new StateGraph(MessagesAnnotation)
    .addNode("agent", async (s) => ({ messages: [await model.invoke(s.messages)] }))
    .addNode("tools", new ToolNode([page]))
    .addEdge(START, "agent")
    .addConditionalEdges("agent", toolsCondition, ["tools", END])
    .addEdge("tools", "agent")
    .compile({ checkpointer: saver });
  const config = { configurable: { thread_id: "pages" } };
  await graph.invoke({ messages: [new HumanMessage({ content: "read the pages", id: "q" })] }, { ...config, durability: "sync" });
  return ((await graph.getState(config)).values.messages as BaseMessage[]).map((m) => `${m.getType()}:${String(m.content).slice(0, 12)}:${String(m.content).length}`);
}

describe("a step whose messages are more than one append takes", () => {
  it("is appended messages first, each message once, and read back as MemorySaver reads it", async () => {
    const onMemory = await run(new MemorySaver());
    expect(onMemory).toHaveLength(PAGES + 3);
    const tether = new LimitedTether();
    expect(await run(new TetherSaver({ client: tether, threadPrefix: "lb-" }))).toEqual(onMemory);
    expect(tether.refused).toBeGreaterThan(0);
    const events = tether.sessionsById.get("lb-pages")!.events;
    expect(events.filter((e) => e.type === "tool_result").map((e) => e.json.callId)).toEqual(Array.from({ length: PAGES }, (_, n) => `call-${n}`));
    // from the log alone (a new process)
    const fresh = new TetherSaver({ client: tether, threadPrefix: "lb-" });
    const state = (await fresh.getTuple({ configurable: { thread_id: "pages" } }))!.checkpoint.channel_values.messages as BaseMessage[];
    expect(state.map((m) => `${m.getType()}:${String(m.content).slice(0, 12)}:${String(m.content).length}`)).toEqual(onMemory);
  });

  it("an imported conversation too, with LangGraph's default (async) durability", async () => {
    const history = Array.from({ length: 400 }, (_, n) =>
      n % 2 === 0 ? new HumanMessage({ content: `question ${n} ${"q".repeat(1_500)}`, id: `h${n}` }) : new AIMessage({ content: `answer ${n} ${"a".repeat(1_500)}`, id: `a${n}` }),
    );
    const imported = async (saver: BaseCheckpointSaver) => {
      const graph = new StateGraph(MessagesAnnotation)
        .addNode("agent", async () => ({ messages: [new AIMessage({ content: "welcome back", id: "back" })] }))
        .addEdge(START, "agent")
        .addEdge("agent", END)
        .compile({ checkpointer: saver });
      const config = { configurable: { thread_id: "imported" } };
      await graph.invoke({ messages: history }, config);
      return ((await graph.getState(config)).values.messages as BaseMessage[]).map((m) => `${m.id}:${String(m.content).length}`);
    };
    const onMemory = await imported(new MemorySaver());
    const tether = new LimitedTether();
    expect(await imported(new TetherSaver({ client: tether, threadPrefix: "lb-" }))).toEqual(onMemory);
    expect(tether.refused).toBeGreaterThan(0);
    const typed = tether.sessionsById.get("lb-imported")!.events.filter((e) => e.type === "user_message" || e.type === "assistant_message");
    expect(typed).toHaveLength(401);
  });
});
