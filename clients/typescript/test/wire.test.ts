import { describe, expect, it } from "vitest";
import * as wire from "../src/wire.js";

/** The services' answers — the real outputs the Java SDK's WireTest reads, and the approval-service's item shape. */
describe("answers", () => {
  it("of a claim, first and resumed", () => {
    expect(wire.claimed(JSON.parse('{"epoch":1,"resumed":false,"reason":null,"lastSeq":4}'), "demo-1", "worker-a")).toMatchObject({
      epoch: 1,
      resumed: false,
      resumeReason: undefined,
      nextSeq: 5,
    });
    expect(wire.claimed(JSON.parse('{"epoch":2,"resumed":true,"reason":"CRASH","lastSeq":6}'), "demo-1", "worker-b")).toMatchObject({
      resumed: true,
      resumeReason: "CRASH",
    });
  });

  it("of a create, a claim and a fork carry the session's start; null, absent or unreadable: undefined", () => {
    const at = "2026-12-06T00:30:00.123Z";
    const claim = (start: string) => wire.claimed(JSON.parse(`{"epoch":1,"resumed":false,"reason":null,"lastSeq":2${start}}`), "demo-1", "worker-a");
    expect(claim(`,"sessionStartedAt":"${at}"`).sessionStartedAt).toEqual(new Date(at));
    expect(claim(`,"sessionStartedAt":"2026-12-06T00:30:00.123999999Z"`).sessionStartedAt?.getTime()).toBe(Date.parse(at)); // below the ms: cut
    expect(claim(`,"sessionStartedAt":null`).sessionStartedAt).toBeUndefined();
    expect(claim("").sessionStartedAt).toBeUndefined();
    expect(claim(`,"sessionStartedAt":"yesterday"`).sessionStartedAt).toBeUndefined();
    expect(claim(`,"sessionStartedAt":null`)).toMatchObject({ epoch: 1, lastSeq: 2 });

    const created = (start: string) => wire.created(JSON.parse(`{"sessionId":"s","seq":1,"harnessVersion":"v1","modelId":"m","redactions":0,"sessionStartedAt":${start}}`));
    expect(created(`"${at}"`).sessionStartedAt).toEqual(new Date(at));
    expect(created("null").sessionStartedAt).toBeUndefined();
    const forked = (start: string) =>
      wire.forked(JSON.parse(`{"sessionId":"f","parentSessionId":"s","atSeq":2,"seq":1,"harnessVersion":"v1","modelId":"m","sessionStartedAt":${start}}`));
    expect(forked(`"${at}"`).sessionStartedAt).toEqual(new Date(at));
    expect(forked("null").sessionStartedAt).toBeUndefined();
  });

  it("of an event keep its envelope and every payload field, frozen", () => {
    const e = wire.event(
      JSON.parse(
        '{"seq":6,"eventId":"d7c3ebe5-48f9-347a-8a76-e96db8508fdb","type":"session_resumed","sessionId":"demo-1","occurredAt":"2026-11-29T10:16:00.986Z",' +
          '"actor":{"kind":"SYSTEM","id":"acme-agent"},"harnessVersion":"v1","reason":"CRASH","fromSeq":4,"reconciliation":"open tool calls: call-1"}',
      ),
    );
    expect(e.seq).toBe(6);
    expect(e.type).toBe("session_resumed");
    expect(e.occurredAt?.toISOString()).toBe("2026-11-29T10:16:00.986Z");
    expect(e.actor).toEqual({ kind: "SYSTEM", id: "acme-agent" });
    expect(e.json.reason).toBe("CRASH");
    expect(e.json.fromSeq).toBe(4);
    expect(Object.isFrozen(e.json)).toBe(true);
    expect(() => wire.event(JSON.parse('{"eventId":"x","type":"t"}'))).toThrow(/no number seq/);
  });

  it("of a checkpoint", () => {
    const c = wire.checkpoint(
      JSON.parse(`{"sessionId":"demo-1","tenantId":"acme","schemaVersion":2,"lastSeq":5,"owner":"acme-agent",
       "objective":"Rename Foo to Bar in src/","constraints":["keep the tests green"],"modelId":"claude-sonnet-4",
       "harnessVersion":"v1","toolMode":"WRITE","status":"ACTIVE","step":0,
       "usedTokens":{"inputTokens":812,"outputTokens":40},"tokenBudget":200000,
       "pendingAction":{"kind":"tool_result","callId":"call-1","sinceSeq":5},
       "toolCursor":[{"callId":"call-1","tool":"read_file","requestSeq":5,"idempotencyKey":"demo-1/5/call-1","state":"REQUESTED","awaitingApproval":false},
                     {"callId":"pay-1","tool":"record_payment","requestSeq":5,"idempotencyKey":"demo-1/8/pay-1","state":"STARTED","awaitingApproval":false,"runBy":"HARNESS","attempt":2}],
       "plan":[{"text":"rename the class","status":"IN_PROGRESS"},{"text":"fix the callers","status":"PENDING"}],
       "progress":{"lastVerifiedStep":0,"stepsCompleted":0},"approvals":[],
       "position":{"partition":1,"firstOffset":0,"lastOffset":6},
       "lease":{"workerId":"worker-a","epoch":1,"harnessVersion":"v1","claimedAt":"2026-11-29T11:15:51.387Z"},
       "decisions":[],"artifacts":[],"callCounts":{"ok":0,"error":0,"cancelled":0,"unknown":0},"updatedAt":"2026-11-29T11:15:51.643Z"}`),
    );
    expect(c.lastSeq).toBe(5);
    expect(c.status).toBe("ACTIVE");
    expect(c.usedTokens).toEqual({ inputTokens: 812, outputTokens: 40 });
    expect(c.tokenBudget).toBe(200000);
    expect(c.pendingAction).toEqual({ kind: "tool_result", callId: "call-1", sinceSeq: 5 });
    expect(c.toolCursor[0]).toMatchObject({ state: "REQUESTED", idempotencyKey: "demo-1/5/call-1", resultSeq: undefined, runBy: "EXECUTOR", attempt: 0 }); // as older projectors answer
    expect(c.toolCursor[1]).toMatchObject({ state: "STARTED", runBy: "HARNESS", attempt: 2 });
    expect(c.plan).toEqual([
      { text: "rename the class", status: "IN_PROGRESS" },
      { text: "fix the callers", status: "PENDING" },
    ]);
    expect(c.lease?.epoch).toBe(1);
    expect(c.progress.lastNote).toBeUndefined();
    expect((c.json.position as { partition: number }).partition).toBe(1);
  });

  it("of a context, in both formats", () => {
    const openai = wire.context(
      JSON.parse(
        '{"format":"openai","messages":[{"role":"system","content":"You are a careful engineer."},{"role":"user","content":"Rename Foo to Bar in src/"}],' +
          '"stablePrefixSize":5,"tokens":298,"tokenizer":"o200k_base","window":200000,"compactionAdvised":false,"atSeq":5}',
      ),
    );
    expect(openai.system).toBeUndefined();
    expect(openai.messages).toHaveLength(2);
    expect((openai.messages[0] as { role: string }).role).toBe("system");
    expect(openai.tokens).toBe(298);
    expect(openai.droppedEvents).toBe(0);
    const anthropic = wire.context(
      JSON.parse(
        '{"format":"anthropic","system":"You are a careful engineer.","messages":[{"role":"user","content":[{"type":"text","text":"Rename Foo"}]}],' +
          '"stablePrefixSize":1,"tokens":308,"tokenizer":"o200k_base","window":200000,"compactionAdvised":true,"atSeq":5,"droppedEvents":3}',
      ),
    );
    expect(anthropic.system).toBe("You are a careful engineer.");
    expect(anthropic.compactionAdvised).toBe(true);
    expect(anthropic.droppedEvents).toBe(3);
    expect(() => wire.context({ format: "openai" })).toThrow(/no messages/);
  });

  it("of a recovery report", () => {
    const r = wire.recovery(
      JSON.parse(`{"identity":{"sessionId":"demo-1","tenantId":"acme","owner":"acme-agent","modelId":"claude-sonnet-4","harnessVersion":"v1","epoch":2,"workerId":"worker-b"},
       "position":{"lastSeq":7,"step":0,"lastVerifiedStep":0,"status":"RECOVERING","lastNote":null},
       "effects":{"confirmed":[],"cancelled":[],"unknown":[],
                  "inFlight":[{"callId":"call-1","tool":"read_file","state":"REQUESTED","requestSeq":5,"resultSeq":null,"idempotencyKey":"demo-1/5/call-1"}],
                  "totals":{"ok":0,"error":0,"cancelled":0,"unknown":0}},
       "authority":{"approvalsInForce":[{"grantSeq":9,"tool":"edit_file","pathGlob":"src/**","approver":"acme-approver"}],"pendingApprovals":[]},
       "nextSafeActions":["call call-1 (read_file) waits for authorization; do not run it before tool_call_authorized"]}`),
    );
    expect(r.identity.workerId).toBe("worker-b");
    expect(r.position.status).toBe("RECOVERING");
    expect(r.effects.inFlight).toEqual([
      { callId: "call-1", tool: "read_file", state: "REQUESTED", requestSeq: 5, resultSeq: undefined, idempotencyKey: "demo-1/5/call-1" },
    ]);
    expect(r.authority.approvalsInForce).toEqual([{ grantSeq: 9, tool: "edit_file", pathGlob: "src/**", approver: "acme-approver" }]);
    expect(r.nextSafeActions).toHaveLength(1);
    expect(r.effects.harnessRun).toEqual([]); // an older projector's report
    const harness = wire.recovery(
      JSON.parse(`{"identity":{"sessionId":"demo-1"},"position":{"lastSeq":9},
       "effects":{"unknown":[{"callId":"pay-1","tool":"record_payment","state":"STARTED","requestSeq":5,"resultSeq":null,"idempotencyKey":"demo-1/5/pay-1"}],
                  "harnessRun":[{"callId":"pay-1","tool":"record_payment","outcome":"UNKNOWN","state":"STARTED","recordedOnly":false,"exactlyOnce":true,
                                 "attempt":1,"startedEpoch":1,"idempotencyKey":"demo-1/5/pay-1"},
                                {"callId":"web-1","tool":"web_search","outcome":"CONFIRMED","state":"OK","recordedOnly":true,"exactlyOnce":false,"attempt":0,"startedEpoch":null}]}}`),
    );
    expect(harness.effects.harnessRun).toEqual([
      { callId: "pay-1", tool: "record_payment", outcome: "UNKNOWN", state: "STARTED", recordedOnly: false, exactlyOnce: true, attempt: 1, startedEpoch: 1, idempotencyKey: "demo-1/5/pay-1" },
      { callId: "web-1", tool: "web_search", outcome: "CONFIRMED", state: "OK", recordedOnly: true, exactlyOnce: false, attempt: 0, startedEpoch: undefined, idempotencyKey: undefined },
    ]);
  });

  it("of approval items, pending and decided", () => {
    const pending = wire.approval(
      JSON.parse(`{"id":"demo-1~7","kind":"APPROVAL","status":"PENDING","sessionId":"demo-1","callId":"call-2","tool":"edit_file",
       "arguments":{"path":"src/Foo.java"},"shown":"--- a/src/Foo.java","seq":7,"requestSeq":6,
       "requestedAt":"2026-11-29T11:20:00Z","requestedBy":"acme-agent","model":"claude-sonnet-4","expiresAt":"2026-11-29T12:20:00Z",
       "decisions":["GRANT_ONCE","GRANT_SESSION","DENY"],"suggestedPathGlob":"src/**","runBy":"HARNESS"}`),
    );
    expect(pending.isPending).toBe(true);
    expect(pending.argumentsJson).toBe('{"path":"src/Foo.java"}');
    expect(pending.decisions).toEqual(["GRANT_ONCE", "GRANT_SESSION", "DENY"]);
    expect(pending.expiresAt?.toISOString()).toBe("2026-11-29T12:20:00.000Z");
    expect(pending.modelId).toBe("claude-sonnet-4");
    expect(pending.decision).toBeUndefined();
    expect(pending.runBy).toBe("HARNESS");
    const granted = wire.approval(
      JSON.parse(`{"id":"demo-1~7","kind":"APPROVAL","status":"GRANTED","sessionId":"demo-1","callId":"call-2","tool":"edit_file",
       "decision":{"decision":"GRANT_SESSION","approver":"acme-approver","reason":"ok","tool":"edit_file","pathGlob":"src/**","seq":8,
                   "decidedAt":"2026-11-29T11:21:00Z"}}`),
    );
    expect(granted.isPending).toBe(false);
    expect(granted.argumentsJson).toBe("{}");
    expect(granted.runBy).toBeUndefined();
    expect(granted.decision).toMatchObject({ decision: "GRANT_SESSION", pathGlob: "src/**", seq: 8 });
  });

  it("of a list without its list are malformed, never an empty list", () => {
    for (const answer of [{}, { sessions: {} }, { sessions: null }]) {
      expect(() => wire.sessionPage(answer)).toThrow(/no list sessions/);
    }
    expect(() => wire.approvalPage({})).toThrow(/no list approvals/);
    expect(() => wire.appended({ lastSeq: 3 }), "an append's answer with no events is not all duplicates").toThrow(/no list appended/);
    expect(() => wire.page({ lastSeq: 3, nextSeq: 4 })).toThrow(/no list events/);
    expect(wire.sessionPage({ sessions: [] }).sessions).toEqual([]);
  });

  it("that are not JSON are malformed", () => {
    expect(() => wire.parseJson("<html>")).toThrow(/not JSON/);
  });
});
