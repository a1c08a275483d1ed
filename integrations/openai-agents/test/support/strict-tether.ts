import type { AppendBatch, AppendResult } from "@tether/client";
import { FakeTether } from "../../../../clients/typescript/test/fake-tether.js";

/**
 * The in-memory log (clients/typescript/test/fake-tether.ts) with the session-service's refusals an adapter's items can
 * meet, which FakeTether does not check: a lone UTF-16 surrogate in any text of the body (400 `invalid_field`), a tool
 * call whose id or tool name is over 128 characters, whose id was used before, or that would make more than
 * `maxOpenCalls` calls open (Tether's is 512), and a tool result for a call that is not open (422 `illegal_event`); an
 * append over `maxBytes` once content over `offloadAbove` characters is offloaded (413 `too_large`, the service's
 * maxCommandBytes, 512 KiB).
 */
export class StrictTether extends FakeTether {
  constructor(
    private readonly limits: { readonly maxOpenCalls?: number; readonly maxBytes?: number; readonly offloadAbove?: number } = {},
  ) {
    super(limits.offloadAbove);
  }

  override async append(sessionId: string, batch: AppendBatch): Promise<AppendResult> {
    const refused = this.refusal(sessionId, batch);
    if (refused !== undefined) {
      this.appends++;
      return refused;
    }
    return super.append(sessionId, batch);
  }

  private refusal(sessionId: string, batch: AppendBatch): AppendResult | undefined {
    const lone = batch.events.findIndex((e) => hasLoneSurrogate(e.fields));
    if (lone >= 0) {
      return { kind: "rejected", status: 400, code: "invalid_field", message: "holds a lone UTF-16 surrogate, which is no Unicode character", field: `events[${lone}]` };
    }
    const size = batch.events.reduce((n, e) => n + JSON.stringify({ type: e.type, ...offloaded(e.fields, this.limits.offloadAbove) }).length, 0);
    if (this.limits.maxBytes !== undefined && size > this.limits.maxBytes) {
      return { kind: "rejected", status: 413, code: "too_large", message: `the request is ${size} bytes after large content was offloaded; the limit is ${this.limits.maxBytes}`, field: undefined };
    }
    const log = this.sessionsById.get(sessionId)?.events ?? [];
    const used = new Set<string>();
    const open = new Set<string>();
    const note = (type: string, fields: Readonly<Record<string, unknown>>) => {
      if (type === "assistant_message") {
        for (const c of (fields.toolCalls ?? []) as { callId: string }[]) {
          used.add(c.callId);
          open.add(c.callId);
        }
      } else if (type === "tool_result") {
        open.delete(String(fields.callId));
      }
    };
    log.forEach((e) => note(e.type, e.json));
    for (const [i, e] of batch.events.entries()) {
      const illegal = (field: string, message: string): AppendResult => ({ kind: "rejected", status: 422, code: "illegal_event", message, field: `events[${i}].${field}` });
      if (e.type === "assistant_message") {
        const calls = (e.fields.toolCalls ?? []) as { callId: string; tool: string }[];
        if (open.size + calls.length > (this.limits.maxOpenCalls ?? 512)) {
          return illegal("toolCalls", `the session has ${open.size} open tool calls`);
        }
        for (const [c, call] of calls.entries()) {
          if (call.callId.length > 128 || call.tool.length > 128) {
            return illegal(`toolCalls[${c}]`, "must be at most 128 characters");
          }
          if (used.has(call.callId)) {
            return illegal(`toolCalls[${c}].callId`, `call '${call.callId}' was used before in this session`);
          }
        }
      } else if (e.type === "tool_result" && !open.has(String(e.fields.callId))) {
        return illegal("callId", `call '${String(e.fields.callId)}' is not an open tool call (unknown, or already finished)`);
      }
      note(e.type, e.fields);
    }
    return undefined;
  }
}

function hasLoneSurrogate(value: unknown): boolean {
  if (typeof value === "string") {
    return !value.isWellFormed();
  }
  if (Array.isArray(value)) {
    return value.some(hasLoneSurrogate);
  }
  if (typeof value === "object" && value !== null) {
    return Object.entries(value).some(([k, v]) => !k.isWellFormed() || hasLoneSurrogate(v));
  }
  return false;
}

/** The fields as the service sends them on: a `content` over `above` characters as a preview of 512 and a reference. */
function offloaded(fields: Readonly<Record<string, unknown>>, above = Number.MAX_SAFE_INTEGER): Readonly<Record<string, unknown>> {
  const content = fields.content;
  return typeof content === "string" && content.length > above ? { ...fields, content: content.slice(0, 512), contentRef: { sha256: "0".repeat(64) } } : fields;
}
