/**
 * An OpenAI Agents SDK agent in processes of its own (test/support/travel-agent.mjs: the SDK's Runner, a scripted model,
 * two function tools run through Tether and one it records) keeping its history in a TetherSession on the real stack
 * (clients/typescript/test/real-stack.global.ts): a tool that needs approval interrupts the run, the process saves the
 * state and exits, an approver grants the call through Tether's approval API, and a new process takes the run up
 * without asking again; SIGKILLed during the model call, before a booking and after it before its output — each time a
 * new process resumes from Tether alone, with exactly one booking per call in a counting booking service keyed by the
 * idempotency key, the recovery report saying what is unknown meanwhile, and no item twice in the final history.
 */
import { spawn } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { ApprovalDecision, ReadAt, type SessionEvent, type TetherClient } from "@tether/client";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { BookingService } from "../../../clients/typescript/test/booking-service.js";
import { stackClient } from "./it-client.js";

const AGENT = join(dirname(fileURLToPath(import.meta.url)), "support/travel-agent.mjs");
const RUN = Math.random().toString(16).slice(2, 8);

let agent: TetherClient;
let approver: TetherClient;
let booking: BookingService;

beforeAll(async () => {
  agent = stackClient("dev-acme-agent");
  approver = stackClient("dev-acme-approver");
  booking = await BookingService.start();
});

afterAll(async () => {
  await agent?.close();
  await approver?.close();
  await booking?.stop();
});

describe("an OpenAI Agents SDK agent on TetherSession", () => {
  it("stops for the approval of a booking; granted through Tether, a new process runs the call once without asking again", async () => {
    const sessionId = `oa-approval-${RUN}`;
    const first = await travel({ sessionId, input: "Book me a flight to Lisbon" });
    expect(first.code, first.output).toBe(0);
    expect(first.last).toMatchObject({ event: "interrupted", calls: ["call-book-0"] });
    expect(booking.forThread(sessionId)).toHaveLength(0);

    const item = await pendingApproval(sessionId, "call-book-0");
    expect(item.tool).toBe("book_flight");
    expect((await approver.decide(item.id, ApprovalDecision.grantOnce("fine"))).kind).toBe("decided");

    const second = await travel({ sessionId });
    expect(second.code, second.output).toBe(0);
    expect(second.last.event, second.output).toBe("done");
    expect(booking.forThread(sessionId)).toHaveLength(1);
    await expectFinalHistory(sessionId, second.last);
    const log = (await agent.allEvents(sessionId))!;
    expect(log.filter((e) => e.type === "approval_requested"), "asked once").toHaveLength(1);
  });

  it("a booking the approver denies through Tether is rejected in the run a new process takes up; it never runs", async () => {
    const sessionId = `oa-denied-${RUN}`;
    const first = await travel({ sessionId, input: "Book me a flight to Lisbon" });
    expect(first.last).toMatchObject({ event: "interrupted", calls: ["call-book-0"] });
    const item = await pendingApproval(sessionId, "call-book-0");
    expect((await approver.decide(item.id, ApprovalDecision.deny("not this week"))).kind).toBe("decided");

    const second = await travel({ sessionId });
    expect(second.last.event, second.output).toBe("done");
    expect(booking.forThread(sessionId)).toHaveLength(0);
    const log = (await agent.allEvents(sessionId))!;
    expect(log.filter((e) => e.type === "tool_call_started" && e.json.callId === "call-book-0")).toHaveLength(0);
    const result = log.find((e) => e.type === "tool_result" && e.json.callId === "call-book-0")!;
    expect(result.json.status).toBe("ERROR"); // the approval-service's answer to a denial
    const items = second.last.items as Record<string, unknown>[];
    expect(items.filter((i) => i.type === "function_call_result" && i.callId === "call-book-0")).toHaveLength(1);
  });

  for (const killAt of ["before-effect", "after-effect"] as const) {
    it(`SIGKILLed ${killAt === "before-effect" ? "before the booking" : "after the booking, before its output"}: a new process resumes with one booking`, async () => {
      const sessionId = `oa-kill-${killAt}-${RUN}`;
      const first = await travel({ sessionId, input: "Book me a flight to Lisbon" });
      expect(first.last).toMatchObject({ event: "interrupted" });
      const item = await pendingApproval(sessionId, "call-book-0");
      await approver.decide(item.id, ApprovalDecision.grantOnce("fine"));

      const killed = await travel({ sessionId, killAt });
      expect(killed.signal, killed.output).toBe("SIGKILL");
      expect(killed.last).toMatchObject({ event: "killing", where: killAt });
      // meanwhile the recovery report, once its checkpoint has folded the whole log, knows the booking started and has no result
      const report = (await agent.recovery(sessionId, ReadAt.atLeast((await agent.allEvents(sessionId))!.at(-1)!.seq)))!;
      const harness = (report.json.effects as { harnessRun?: { callId: string; outcome: string }[] }).harnessRun ?? [];
      expect(harness.find((c) => c.callId === "call-book-0")?.outcome, JSON.stringify(report.json.effects)).toBe("UNKNOWN");
      expect(booking.forThread(sessionId)).toHaveLength(killAt === "after-effect" ? 1 : 0);

      const resumed = await travel({ sessionId });
      expect(resumed.code, resumed.output).toBe(0);
      expect(resumed.last.event, resumed.output).toBe("done");
      expect(booking.forThread(sessionId), "one booking, whatever the crash").toHaveLength(1);
      await expectFinalHistory(sessionId, resumed.last);
      const log = (await agent.allEvents(sessionId))!;
      const starts = log.filter((e) => e.type === "tool_call_started" && e.json.callId === "call-book-0").map((e) => e.json.attempt);
      expect(starts).toEqual(killAt === "before-effect" ? [1, 2] : [1]);
    });
  }

  it("SIGKILLed during the model call: a new process continues the conversation from its history", async () => {
    const sessionId = `oa-kill-model-${RUN}`;
    const input = "Book me a flight to Lisbon"; // the application keeps its user's message until the history has it
    const killed = await travel({ sessionId, input, killAt: "model-call" });
    expect(killed.signal, killed.output).toBe("SIGKILL");
    const resumed = await travel({ sessionId, input });
    expect(resumed.last).toMatchObject({ event: "interrupted", calls: ["call-book-0"] });
    const item = await pendingApproval(sessionId, "call-book-0");
    await approver.decide(item.id, ApprovalDecision.grantOnce("fine"));
    const done = await travel({ sessionId, input });
    expect(done.last.event, done.output).toBe("done");
    expect(booking.forThread(sessionId)).toHaveLength(1);
    await expectFinalHistory(sessionId, done.last);
  });
});

