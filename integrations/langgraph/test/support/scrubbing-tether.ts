import type { AppendBatch, AppendResult } from "@tether/client";
import { FakeTether } from "../../../../clients/typescript/test/fake-tether.js";

/** A GitHub token, the secret the tests give Tether to scrub. */
export const TOKEN = /ghp_[A-Za-z0-9]{36}/g;

/**
 * The in-memory log with the session-service's scrubbing of a GitHub token: in every string of an event, however deep
 * (a tool call's arguments), a `framework_state`'s JSON content included, which stays JSON (the marker needs no
 * escape). Scrubbed before content is offloaded, as the service does.
 */
export class ScrubbingTether extends FakeTether {
  override async append(sessionId: string, batch: AppendBatch): Promise<AppendResult> {
    let redactions = 0;
    const scrub = (v: unknown): unknown => {
      if (typeof v === "string") {
        return v.replace(TOKEN, () => (redactions++, "[REDACTED:github-token]"));
      }
      if (Array.isArray(v)) {
        return v.map(scrub);
      }
      return typeof v === "object" && v !== null ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, scrub(x)])) : v;
    };
    const events = batch.events.map((e) => ({ ...e, fields: scrub(e.fields) as Record<string, unknown> }));
    const result = await super.append(sessionId, { ...batch, events } as AppendBatch);
    return result.kind === "appended" ? { ...result, redactions } : result;
  }
}
