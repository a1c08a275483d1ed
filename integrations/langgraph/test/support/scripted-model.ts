import { BaseChatModel, type BaseChatModelParams } from "@langchain/core/language_models/chat_models";
import { AIMessage, type BaseMessage } from "@langchain/core/messages";
import type { ChatResult } from "@langchain/core/outputs";

/**
 * A chat model that answers from a script, in order, without any network: each call returns the next scripted
 * message (a copy), and remembers what it was asked. `bindTools` returns the model itself, so a graph written for a
 * real tool-calling model runs unchanged. Throws when the script runs out, so a test that asks once too often fails.
 */
export class ScriptedChatModel extends BaseChatModel {
  readonly asked: BaseMessage[][] = [];
  private next = 0;

  constructor(
    private readonly script: readonly AIMessage[],
    params: BaseChatModelParams = {},
  ) {
    super(params);
  }

  _llmType(): string {
    return "scripted";
  }

  override bindTools(_tools: unknown[]): this {
    return this;
  }

  /** How many scripted answers were given. */
  get answered(): number {
    return this.next;
  }

  async _generate(messages: BaseMessage[]): Promise<ChatResult> {
    const answer = this.script[this.next];
    if (answer === undefined) {
      throw new Error(`the script has ${this.script.length} answers and was asked for answer ${this.next + 1}`);
    }
    this.next++;
    this.asked.push([...messages]);
    const fields = {
      content: answer.content,
      tool_calls: answer.tool_calls ?? [],
      usage_metadata: answer.usage_metadata ?? { input_tokens: 10 * this.next, output_tokens: 5, total_tokens: 10 * this.next + 5 },
      id: `scripted-${this.next}`,
    };
    const message = new AIMessage(fields as ConstructorParameters<typeof AIMessage>[0]);
    return { generations: [{ message, text: typeof answer.content === "string" ? answer.content : "" }] };
  }
}