/** The final history: the user's message once, every call and result once, the final answer; the log agrees. */
async function expectFinalHistory(sessionId: string, done: Record<string, unknown>) {
  const items = done.items as Record<string, unknown>[];
  const keys = items.map((i) => (typeof i.callId === "string" ? `${String(i.type)}:${i.callId}` : JSON.stringify(i)));
  expect(new Set(keys).size, `no item twice: ${keys.join(", ")}`).toBe(keys.length);
  expect(items.filter((i) => i.role === "user")).toHaveLength(1);
  expect(items.filter((i) => i.type === "function_call").map((i) => i.name)).toEqual(["book_flight", "weather", "note_down"]);
  expect(items.filter((i) => i.type === "function_call_result")).toHaveLength(3);
  expect(done.output).toBe("Booked your flight to Lisbon; it will be sunny.");
  const log: readonly SessionEvent[] = (await agent.allEvents(sessionId))!;
  for (const callId of ["call-book-0", "call-weather-1", "call-note-2"]) {
    expect(log.filter((e) => e.type === "tool_result" && e.json.callId === callId), callId).toHaveLength(1);
  }
}

/** The pending approval item of a call, once the approval-service has made it. */
async function pendingApproval(sessionId: string, callId: string) {
  for (let i = 0; i < 240; i++) {
    const item = (await approver.approvals()).find((a) => a.sessionId === sessionId && a.callId === callId);
    if (item !== undefined) {
      return item;
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`no pending approval for ${callId} of ${sessionId}`);
}

interface TravelEnd {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly last: Record<string, unknown>;
  readonly output: string;
}

/** Runs the agent's process once, to its end (SIGKILLed after 8 minutes at most). */
function travel(config: { sessionId: string; input?: string; killAt?: string }): Promise<TravelEnd> {
  const child = spawn(
    process.execPath,
    [AGENT, JSON.stringify({ ...inject("tether"), token: "dev-acme-agent", workerId: `travel-${process.pid}`, bookingUrl: booking.url, ...config })],
    { stdio: ["ignore", "pipe", "pipe"] },
  );
  let output = "";
  child.stdout.on("data", (c: Buffer) => (output += c.toString()));
  child.stderr.on("data", (c: Buffer) => (output += c.toString()));
  const timer = setTimeout(() => child.kill("SIGKILL"), 480_000);
  return new Promise((resolve) =>
    child.once("exit", (code, signal) => {
      clearTimeout(timer);
      const events = output.split("\n").filter((l) => l.startsWith("{")).map((l) => JSON.parse(l) as Record<string, unknown>);
      resolve({ code, signal, last: events.at(-1) ?? {}, output });
    }),
  );
}
