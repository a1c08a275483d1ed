import { describe, expect, it } from "vitest";
import { NewEvent, RetryPolicy, TetherClient } from "../src/index.js";
import { resolveOptions } from "../src/options.js";

describe("the retry policy", () => {
  it("is the Java SDK's: 8 attempts, 0.2 s doubling to 5 s", () => {
    const p = RetryPolicy.defaults();
    expect(p).toEqual({ maxAttempts: 8, initialBackoffMs: 200, maxBackoffMs: 5_000 });
    expect([1, 2, 3, 4, 5, 6, 7].map((f) => RetryPolicy.backoff(p, f))).toEqual([200, 400, 800, 1_600, 3_200, 5_000, 5_000]);
    expect(RetryPolicy.none().maxAttempts).toBe(1);
  });

  it("waits between half and all of the backoff, and at least a Retry-After", () => {
    const p = RetryPolicy.defaults();
    expect(RetryPolicy.delay(p, 3, undefined, () => 0)).toBe(400);
    expect(RetryPolicy.delay(p, 3, undefined, () => 0.999999)).toBe(800);
    expect(RetryPolicy.delay(p, 1, 2_000, () => 0.5)).toBe(2_000);
  });

  it("refuses what makes no sense", () => {
    expect(() => RetryPolicy.of(0, 10, 10)).toThrow(RangeError);
    expect(() => RetryPolicy.of(2, -1, 10)).toThrow(RangeError);
    expect(() => RetryPolicy.of(2, 20, 10)).toThrow(RangeError);
    // a Node timer asked to wait longer fires after 1 ms: the retries would come at once
    expect(() => RetryPolicy.of(2, 20, 2 ** 31)).toThrow(/maxBackoffMs .* at most 2147483647/);
    expect(RetryPolicy.of(2, 20, 2 ** 31 - 1).maxBackoffMs).toBe(2 ** 31 - 1);
    expect(() => RetryPolicy.backoff(RetryPolicy.defaults(), 0)).toThrow(RangeError);
  });
});

describe("the client's options", () => {
  it("default to a local bin/run, strip trailing slashes, and never show the token", () => {
    const o = resolveOptions({ sessionsUrl: "https://sessions.example//", token: "dev-acme-agent" });
    expect(o).toMatchObject({ sessionsUrl: "https://sessions.example", projectorUrl: "http://127.0.0.1:8081", approvalsUrl: "http://127.0.0.1:8082", timeoutMs: 30_000 });
    expect(String(new TetherClient({ token: "secret-token" }))).not.toContain("secret-token");
  });

  it("refuse URLs and tokens the Java SDK refuses", () => {
    for (const url of ["ftp://x", "not a url", "http://x/?q=1", "http://x/#f", "http://user:pw@x"]) {
      expect(() => resolveOptions({ sessionsUrl: url }), url).toThrow(TypeError);
    }
    for (const token of ["", "   ", "has space", "tab\there", "ünïcode"]) {
      expect(() => resolveOptions({ token }), token).toThrow(TypeError);
    }
    expect(() => resolveOptions({ timeoutMs: 0 })).toThrow(RangeError);
  });
});

describe("new events", () => {
  it("have the API's wire shape, and are frozen copies", () => {
    const args = { path: "src/Foo.java" };
    const e = NewEvent.assistantMessage("Reading.", [{ callId: "c1", tool: "read_file", arguments: args }, { callId: "c2", tool: "list_dir" }], {
      inputTokens: 812,
      outputTokens: 40,
    });
    expect(e).toEqual({
      type: "assistant_message",
      fields: {
        content: "Reading.",
        toolCalls: [
          { callId: "c1", tool: "read_file", argumentsJson: '{"path":"src/Foo.java"}' },
          { callId: "c2", tool: "list_dir", argumentsJson: "{}" },
        ],
        usage: { inputTokens: 812, outputTokens: 40 },
      },
    });
    expect(Object.isFrozen(e)).toBe(true);
    const calls = e.fields.toolCalls as { tool: string }[];
    expect(() => void (calls[0]!.tool = "rm_rf"), "frozen at every depth").toThrow(TypeError);
    expect(() => calls.push({ tool: "x" })).toThrow(TypeError);
    args.path = "elsewhere";
    expect(e.fields.toolCalls).toEqual([
      { callId: "c1", tool: "read_file", argumentsJson: '{"path":"src/Foo.java"}' },
      { callId: "c2", tool: "list_dir", argumentsJson: "{}" },
    ]);
    const of = NewEvent.of("plan_updated", { items: [{ text: "a" }] });
    expect(() => void ((of.fields.items as { text: string }[])[0]!.text = "b")).toThrow(TypeError);
    expect(NewEvent.toolResult("c1", "OK")).toEqual({ type: "tool_result", fields: { callId: "c1", status: "OK" } });
    expect(() => NewEvent.of("x", { type: "y" })).toThrow(/not payload fields/);
    expect(() => NewEvent.toolResult(" ", "OK")).toThrow(/blank/);
  });

  it("carry a framework's state as JSON text, checked as the session-service checks it", () => {
    const state = NewEvent.frameworkState("langgraph", "checkpoint", '["","cp-1"]', '{"v":1,"versions_seen":{}}');
    expect(state).toEqual({
      type: "framework_state",
      fields: { framework: "langgraph", kind: "checkpoint", key: '["","cp-1"]', content: '{"v":1,"versions_seen":{}}' },
    });
    expect(Object.isFrozen(state)).toBe(true);
    expect(NewEvent.frameworkState("openai-agents", "session.items", "k", { items: [{ role: "user", content: "hi" }], n: null }).fields.content)
      .toBe('{"items":[{"role":"user","content":"hi"}],"n":null}');
    expect(NewEvent.frameworkState("langgraph", "writes", "k".repeat(512), '"done"').fields.content).toBe('"done"');
    expect(NewEvent.frameworkState("a".repeat(64), "0", "ключ 🔑", "null").fields.kind).toBe("0");

    for (const bad of ["", "LangGraph", "-x", ".x", "lang graph", "a".repeat(65), "é"]) {
      expect(() => NewEvent.frameworkState(bad, "checkpoint", "k", "{}"), bad).toThrow(/framework must be/);
      expect(() => NewEvent.frameworkState("langgraph", bad, "k", "{}"), bad).toThrow(/kind must be/);
    }
    for (const bad of ["", "k".repeat(513)]) {
      expect(() => NewEvent.frameworkState("langgraph", "checkpoint", bad, "{}")).toThrow(/key must be 1-512/);
    }
    for (const bad of ["a\nb", "nul\u0000", "del\u007f", "c1\u0085"]) {
      expect(() => NewEvent.frameworkState("langgraph", "checkpoint", bad, "{}")).toThrow(/control characters/);
    }
    for (const bad of ["", "{", "{a:1}", "[1,]", "'x'", "NaN", "{} {}", "done"]) {
      expect(() => NewEvent.frameworkState("langgraph", "checkpoint", "k", bad), bad).toThrow(/content must be JSON text/);
    }
  });
});
