import type { AppendBatch, AppendResult } from "@tether/client";
import { FakeTether } from "../../../../clients/typescript/test/fake-tether.js";

/**
 * The in-memory log (clients/typescript/test/fake-tether.ts) with the approval-service's policy answer the tool wrapper
 * waits for: every tool call an appended `assistant_message` asks for is authorized at once (`tool_call_authorized`,
 * basis POLICY), as a tenant policy that gates nothing does; `gated` names calls an approver is asked about instead
 * (`approval_requested`), left for the test to decide; content over `offloadAbove` characters is offloaded.
 */
export class AuthorizingTether extends FakeTether {
  constructor(
    private readonly gated: (callId: string) => boolean = () => false,
    offloadAbove?: number,
  ) {
    super(offloadAbove);
  }

  /**
   * The checkpoint's tool cursor as the projector folds it, for what `resume()` reads: each harness-run call with no
   * result — STARTED (an attempt with no result) or AUTHORIZED (awaiting an approver when one was asked and has not
   * decided).
   */
  async checkpoint(sessionId: string): Promise<{ readonly toolCursor: readonly Record<string, unknown>[] } | undefined> {
    const s = this.sessionsById.get(sessionId);
    if (s === undefined) {
      return undefined;
    }
    const declared = (s.events[0]!.json.harnessTools ?? []) as { name: string; recordedOnly: boolean }[];
    const runBy = (tool: string) => {
      const d = declared.find((t) => t.name === tool) ?? declared.find((t) => t.name === "*");
      return d === undefined ? "EXECUTOR" : d.recordedOnly ? "RECORDED" : "HARNESS";
    };
    const calls = new Map<string, Record<string, unknown>>();
    for (const e of s.events) {
      const callId = String(e.json.callId);
      const c = calls.get(callId);
      if (e.type === "assistant_message") {
        for (const call of (e.json.toolCalls ?? []) as { callId: string; tool: string }[]) {
          calls.set(call.callId, { callId: call.callId, tool: call.tool, requestSeq: e.seq, runBy: runBy(call.tool), state: "REQUESTED", awaitingApproval: false });
        }
      } else if (c !== undefined && e.type === "approval_requested") {
        c.awaitingApproval = true;
      } else if (c !== undefined && e.type === "tool_call_authorized") {
        Object.assign(c, { state: "AUTHORIZED", awaitingApproval: false });
      } else if (c !== undefined && e.type === "tool_call_started") {
        c.state = "STARTED";
      } else if (c !== undefined && e.type === "tool_result") {
        calls.delete(callId);
      }
    }
    return { toolCursor: [...calls.values()] };
  }

  override async append(sessionId: string, batch: AppendBatch): Promise<AppendResult> {
    const result = await super.append(sessionId, batch);
    if (result.kind === "appended" && !result.allDuplicates) {
      batch.events.forEach((e, i) => {
        if (e.type === "assistant_message" && !result.events[i]!.duplicate) {
          for (const call of (e.fields.toolCalls ?? []) as { callId: string; tool: string }[]) {
            if (this.gated(call.callId)) {
              this.addAsService(sessionId, "approval_requested", { callId: call.callId, tool: call.tool, shown: call.tool });
            } else {
              this.addAsService(sessionId, "tool_call_authorized", { callId: call.callId, basis: { kind: "POLICY" } });
            }
          }
        }
      });
    }
    return result;
  }
}
