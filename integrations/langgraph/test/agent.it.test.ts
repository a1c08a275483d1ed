/**
 * A real LangGraph.js agent in processes of its own (test/support/travel-worker.mjs: a StateGraph, a scripted chat
 * model, LangGraph's ToolNode with two harness-run tools and one recorded-only tool) on the real stack
 * (test/real-stack.global.ts): SIGKILLed mid-run and resumed by a new process from Tether alone, with
 * exactly one booking per call in a counting booking service keyed by the idempotency key; a call waiting for an
 * approver interrupts the graph and goes on once the approver grants it through Tether's approval API; and two
 * processes writing one thread, of which the one that claimed it first is fenced, the thread's checkpoints one chain.
 */
import { spawn } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { ApprovalDecision, type TetherClient } from "@tether/client";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { BookingService } from "../../../clients/typescript/test/booking-service.js";
import { stackClient } from "./it-client.js";

const WORKER = join(dirname(fileURLToPath(import.meta.url)), "support/travel-worker.mjs");
const PREFIX = `lg-it-${Math.random().toString(16).slice(2, 8)}-`;

let agent: TetherClient;
let approver: TetherClient;
let booking: BookingService;

beforeAll(async () => {
  agent = stackClient("dev-acme-agent");
  approver = stackClient("dev-acme-approver");
  booking = await BookingService.start();
}, 600_000);

afterAll(async () => {
  await agent?.close();
  await approver?.close();
  await booking?.stop();
}, 300_000);

describe("a LangGraph agent in a process of its own, on TetherSaver", () => {
  for (const killAt of ["model-call", "before-effect", "after-effect"] as const) {
    it(`SIGKILLed at ${killAt} resumes in a new process from Tether alone, with one booking`, async () => {
      const threadId = `kill-${killAt}`;
      const approvals = autoApprove(PREFIX + threadId);
      try {
        const killed = await worker({ threadId, action: "turn", input: "Book me a flight to Lisbon", killAt });
        expect(killed.signal, killed.output).toBe("SIGKILL");
        expect(killed.events.at(-1)).toMatchObject({ event: "killing", where: killAt });

        const resumed = await worker({ threadId, action: "continue" });
        expect(resumed.code, resumed.output).toBe(0);
        const done = resumed.events.at(-1)!;
        expect(done.event).toBe("done");
        const messages = done.messages as { type: string; content: string; id: string }[];
        expect(messages.at(-1)!.content).toBe("Booked your flight to Lisbon; it will be sunny.");
        expect(new Set(messages.map((m) => m.id)).size, "no message twice").toBe(messages.length);
        expect(messages.map((m) => m.type)).toEqual(["human", "ai", "tool", "ai", "tool", "ai", "tool", "ai"]);
      } finally {
        await approvals.stop();
      }
      const bookings = booking.forThread(PREFIX + threadId);
      expect(bookings, "one booking, whatever the crash").toHaveLength(1);

      const log = (await agent.allEvents(PREFIX + threadId))!;
      const results = (callId: string) => log.filter((e) => e.type === "tool_result" && e.json.callId === callId);
      expect(results("call-book-0")).toHaveLength(1);
      expect(results("call-book-0")[0]!.json.status).toBe("OK");
      expect(results("call-weather-1")).toHaveLength(1);
      expect(results("call-note-2"), "the recorded-only tool's result, as the saver recorded it").toHaveLength(1);
      expect(log.filter((e) => e.type === "user_message")).toHaveLength(1);
      expect(log.filter((e) => e.type === "assistant_message")).toHaveLength(4);
      if (killAt === "before-effect") {
        // the first attempt provably had no effect: the worker's RETRY, then a second attempt under a new key
        expect(log.filter((e) => e.type === "tool_call_started" && e.json.callId === "call-book-0").map((e) => e.json.attempt)).toEqual([1, 2]);
        expect(log.some((e) => e.type === "tool_outcome_resolved" && e.json.resolution === "RETRY")).toBe(true);
      } else if (killAt === "after-effect") {
        expect(log.filter((e) => e.type === "tool_call_started" && e.json.callId === "call-book-0")).toHaveLength(1);
      }
      const report = (await agent.recovery(PREFIX + threadId))!;
      expect(report.json.effects, JSON.stringify(report.json)).toBeDefined();
    }, 600_000);
  }

  it("a call an approver has not decided interrupts the graph; granted through the approval API, a new process runs it once", async () => {
    const threadId = "approval";
    const first = await worker({ threadId, action: "turn", input: "Book me a flight to Lisbon", authorizationTimeoutMs: 2_000 });
    expect(first.code, first.output).toBe(0);
    const interrupted = first.events.at(-1)!;
    expect(interrupted.event).toBe("interrupted");
    const payload = (interrupted.interrupts as Record<string, unknown>[])[0]!;
    expect(payload).toMatchObject({ tether: "approval", sessionId: PREFIX + threadId, callId: "call-book-0", tool: "book_flight" });
    expect(booking.forThread(PREFIX + threadId)).toHaveLength(0);

    const approvalId = payload.approvalId as string;
    const item = (await approver.approval(approvalId))!;
    expect(item).toMatchObject({ isPending: true, callId: "call-book-0", tool: "book_flight" });
    expect(item.shown).toContain("Lisbon");
    expect((await approver.decide(approvalId, ApprovalDecision.grantOnce("fine"))).kind).toBe("decided");

    const approvals = autoApprove(PREFIX + threadId); // nothing else is gated; a safety net, should the script change
    try {
      const resumed = await worker({ threadId, action: "resume" });
      expect(resumed.code, resumed.output).toBe(0);
      expect(resumed.events.at(-1)!.event).toBe("done");
    } finally {
      await approvals.stop();
    }
    expect(booking.forThread(PREFIX + threadId)).toHaveLength(1);
  }, 600_000);

  it("two processes writing one thread: the first is fenced once the second claims it, and the checkpoints stay one chain", async () => {
    const threadId = "two-writers";
    const approvals = autoApprove(PREFIX + threadId);
    try {
      const first = start({ threadId, action: "two-turns", input: "Book me a flight to Lisbon", workerId: "writer-a" });
      await first.until((e) => e.event === "ready");
      const second = await worker({ threadId, action: "turn", input: "What about the weather?", workerId: "writer-b" });
      expect(second.code, second.output).toBe(0);
      first.send("go\n");
      const firstEnd = await first.ended;
      const error = firstEnd.events.at(-1)!;
      expect(firstEnd.code, firstEnd.output).toBe(3);
      expect(error.event, firstEnd.output).toBe("error");
      expect(error.name).toBe("ThreadTakenOverError");
      expect(String(error.message)).toContain("claimed by another writer");
    } finally {
      await approvals.stop();
    }
    const log = (await agent.allEvents(PREFIX + threadId))!;
    const claims = log.filter((e) => e.type === "session_claimed").map((e) => e.json.workerId);
    expect(claims).toEqual(["writer-a", "writer-b"]);
    // every checkpoint's parent is the checkpoint written before it: no fork
    const records = log
      .filter((e) => e.type === "framework_state" && e.json.kind === "checkpoint")
      .map((e) => JSON.parse(String(e.json.content)) as { id: string; parent: string | null; ns?: string })
      .filter((r) => (r.ns ?? "") === "");
    expect(records.length).toBeGreaterThan(8);
    records.forEach((r, i) => expect(r.parent, `checkpoint ${i}`).toBe(i === 0 ? null : records[i - 1]!.id));
    // nothing writer-a sent after writer-b's claim is in the log
    const secondClaim = log.find((e) => e.type === "session_claimed" && e.json.workerId === "writer-b")!.seq;
    expect(log.filter((e) => e.seq > secondClaim && e.type === "user_message").map((e) => e.json.content)).toEqual(["What about the weather?"]);
  }, 600_000);
});

