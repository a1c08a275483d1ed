import { Usage, type Model, type ModelRequest, type ModelResponse } from "@openai/agents-core";

/** One answer of a script: the items the model outputs. */
export type Answer = (turn: number) => Record<string, unknown>[];

/**
 * A model that answers from a script, without any network: the answer is chosen by how many function results the
 * input already has, so the same conversation gets the same answer in any process (a resumed run included). Counts
 * the calls it answered.
 */
export class ScriptedModel implements Model {
  calls = 0;

  constructor(private readonly script: readonly Answer[]) {}

  async getResponse(request: ModelRequest): Promise<ModelResponse> {
    this.calls++;
    const input = Array.isArray(request.input) ? request.input : [];
    const turn = input.filter((i) => (i as { type?: string }).type === "function_call_result").length;
    const answer = this.script[Math.min(turn, this.script.length - 1)]!(turn);
    return { usage: new Usage({ requests: 1, inputTokens: 100 + turn, outputTokens: 10 }), output: answer as ModelResponse["output"], responseId: `resp-${turn}` };
  }

  // eslint-disable-next-line require-yield
  async *getStreamedResponse(): AsyncIterable<never> {
    throw new Error("the scripted model does not stream");
  }
}

/** An assistant message item. */
export function say(text: string, id: string): Record<string, unknown> {
  return { type: "message", role: "assistant", status: "completed", id, content: [{ type: "output_text", text }] };
}

/** A function call item. */
export function callTool(name: string, callId: string, args: Record<string, unknown>): Record<string, unknown> {
  return { type: "function_call", callId, name, arguments: JSON.stringify(args), status: "completed", id: `fc-${callId}` };
}
