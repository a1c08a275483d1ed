/** Graphs several tests run, each compiled with the checkpointer a test gives it. */
import { AIMessage } from "@langchain/core/messages";
import { Annotation, END, MessagesAnnotation, START, StateGraph, interrupt } from "@langchain/langgraph";
import type { BaseCheckpointSaver } from "@langchain/langgraph-checkpoint";

/** Two nodes one after the other, each adding an AI message named after it and the list's length. */
export function twoSteps(saver: BaseCheckpointSaver) {
  const step = (name: string) => async (s: typeof MessagesAnnotation.State) => ({ messages: [new AIMessage({ content: `${name} ${s.messages.length}`, id: `${name}${s.messages.length}` })] });
  return new StateGraph(MessagesAnnotation)
    .addNode("a", step("a"))
    .addNode("b", step("b"))
    .addEdge(START, "a")
    .addEdge("a", "b")
    .addEdge("b", END)
    .compile({ checkpointer: saver });
}

export const VaultState = Annotation.Root({
  note: Annotation<string>,
  log: Annotation<string[]>({ reducer: (a, b) => a.concat(b), default: () => [] }),
});

/** The subgraph's state: the parent's `note`, which it writes (the parent's `log` is not its own). */
const Vault = Annotation.Root({ note: Annotation<string> });

/**
 * Nodes named like secrets whose names LangGraph writes followed by a `:`: `get_api_key` runs a subgraph that
 * interrupts (its namespace `get_api_key:<task id>`), joined into from `other` and `refresh_token` (the channel
 * `join:other+refresh_token:get_api_key`); then `after` logs the subgraph's note.
 */
export function vaultGraph(saver: BaseCheckpointSaver) {
  const fetchKey = new StateGraph(Vault)
    .addNode("inner", async () => ({ note: `key from ${String(interrupt("which vault?"))}` }))
    .addEdge(START, "inner")
    .addEdge("inner", END)
    .compile();
  return new StateGraph(VaultState)
    .addNode("other", async () => ({ log: ["other"] }))
    .addNode("refresh_token", async () => ({ log: ["refreshed"] }))
    .addNode("get_api_key", fetchKey)
    .addNode("after", async (s: typeof VaultState.State) => ({ log: [`after: ${s.note}`] }))
    .addEdge(START, "other")
    .addEdge(START, "refresh_token")
    .addEdge(["other", "refresh_token"], "get_api_key")
    .addEdge("get_api_key", "after")
    .addEdge("after", END)
    .compile({ checkpointer: saver });
}
