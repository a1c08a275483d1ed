/**
 * A real LangGraph agent — a StateGraph with a model node (a scripted chat model, no network) and LangGraph's own
 * ToolNode — checkpointed by TetherSaver on an in-memory log, side by side with the same graph on LangGraph's
 * MemorySaver: the state LangGraph reads back is the same, the thread's messages are in the log as typed events,
 * each stored once, and a second turn stores only what it added.
 */
import { HumanMessage, AIMessage, type BaseMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { MemorySaver, type BaseCheckpointSaver } from "@langchain/langgraph-checkpoint";
import { END, MessagesAnnotation, START, StateGraph } from "@langchain/langgraph";
import { ToolNode, toolsCondition } from "@langchain/langgraph/prebuilt";
import { NewEvent } from "@tether/client";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { TetherSaver } from "../src/index.js";
import { checkpointRecordOf, type MessagesValue } from "../src/records.js";
import { FakeTether } from "../../../clients/typescript/test/fake-tether.js";
import { ScriptedChatModel } from "./support/scripted-model.js";

function script(): AIMessage[] {
  return [
    new AIMessage({ content: "", tool_calls: [{ id: "call-weather-1", name: "weather", args: { city: "Lisbon" } }] }),
    new AIMessage({ content: "It is sunny in Lisbon (answer one)." }),
    new AIMessage({ content: "", tool_calls: [{ id: "call-weather-2", name: "weather", args: { city: "Porto" } }] }),
    new AIMessage({ content: "Porto is rainy (answer two)." }),
  ];
}

function agent(saver: BaseCheckpointSaver, model: ScriptedChatModel) {
  let runs = 0;
  const weather = tool(async ({ city }: { city: string }) => `forecast for ${city}: ${city === "Lisbon" ? "sunny" : "rainy"} (run ${++runs})`, {
    name: "weather",
    description: "The forecast for a city",
    schema: z.object({ city: z.string() }),
  });
  const graph = new StateGraph(MessagesAnnotation)
    .addNode("agent", async (state: typeof MessagesAnnotation.State) => ({ messages: [await model.bindTools([weather]).invoke(state.messages)] }))
    .addNode("tools", new ToolNode([weather]))
    .addEdge(START, "agent")
    .addConditionalEdges("agent", toolsCondition, ["tools", END])
    .addEdge("tools", "agent")
    .compile({ checkpointer: saver });
  return { graph, runs: () => runs };
}

async function twoTurns(saver: BaseCheckpointSaver, threadId: string) {
  const model = new ScriptedChatModel(script());
  const { graph, runs } = agent(saver, model);
  const config = { configurable: { thread_id: threadId } };
  await graph.invoke({ messages: [new HumanMessage({ content: "What is the weather in Lisbon? (question one)", id: "q1" })] }, config);
  const afterOne = await graph.getState(config);
  await graph.invoke({ messages: [new HumanMessage({ content: "And in Porto? (question two)", id: "q2" })] }, config);
  const afterTwo = await graph.getState(config);
  return { afterOne, afterTwo, runs: runs(), graph, config };
}

const contents = (messages: BaseMessage[]) => messages.map((m) => `${m.getType()}:${String(m.content)}`);
/** The state with the ids the two runs drew at random (a tool message's) left out. */
const comparable = (values: { messages: BaseMessage[] }) => ({ ...values, messages: values.messages.map((m) => ({ ...m.toDict(), data: { ...m.toDict().data, id: undefined } })) });

describe("a LangGraph agent on TetherSaver", () => {
  it("reads back the state MemorySaver reads back, turn after turn", async () => {
    const tether = new FakeTether();
    const onTether = await twoTurns(new TetherSaver({ client: tether, threadPrefix: "agent-" }), "weather-1");
    const onMemory = await twoTurns(new MemorySaver(), "weather-1");

    expect(onTether.runs).toBe(2);
    expect(contents(onTether.afterTwo.values.messages)).toEqual(contents(onMemory.afterTwo.values.messages));
    expect(onTether.afterTwo.values.messages).toHaveLength(8);
    expect(comparable(onTether.afterOne.values)).toEqual(comparable(onMemory.afterOne.values));
    expect(comparable(onTether.afterTwo.values)).toEqual(comparable(onMemory.afterTwo.values));
    expect(onTether.afterTwo.next).toEqual(onMemory.afterTwo.next);
    expect(onTether.afterTwo.metadata).toEqual(onMemory.afterTwo.metadata);

    // the whole history, step by step, as LangGraph's time travel reads it
    const history = async (r: Awaited<ReturnType<typeof twoTurns>>) => {
      const states = [];
      for await (const s of r.graph.getStateHistory(r.config)) {
        states.push({ values: comparable(s.values), next: s.next, metadata: s.metadata, tasks: s.tasks.map((t) => t.name) });
      }
      return states;
    };
    const tetherHistory = await history(onTether);
    expect(tetherHistory).toEqual(await history(onMemory));
    expect(tetherHistory.length).toBeGreaterThan(8);
  });

  it("keeps the messages in the log as typed events, each stored once, and a second turn stores only what it added", async () => {
    const tether = new FakeTether();
    await twoTurns(new TetherSaver({ client: tether, threadPrefix: "agent-" }), "weather-2");
    const log = tether.sessionsById.get("agent-weather-2")!.events;
    const types = log.map((e) => e.type);

    const started = log[0]!;
    expect(started.json.harnessTools, "undeclared tools are recorded-only").toEqual([{ name: "*", mutating: false, canReconcile: false, recordedOnly: true }]);
    expect(types.filter((t) => t === "user_message")).toHaveLength(2);
    expect(types.filter((t) => t === "assistant_message")).toHaveLength(4);
    expect(types.filter((t) => t === "tool_result")).toHaveLength(2);
    const asked = log.find((e) => e.type === "assistant_message" && Array.isArray(e.json.toolCalls) && e.json.toolCalls.length > 0)!;
    expect(asked.json.toolCalls).toEqual([{ callId: "call-weather-1", tool: "weather", argumentsJson: '{"city":"Lisbon"}' }]);
    const result = log.find((e) => e.type === "tool_result" && e.json.callId === "call-weather-1")!;
    expect(result.json.status).toBe("OK");
    expect(result.json.idempotencyKey).toBe(`agent-weather-2/${asked.seq}/call-weather-1`);
    expect(result.json.content).toBe("forecast for Lisbon: sunny (run 1)");

    // every message's text is in the log exactly once, whatever the number of checkpoints that hold it
    const wholeLog = log.map((e) => JSON.stringify(e.json)).join("\n");
    for (const text of ["question one", "question two", "answer one", "answer two", "forecast for Lisbon", "forecast for Porto"]) {
      expect(wholeLog.split(text).length - 1, `"${text}" stored once`).toBe(1);
    }

    // the checkpoints of the second turn refer to the first turn's messages instead of storing them again
    const records = log.filter((e) => e.type === "framework_state" && e.json.kind === "checkpoint").map((e) => checkpointRecordOf(JSON.parse(String(e.json.content))));
    const last = records[records.length - 1];
    const list = last!.stored.messages as MessagesValue;
    expect(list.base, "the last list extends an earlier one").toBeGreaterThan(0);
    expect(list.add.length).toBeLessThanOrEqual(1);
  });

  it("serves a thread to a new saver (a new process) from the log alone", async () => {
    const tether = new FakeTether(200); // offload content over 200 characters, as Tether does over 64 KiB
    const first = await twoTurns(new TetherSaver({ client: tether, threadPrefix: "agent-" }), "weather-3");
    const fresh = agent(new TetherSaver({ client: tether, threadPrefix: "agent-" }), new ScriptedChatModel([]));
    const state = await fresh.graph.getState(first.config);
    expect(state.values).toEqual(first.afterTwo.values);
  });

  it("fails a write, writing nothing, once the thread's session was erased and made again under its id and claimed at the same epoch", async () => {
    const tether = new FakeTether();
    const saver = new TetherSaver({ client: tether, threadPrefix: "agent-" });
    const graph = new StateGraph(MessagesAnnotation)
      .addNode("answer", async () => ({ messages: [new AIMessage({ content: "noted" })] }))
      .addEdge(START, "answer")
      .addEdge("answer", END)
      .compile({ checkpointer: saver });
    const config = { configurable: { thread_id: "erased" } };
    await graph.invoke({ messages: [new HumanMessage({ content: "first", id: "q1" })] }, config);
    const known = tether.sessionsById.get("agent-erased")!.events.length;
    // another process erases it and makes it again between this saver's read and its append: claimed at epoch 1 again,
    // and as long as the log this saver knows (a read before it would notice, and fold the new session from its start)
    let remade = false;
    tether.beforeAppend = (id) => {
      if (remade || id !== "agent-erased") {
        return;
      }
      remade = true;
      void tether.eraseSession("agent-erased");
      void tether.createSession({ objective: "again", toolMode: "WRITE", sessionId: "agent-erased" });
      void tether.claim("agent-erased", { workerId: "other", harnessVersion: "v1" });
      void tether.append("agent-erased", { step: "theirs", events: Array.from({ length: known - 2 }, (_, i) => NewEvent.userMessage(`theirs ${i}`)) });
    };

    await expect(graph.updateState(config, { messages: [new HumanMessage({ content: "second", id: "q2" })] })).rejects.toThrow(/session agent-erased is gone/);
    expect(remade).toBe(true);
    const theirs = tether.sessionsById.get("agent-erased")!.events;
    expect(theirs).toHaveLength(known);
    expect(theirs.slice(2).map((e) => e.json.content)).toEqual(Array.from({ length: known - 2 }, (_, i) => `theirs ${i}`));
  });
});
