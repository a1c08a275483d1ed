import { describe, expect, it } from "vitest";
import { EventTexts, offloadedSha, type SessionEvent } from "../src/index.js";

function event(type: string, json: Record<string, unknown>): SessionEvent {
  return { seq: 1, eventId: "e", type, sessionId: "s", occurredAt: undefined, actor: { kind: "MODEL", id: "a" }, harnessVersion: undefined, json: { type, ...json } };
}

describe("EventTexts", () => {
  const sha = "b".repeat(64);

  it("gives an inline text as it is, a compaction's summary, and an offloaded one from its blob, read once", async () => {
    const reads: string[] = [];
    const texts = new EventTexts({ artifactText: async (s) => (reads.push(s), "the whole text") });
    expect(await texts.of(event("user_message", { content: "hi" }))).toBe("hi");
    expect(await texts.of(event("context_compacted", { summary: "so far" }))).toBe("so far");
    const offloaded = event("tool_result", { content: "the who", artifact: { uri: "x", sha256: sha, size: 14 } });
    expect(offloadedSha(offloaded)).toBe(sha);
    expect(await texts.of(offloaded)).toBe("the whole text");
    expect(await texts.of(offloaded)).toBe("the whole text");
    expect(reads).toEqual([sha]);
    expect(await texts.of(event("session_claimed", {}))).toBeUndefined();
  });

  it("says so when a blob an event refers to is not there", async () => {
    const texts = new EventTexts({ artifactText: async () => undefined });
    await expect(texts.of(event("user_message", { content: "p", contentRef: { sha256: sha } }))).rejects.toThrow(/not there/);
  });
});
