import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import {
  EVENT_ID_NAMESPACE,
  HarnessTool,
  HarnessToolRunner,
  NewEvent,
  Reconciliation,
  ToolOutput,
  eventIdOf,
  eventIdsOf,
  nameBasedUuid,
  type NewSession,
} from "../src/index.js";
import { withFakeServer, json } from "./fake-server.js";
import { FakeSessionLog } from "./fake-session-log.js";

/** Computed by the Java SDK's own code (test/golden/GenerateGolden.java): the TypeScript SDK must derive the same ids. */
const golden = JSON.parse(readFileSync(new URL("./golden/event-ids.golden.json", import.meta.url), "utf8")) as {
  namespace: string;
  appends: { sessionId: string; stepKey: string; index: number; eventId: string }[];
  creates: { request: NewSession & { sessionId: string }; body: string; eventId: string }[];
  harnessRuns: { name: string; sessionId: string; log: Record<string, unknown>[]; reconciliation?: string; appends: string[]; result: string }[];
};

describe("eventIds", () => {
  it("are the Java SDK's for the same session, step and index", () => {
    expect(EVENT_ID_NAMESPACE).toBe(golden.namespace);
    expect(golden.appends.length).toBeGreaterThan(10);
    for (const g of golden.appends) {
      expect(eventIdOf(g.sessionId, g.stepKey, g.index), `${g.sessionId}/${g.stepKey}/${g.index}`).toBe(g.eventId);
    }
  });

  it("include the values cross-checked with Python's uuid.uuid3", () => {
    expect(eventIdOf("demo-1", "turn-3", 0)).toBe("06d08208-279b-3a4c-a53d-746a738ec850");
    expect(eventIdOf("demo-1", "turn-3", 1)).toBe("6f17bec5-4bcb-34c4-803e-e840a0780bcf");
    // RFC 4122's example namespace: uuid.uuid3(NAMESPACE_DNS, "python.org")
    expect(nameBasedUuid("6ba7b810-9dad-11d1-80b4-00c04fd430c8", "python.org")).toBe("6fa459ea-ee8a-3ca4-894e-db77e160355e");
  });

  it("differ for another session, step or index", () => {
    const ids = new Set<string>();
    for (const session of ["s1", "s2"]) {
      for (const step of ["turn-1", "turn-2", "turn-1/result"]) {
        for (let i = 0; i < 5; i++) {
          ids.add(eventIdOf(session, step, i));
        }
      }
    }
    expect(ids.size).toBe(2 * 3 * 5);
  });

  it("refuse what could make two names alike, as the Java SDK does", () => {
    expect(() => eventIdOf("a/b", "c", 0)).toThrow(/'\/'/);
    expect(() => eventIdOf("s", "step", -1)).toThrow(TypeError);
    expect(() => eventIdOf("s", "step", 1.5)).toThrow(TypeError);
    expect(() => eventIdOf("s", " \t\u2003", 0)).toThrow(/blank/);
    expect(() => eventIdOf("", "step", 0)).toThrow(/blank/);
    // Java's isBlank does not count a non-breaking space as blank, so neither SDK refuses it (the golden has its id)
    expect(eventIdOf("demo-1", "\u00A0", 0)).toBe(golden.appends.find((g) => g.stepKey === "\u00A0")!.eventId);
  });

  it("of a batch are derived from its step, except where an event fixes its own", () => {
    const batch = {
      step: "turn-3",
      events: [NewEvent.userMessage("a"), NewEvent.withEventId(NewEvent.userMessage("b"), "fixed-id"), NewEvent.userMessage("c")],
    };
    expect(eventIdsOf("demo-1", batch)).toEqual([eventIdOf("demo-1", "turn-3", 0), "fixed-id", eventIdOf("demo-1", "turn-3", 2)]);
    expect(() => eventIdsOf("demo-1", { step: "turn-4", events: [] })).toThrow(/at least one event/);
  });
});

describe("a create", () => {
  const fake = withFakeServer();

  it("sends the Java SDK's bytes and eventId for the same request (Jackson's escapes, Java's UTF-8)", async () => {
    fake.server.otherwise(json(201, '{"sessionId":"x","seq":1,"harnessVersion":"v1","modelId":"m","redactions":0}'));
    expect(golden.creates.length).toBeGreaterThanOrEqual(6);
    for (const [i, g] of golden.creates.entries()) {
      await fake.client.createSession(g.request);
      const sent = fake.server.seen[i]!;
      expect(JSON.parse(sent.body).eventId, g.request.sessionId).toBe(g.eventId);
      expect(sent.bytes.equals(Buffer.from(g.body, "utf8")), `${g.request.sessionId}: ${sent.body} vs ${g.body}`).toBe(true);
    }
  });
});

describe("a harness-run call", () => {
  const fake = withFakeServer();
  /** The Java class names of the results GenerateGolden recorded, as the TypeScript runner's kinds. */
  const kinds: Record<string, string> = { ToolCompleted: "completed", ToolOutcomeUnknown: "outcome_unknown" };

  it("sends the Java runner's appends, byte for byte, from the same log: the same eventIds, derived from the attempt's key", async () => {
    expect(golden.harnessRuns.map((r) => r.name)).toEqual([
      "runs-an-authorized-call",
      "reconciles-as-no-effect-then-runs-attempt-2",
      "reconciles-as-took-effect",
      "reconciles-as-cannot-tell",
    ]);
    for (const g of golden.harnessRuns) {
      const log = new FakeSessionLog(g.sessionId, fake.server);
      log.replaceWith(g.log);
      const sentBefore = fake.server.seen.length;
      const [kind, reason] = (g.reconciliation ?? "cannot_tell:unused").split(/:(.*)/s) as [string, string];
      const found =
        kind === "no_effect" ? Reconciliation.noEffect(reason) : kind === "took_effect" ? Reconciliation.tookEffect(ToolOutput.ok(reason)) : Reconciliation.cannotTell(reason);
      // claimed as GenerateGolden.java claims, without the session start, so that the appends match its recorded bytes
      const runner = new HarnessToolRunner(fake.client, log.claimed({ withStart: false }), {
        tools: [{ tool: HarnessTool.mutating("record_payment", { reconcilable: true }), run: (call) => ToolOutput.ok(`paid under ${call.idempotencyKey}`), reconcile: () => found }],
      });

      const result = await runner.run(2, "c1", 0);

      expect(result.kind, g.name).toBe(kinds[g.result]);
      const appends = fake.server.seen.slice(sentBefore).filter((r) => r.method === "POST");
      expect(appends.map((r) => r.body), g.name).toEqual(g.appends);
      for (const [i, sent] of appends.entries()) {
        expect(sent.bytes.equals(Buffer.from(g.appends[i]!, "utf8")), g.name).toBe(true);
      }
    }
  });
});
