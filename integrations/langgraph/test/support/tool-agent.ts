import { END, MessagesAnnotation, START, StateGraph } from "@langchain/langgraph";
import { ToolNode, toolsCondition } from "@langchain/langgraph/prebuilt";
import type { TetherSaver } from "../../src/index.js";
import type { ScriptedChatModel } from "./scripted-model.js";

/** An agent of the tests: `model` answers, LangGraph's ToolNode runs the saver's harness-run tools, until no tool is called. */
export function toolAgent(saver: TetherSaver, model: ScriptedChatModel) {
  return new StateGraph(MessagesAnnotation)
    .addNode("agent", async (state: typeof MessagesAnnotation.State) => ({ messages: [await model.invoke(state.messages)] }))
    .addNode("tools", new ToolNode([...saver.tools]))
    .addEdge(START, "agent")
    .addConditionalEdges("agent", toolsCondition, ["tools", END])
    .addEdge("tools", "agent")
    .compile({ checkpointer: saver });
}
