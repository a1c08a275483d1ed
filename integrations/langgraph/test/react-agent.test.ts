/**
 * LangGraph's prebuilt createReactAgent gives its AI messages `name: undefined`, and ToolNode its tool messages
 * `artifact: undefined`: LangGraph's serializer writes those fields as `{"lc": 2, "type": "undefined"}` and reads them
 * back as absent. The next turn starts from the messages read back, which are the same messages: its list extends the
 * one stored before, and no message goes into the log twice (as a second `assistant_message`, or whole as a record).
 */
import { AIMessage, HumanMessage, type BaseMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { MemorySaver, type BaseCheckpointSaver } from "@langchain/langgraph-checkpoint";
import { createReactAgent } from "@langchain/langgraph/prebuilt";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { TetherSaver } from "../src/index.js";
import { checkpointRecordOf, type MessagesValue } from "../src/records.js";
import { FakeTether } from "../../../clients/typescript/test/fake-tether.js";
import { ScriptedChatModel } from "./support/scripted-model.js";

async function threeTurns(saver: BaseCheckpointSaver) {
  const weather = tool(async ({ city }: { city: string }) => `sunny in ${city}`, {
    name: "weather",
    description: "The forecast for a city",
    schema: z.object({ city: z.string() }),
  });
  const model = new ScriptedChatModel([
    new AIMessage({ content: "", tool_calls: [{ id: "call-1", name: "weather", args: { city: "Lisbon" } }] }),
    new AIMessage({ content: "Lisbon is sunny." }),
    new AIMessage({ content: "", tool_calls: [{ id: "call-2", name: "weather", args: { city: "Porto" } }] }),
    new AIMessage({ content: "Porto is sunny." }),
    new AIMessage({ content: "You are welcome." }),
  ]);
  const agent = createReactAgent({ llm: model, tools: [weather], checkpointer: saver });
  const config = { configurable: { thread_id: "react" } };
  for (const question of ["Weather in Lisbon?", "And in Porto?", "Thanks!"]) {
    await agent.invoke({ messages: [new HumanMessage(question)] }, config);
  }
  const state = await agent.getState(config);
  return (state.values.messages as BaseMessage[]).map((m) => `${m.getType()}:${String(m.content)}`);
}

describe("createReactAgent on TetherSaver", () => {
  it("stores each message once, turn after turn, each turn's list extending the last", async () => {
    const onMemory = await threeTurns(new MemorySaver());
    const tether = new FakeTether();
    expect(await threeTurns(new TetherSaver({ client: tether, threadPrefix: "ra-" }))).toEqual(onMemory);

    const events = tether.sessionsById.get("ra-react")!.events;
    const typed = events.filter((e) => ["user_message", "assistant_message", "tool_result"].includes(e.type));
    expect(typed.map((e) => e.json.content)).toEqual(onMemory.map((m) => m.slice(m.indexOf(":") + 1)));
    const records = events.filter((e) => e.type === "framework_state").map((e) => ({ kind: e.json.kind, record: JSON.parse(String(e.json.content)) }));
    expect(records.filter((r) => r.kind === "message")).toEqual([]);
    const lists = records
      .filter((r) => r.kind === "checkpoint")
      .map((r) => checkpointRecordOf(r.record).stored.messages as MessagesValue | undefined)
      .filter((list) => list !== undefined);
    expect(lists.length).toBeGreaterThan(1);
    expect(lists.slice(1).every((list) => list.base !== undefined)).toBe(true);
  });
});
