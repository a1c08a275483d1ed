import { TetherError } from "./errors.js";
import type { SessionEvent } from "./models.js";

/**
 * The sha256 of an event's offloaded text — content over the session-service's offload threshold, kept in the blob
 * store with a preview in the event and a reference beside it (`contentRef`, a result's `artifact`, a compaction's
 * `summaryRef`) — or undefined when the text is inline.
 */
export function offloadedSha(event: SessionEvent): string | undefined {
  for (const field of ["contentRef", "artifact", "summaryRef"]) {
    const ref = event.json[field];
    if (typeof ref === "object" && ref !== null && typeof (ref as Record<string, unknown>).sha256 === "string") {
      return (ref as Record<string, unknown>).sha256 as string;
    }
  }
  return undefined;
}

/**
 * Events' whole texts — a message's or a result's `content`, a compaction's `summary` — read from the blob store when
 * they were offloaded (each blob once: the texts are kept). For readers that need an event exactly as it was written.
 */
export class EventTexts {
  private readonly blobs = new Map<string, string>();

  constructor(private readonly client: { artifactText(sha256: string): Promise<string | undefined> }) {}

  /** The event's whole text; undefined when it has none. */
  async of(event: SessionEvent): Promise<string | undefined> {
    const sha = offloadedSha(event);
    if (sha === undefined) {
      const text = event.type === "context_compacted" ? event.json.summary : event.json.content;
      return typeof text === "string" ? text : undefined;
    }
    return this.blob(sha);
  }

  /** A blob's text by its sha256. */
  async blob(sha256: string): Promise<string> {
    let text = this.blobs.get(sha256);
    if (text === undefined) {
      text = await this.client.artifactText(sha256);
      if (text === undefined) {
        throw new TetherError(`the blob ${sha256} an event refers to is not there`);
      }
      this.blobs.set(sha256, text);
    }
    return text;
  }
}
