/**
 * Two messages with the same text are two messages: a node's "OK" after another node's "OK" (a model answering the
 * same twice, a user saying "yes" again) is an event of its own in the log, so Tether's context has both turns. A
 * message found in the step's records is the same message only when its id says so: the id the reducer gave a message
 * a node wrote without one, or its own. The saver used to take any message of the same content in the step's records
 * (the parent checkpoint's values, the writes) for it, and left the second "OK" out of the log.
 */
import { AIMessage, HumanMessage, type BaseMessage } from "@langchain/core/messages";
import { MemorySaver, type BaseCheckpointSaver } from "@langchain/langgraph-checkpoint";
import { Annotation, END, MessagesAnnotation, START, StateGraph } from "@langchain/langgraph";
import { describe, expect, it } from "vitest";
import { TetherSaver } from "../src/index.js";
import { FakeTether } from "../../../clients/typescript/test/fake-tether.js";

function twoOks(saver: BaseCheckpointSaver, ids: boolean) {
  const ok = (id: string) => new AIMessage(ids ? { content: "OK", id } : { content: "OK" });
  return new StateGraph(MessagesAnnotation)
    .addNode("a", async (s) => ({ messages: [ok(`run-a-${s.messages.length}`)] }))
    .addNode("b", async (s) => ({ messages: [ok(`run-b-${s.messages.length}`)] }))
    .addEdge(START, "a")
    .addEdge("a", "b")
    .addEdge("b", END)
    .compile({ checkpointer: saver });
}

// messages kept without ids: a plain list, which each node gives back with one more message (no reducer gives them ids)
const Plain = Annotation.Root({ log: Annotation<BaseMessage[]>({ reducer: (_, b) => b, default: () => [] }) });
function plainOks(saver: BaseCheckpointSaver) {
  return new StateGraph(Plain)
    .addNode("a", async (s) => ({ log: [...s.log, new AIMessage("OK")] }))
    .addNode("b", async (s) => ({ log: [...s.log, new AIMessage("OK")] }))
    .addEdge(START, "a")
    .addEdge("a", "b")
    .addEdge("b", END)
    .compile({ checkpointer: saver });
}

const texts = (messages: BaseMessage[]) => messages.map((m) => `${m.getType()}:${String(m.content)}`);

function assistantTexts(tether: FakeTether, sessionId: string): string[] {
  return tether.sessionsById.get(sessionId)!.events.filter((e) => e.type === "assistant_message").map((e) => String(e.json.content));
}

describe("two messages with the same text", () => {
  for (const ids of [true, false]) {
    it(`are two events in the log, turn after turn (${ids ? "ids given by the model" : "ids given by the reducer"})`, async () => {
      const run = async (saver: () => BaseCheckpointSaver) => {
        const config = { configurable: { thread_id: "oks" } };
        await twoOks(saver(), ids).invoke({ messages: [new HumanMessage({ content: "yes", id: "h1" })] }, config);
        await twoOks(saver(), ids).invoke({ messages: [new HumanMessage({ content: "yes", id: "h2" })] }, config);
        return (await twoOks(saver(), ids).getState(config)).values.messages as BaseMessage[];
      };
      const memory = new MemorySaver();
      const onMemory = await run(() => memory);
      const tether = new FakeTether();
      const onTether = await run(() => new TetherSaver({ client: tether, threadPrefix: "ok-" }));
      expect(texts(onTether)).toEqual(texts(onMemory));
      expect(texts(onTether)).toEqual(["human:yes", "ai:OK", "ai:OK", "human:yes", "ai:OK", "ai:OK"]);
      expect(assistantTexts(tether, "ok-oks")).toEqual(["OK", "OK", "OK", "OK"]);
    });
  }

  it("kept without ids (a plain list given back whole) are each one event, stored once", async () => {
    const run = async (saver: () => BaseCheckpointSaver) => {
      const config = { configurable: { thread_id: "plain" } };
      await plainOks(saver()).invoke({ log: [] }, config);
      return (await plainOks(saver()).getState(config)).values.log as BaseMessage[];
    };
    const memory = new MemorySaver();
    const onMemory = await run(() => memory);
    const tether = new FakeTether();
    const onTether = await run(() => new TetherSaver({ client: tether, threadPrefix: "ok-" }));
    expect(onTether).toEqual(onMemory);
    expect(assistantTexts(tether, "ok-plain")).toEqual(["OK", "OK"]);
  });
});
