import { describe, expect, it } from "vitest";
import { MalformedAnswerError, NewEvent, type JsonValue } from "../src/index.js";
import { resolveOptions } from "../src/options.js";
import { json, quietStream, withFakeServer } from "./fake-server.js";

/**
 * Values a JavaScript caller can pass where the SDK wants JSON or a number, typed loosely (`as never`): each is refused
 * before anything is sent, with the field named — never written as something else (a Date as `{}`), never a stack
 * overflow, never a request the service gets with a value it did not ask for.
 */
const fake = withFakeServer();

const cyclic: Record<string, unknown> = { a: 1 };
cyclic.self = cyclic;

describe("values JSON has no text for", () => {
  const bad: [string, unknown, RegExp][] = [
    ["a Date", new Date(0), /at: .*Date/],
    ["a Uint8Array", new Uint8Array([1, 2]), /at: .*Uint8Array/],
    ["a Map", new Map([["k", 1]]), /at: .*Map/],
    ["a BigInt", 10n, /at: .*bigint/],
    ["a cyclic object", cyclic, /at\.self: .*cycl/],
    ["a function", () => 1, /at: .*function/],
    ["NaN", Number.NaN, /at: .*NaN/],
    ["undefined in an array", [1, undefined], /at\[1\]: .*undefined/],
  ];

  for (const [what, value, message] of bad) {
    it(`refuse ${what} in an event's fields, naming the field, when the event is built`, () => {
      expect(() => NewEvent.of("custom_event", { at: value as JsonValue }), what).toThrow(message);
    });
  }

  it("refuse a Date in a tool call's arguments, naming the call", () => {
    expect(() =>
      NewEvent.assistantMessage("x", [{ callId: "c1", tool: "book", arguments: { when: new Date(0) as never } }]),
    ).toThrow(/toolCalls\[0\]\.arguments\.when: .*Date/);
  });

  it("refuse a framework_state content that is a Date or cyclic, naming content", () => {
    expect(() => NewEvent.frameworkState("langgraph", "checkpoint", "k", { at: new Date(0) } as never)).toThrow(/content\.at: .*Date/);
    expect(() => NewEvent.frameworkState("langgraph", "checkpoint", "k", cyclic as never)).toThrow(/content\.self: .*cycl/);
  });

  it("still accept plain JSON, objects without a prototype included", () => {
    const bare = Object.assign(Object.create(null) as Record<string, JsonValue>, { a: [1, "two", null, true, { b: -0 }] });
    expect(NewEvent.of("custom_event", { bare }).fields.bare).toEqual({ a: [1, "two", null, true, { b: -0 }] });
  });
});

describe("token counts", () => {
  it("are whole, non-negative numbers: NaN, fractions and unsafe integers are refused, naming the count", () => {
    for (const n of [Number.NaN, 1.5, 2 ** 60, Number.POSITIVE_INFINITY]) {
      expect(() => NewEvent.assistantMessage("x", [], { inputTokens: n, outputTokens: 0 }), String(n)).toThrow(/inputTokens/);
      expect(() => NewEvent.assistantMessage("x", [], { inputTokens: 0, outputTokens: n }), String(n)).toThrow(/outputTokens/);
    }
  });
});

describe("steps and seqs", () => {
  it("start at 1 and are whole: a fraction, NaN or 0 is refused here, naming it, not sent for the service to refuse", () => {
    for (const n of [0, 1.5, Number.NaN]) {
      expect(() => NewEvent.stepCompleted(n, "done", true), String(n)).toThrow(/step starts at 1/);
      expect(() => NewEvent.contextCompacted(n, "summary", []), String(n)).toThrow(/throughSeq starts at 1/);
      expect(() => NewEvent.contextCompacted(5, "summary", [1, n]), String(n)).toThrow(/summarySourceSeqs\[1\] starts at 1/);
    }
    expect(NewEvent.stepCompleted(2, "done", true).fields.step).toBe(2);
    expect(NewEvent.contextCompacted(5, "summary", [1, 2]).fields.summarySourceSeqs).toEqual([1, 2]);
  });
});

describe("the request timeout", () => {
  it("is refused above what a Node timer can wait, instead of firing after 1 ms", () => {
    expect(() => resolveOptions({ timeoutMs: 2 ** 31 })).toThrow(/timeoutMs/);
    expect(resolveOptions({ timeoutMs: 2 ** 31 - 1 }).timeoutMs).toBe(2 ** 31 - 1);
  });
});

