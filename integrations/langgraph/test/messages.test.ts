/** How a message becomes a typed event and its residual, and back, without the saver around it. */
import { describe, expect, it } from "vitest";
import { messageRecord, residualOf, restore } from "../src/messages.js";
import type { LcMessage } from "../src/records.js";

const ai: LcMessage = {
  lc: 1,
  type: "constructor",
  id: ["langchain_core", "messages", "AIMessage"],
  kwargs: {
    content: "calling",
    id: "ai-1",
    tool_calls: [{ id: "c1", name: "weather", args: { city: "Lisbon" } }],
    invalid_tool_calls: [],
    usage_metadata: { input_tokens: 12, output_tokens: 3, total_tokens: 15 },
    additional_kwargs: {},
    response_metadata: {},
  },
};
const event = {
  content: "calling",
  toolCalls: [{ callId: "c1", tool: "weather", argumentsJson: '{"city":"Lisbon"}' }],
  usage: { inputTokens: 12, outputTokens: 3 },
};

describe("a message's residual", () => {
  it("leaves out what its assistant_message implies, and restores the message exactly", () => {
    const residual = residualOf(ai, "assistant_message", event);
    expect(residual).toEqual({ k: { id: "ai-1" } });
    expect(restore(residual, "calling", undefined, "assistant_message", event)).toEqual(ai);
  });

  it("keeps what differs from the event: a usage with details, a message without invalid_tool_calls", () => {
    const detailed = { ...ai, kwargs: { ...ai.kwargs, usage_metadata: { input_tokens: 12, output_tokens: 3, total_tokens: 15, input_token_details: { cache_read: 8 } } } };
    const residual = residualOf(detailed, "assistant_message", event);
    expect(residual).toEqual({ k: { id: "ai-1", usage_metadata: detailed.kwargs.usage_metadata } });
    expect(restore(residual, "calling", undefined, "assistant_message", event)).toEqual(detailed);

    const { invalid_tool_calls: _dropped, ...kwargs } = ai.kwargs;
    void _dropped;
    const without = { ...ai, kwargs };
    const r2 = residualOf(without, "assistant_message", event);
    expect(r2).toEqual({ k: { id: "ai-1" }, x: ["invalid_tool_calls"] });
    expect(restore(r2, "calling", undefined, "assistant_message", event)).toEqual(without);
  });

  it("is the whole message, less its text, when its class is not the event's (a chunk), and whole when the text differs", () => {
    const chunk = { ...ai, id: ["langchain_core", "messages", "AIMessageChunk"] };
    const { content: _c, ...rest } = chunk.kwargs;
    void _c;
    expect(residualOf(chunk, "assistant_message", event)).toEqual({ ...chunk, kwargs: rest });
    expect(residualOf(ai, "assistant_message", { ...event, content: "scrubbed [REDACTED]" })).toEqual({ k: { id: "ai-1", content: "calling" } });
  });

  it("does not compare offloaded text: the message keeps its content", () => {
    const offloaded = { ...event, content: "call", contentRef: { sha256: "a".repeat(64) } };
    expect(residualOf(ai, "assistant_message", offloaded)).toEqual({ k: { id: "ai-1", content: "calling" } });
  });
});

describe("a message record", () => {
  it("keys by the message's id, without control characters and cut to 512 characters", () => {
    const long = { ...ai, kwargs: { ...ai.kwargs, id: `a\u0085b\u0007${"x".repeat(600)}` } };
    const key = String(messageRecord(long).fields.key);
    expect(key.length).toBe(512);
    expect(key.startsWith("a?b?x")).toBe(true);
    expect(String(messageRecord({ ...ai, kwargs: {} }).fields.key)).toBe("-");
  });
});