// --- the worker process --------------------------------------------------------------------------------------------

interface WorkerConfig {
  readonly threadId: string;
  readonly action: "turn" | "resume" | "continue" | "two-turns";
  readonly input?: string;
  readonly killAt?: string;
  readonly workerId?: string;
  readonly authorizationTimeoutMs?: number;
}

interface WorkerEnd {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly events: Record<string, unknown>[];
  readonly output: string;
}

function start(config: WorkerConfig) {
  const child = spawn(
    process.execPath,
    [WORKER, JSON.stringify({ ...inject("tether"), token: "dev-acme-agent", threadPrefix: PREFIX, workerId: "travel-worker", bookingUrl: booking.url, ...config })],
    { stdio: ["pipe", "pipe", "pipe"] },
  );
  let output = "";
  const events: Record<string, unknown>[] = [];
  const waiters: (() => void)[] = [];
  child.stdout.on("data", (chunk: Buffer) => {
    output += chunk.toString();
    const lines = output.split("\n");
    events.length = 0;
    for (const line of lines) {
      if (line.startsWith("{")) {
        events.push(JSON.parse(line) as Record<string, unknown>);
      }
    }
    waiters.splice(0).forEach((w) => w());
  });
  child.stderr.on("data", (chunk: Buffer) => {
    output += chunk.toString();
  });
  const ended = new Promise<WorkerEnd>((resolve) => child.once("exit", (code, signal) => resolve({ code, signal, events, output })));
  const timer = setTimeout(() => child.kill("SIGKILL"), 480_000);
  void ended.then(() => clearTimeout(timer));
  return {
    ended,
    send: (text: string) => child.stdin.write(text),
    async until(match: (e: Record<string, unknown>) => boolean): Promise<void> {
      while (!events.some(match)) {
        if (child.exitCode !== null || child.signalCode !== null) {
          throw new Error(`the worker ended before that:\n${output}`);
        }
        await new Promise<void>((r) => waiters.push(r));
      }
    },
  };
}

function worker(config: WorkerConfig): Promise<WorkerEnd> {
  return start(config).ended;
}

/** Grants every pending approval of the session once a second, as an approver watching the queue would. */
function autoApprove(sessionId: string) {
  let running = true;
  const loop = (async () => {
    while (running) {
      for (const item of await approver.approvals()) {
        if (item.sessionId === sessionId && item.kind === "APPROVAL") {
          await approver.decide(item.id, ApprovalDecision.grantOnce("approved by the test"));
        }
      }
      await new Promise((r) => setTimeout(r, 1_000));
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
    },
  };
}