describe("awaitEvent's and awaitDecision's timeouts", () => {
  it("awaitEvent waits past 2^31 ms and for ever instead of giving up at once", async () => {
    fake.server.otherwise(quietStream());
    const waits = [2 ** 31, Number.POSITIVE_INFINITY].map((timeoutMs) => fake.client.awaitEvent("s", 1, () => false, timeoutMs));
    const ended = waits.map((w) => w.then(() => "ended", () => "ended"));
    const first = await Promise.all(ended.map((e) => Promise.race([e, new Promise((resolve) => setTimeout(() => resolve("waiting"), 300))])));
    expect(first).toEqual(["waiting", "waiting"]);
    await fake.client.close(); // ends them: their subscriptions closed with the client
    for (const w of waits) {
      await expect(w).rejects.toThrow(/closed/);
    }
  });

  it("refuse NaN or a negative timeout before anything is sent (awaitDecision polled every millisecond for ever)", async () => {
    fake.server.otherwise(json(200, '{"id":"s~7","kind":"APPROVAL","status":"PENDING","sessionId":"s","callId":"c","tool":"t"}'));
    for (const timeoutMs of [Number.NaN, -1]) {
      await expect(fake.client.awaitDecision("s~7", timeoutMs), String(timeoutMs)).rejects.toThrow(/timeoutMs/);
      await expect(fake.client.awaitEvent("s", 1, () => true, timeoutMs), String(timeoutMs)).rejects.toThrow(/timeoutMs/);
    }
    expect(fake.server.seen).toHaveLength(0);
  });
});

describe("ids that are dot segments", () => {
  it("are refused: '.' and '..' in a path would address another resource", async () => {
    await expect(fake.client.call("s", "..")).rejects.toThrow(TypeError);
    await expect(fake.client.approval(".")).rejects.toThrow(TypeError);
    await expect(fake.client.eraseSession("..")).rejects.toThrow(TypeError);
    expect(fake.server.seen).toHaveLength(0);
  });

  it("are kept apart from ids that merely contain dots", async () => {
    fake.server.otherwise(json(404, '{"error":"not_found","message":"no"}'));
    expect(await fake.client.call("s", "call...1")).toBeUndefined();
    expect(fake.server.seen.map((r) => r.path)).toEqual(["/v1/sessions/s/calls/call...1"]);
  });
});

describe("lists given as something else", () => {
  it("are refused, naming the field, not failed on with `.map is not a function`", async () => {
    const session = { objective: "Rename Foo", toolMode: "WRITE" } as const;
    await expect(fake.client.createSession({ ...session, constraints: "keep the tests green" as never })).rejects.toThrow(
      /^constraints must be an array, not string$/,
    );
    await expect(fake.client.createSession({ ...session, harnessTools: { name: "book" } as never })).rejects.toThrow(
      /^harnessTools must be an array, not object$/,
    );
    await expect(fake.client.createSession({ ...session, constraints: ["ok", 7 as never] })).rejects.toThrow(/^constraints\[1\] must be a string$/);
    expect(fake.server.seen).toHaveLength(0);
  });
});

describe("a NewEvent built by hand", () => {
  it("with type or eventId among its fields is refused before anything is sent: they would replace its own", async () => {
    for (const fields of [{ type: "session_claimed", content: "x" }, { eventId: "someone-elses", content: "x" }]) {
      await expect(fake.client.append("s", { step: "forged", events: [{ type: "user_message", fields }] }), JSON.stringify(fields))
        .rejects.toThrow(/events\[0\]: type and eventId are not payload fields/);
    }
    expect(fake.server.seen).toHaveLength(0);
  });
});

describe("an append's answer", () => {
  it("that does not name each event sent, in order, is malformed, never read as the batch in the log", async () => {
    const batch = { step: "s1", events: [NewEvent.userMessage("a"), NewEvent.userMessage("b")] };
    for (const appended of ["[]", '[{"eventId":"other","seq":4,"duplicate":true},{"eventId":"x","seq":5,"duplicate":true}]']) {
      fake.server.next(json(200, `{"appended":${appended},"lastSeq":5,"redactions":0}`));
      await expect(fake.client.append("s", batch), appended).rejects.toThrow(MalformedAnswerError);
    }
  });
});
