import type { AppendBatch, AppendResult } from "@tether/client";
import { FakeTether } from "../../../../clients/typescript/test/fake-tether.js";

/** A GitHub token, the secret the tests give Tether to scrub. */
export const TOKEN = /ghp_[A-Za-z0-9]{36}/g;

/** The marker of a value scrubbed by its key's name: a password's, and any other secret's. */
export const PASSWORD_ASSIGNMENT = "[REDACTED:password-assignment]";
export const SECRET_ASSIGNMENT = "[REDACTED:secret-assignment]";

const MARKER = /^\[REDACTED:[a-z0-9-]+\]$/;

/**
 * The kind a key's name gives its value, if it names a secret (SecretScrubber's password-assignment and
 * secret-assignment, for a few names): its last word password, passwd, passphrase or pwd; secret, token (not a token
 * of text or a cursor: stop_tokens, pageToken...), credential(s), or key after api, access, private, client or auth.
 * A plural names a secret only for an array or object (`input_tokens: 12` is a count).
 */
function secretKind(name: string, container: boolean): string | undefined {
  const n = name.toLowerCase();
  const word = container ? n.replace(/(?<=[a-z])s$/, "") : n;
  if (/(password|passwd|passphrase|pwd)$/.test(word)) {
    return PASSWORD_ASSIGNMENT;
  }
  if (/(stop|eos|bos|pad|unk|special|page|next|continuation|sync|max)[_-]?token$/.test(word)) {
    return undefined;
  }
  return /(secret|token|credentials?|(api|access|private|client|auth)[_-]?key)$/.test(word) ? SECRET_ASSIGNMENT : undefined;
}

/**
 * A name, `:` or `=`, and a value in text (`api_key=abc`, `refresh_token:1ef4...`): the value of a name that says
 * secret is redacted as SecretScrubber's assignment rules do in any string. The value here ends at a separator of
 * LangGraph's names (`+`, `|`, `:`), so that each name in `join:clientSecret+authToken:done` is read; the service's
 * reads on to the next space or quote.
 */
const ASSIGNED = /([A-Za-z0-9_-]+)([:=])([^\s"'+|:=,;]+)/g;

function scrubAssigned(text: string, count: () => void): string {
  return text.replace(ASSIGNED, (whole, name: string, sign: string, value: string) => {
    const kind = secretKind(name, false);
    return kind === undefined || MARKER.test(value) ? whole : (count(), `${name}${sign}${kind}`);
  });
}

/** JSON Schema's keywords, whose strings in an object under a secret name describe it and hold none. */
const SCHEMA_WORDS = new Set(["type", "format", "title", "description"]);

/**
 * The session-service's scrubbing by name, on a framework_state's JSON content (SecretScrubber's rule as
 * JsonTextScrubbing applies it, kept JSON): the value of a key whose name says it is a secret is replaced by the marker
 * of its kind — a string, and a number (then a string); true, false and null stay — and when it is an array or an
 * object, every string in it at any depth (by its own key's kind when that names a secret too; JSON Schema's keywords
 * kept), its keys, numbers, true, false and null kept. A name is a key only: a string in an array is none.
 */
function scrubByName(node: unknown, under: string | undefined, count: () => void): unknown {
  if (Array.isArray(node)) {
    return node.map((n) => scrubByName(n, under, count));
  }
  if (typeof node === "object" && node !== null) {
    return Object.fromEntries(
      Object.entries(node).map(([k, v]) => {
        const own = secretKind(k, typeof v === "object" && v !== null);
        if (under !== undefined && own === undefined && SCHEMA_WORDS.has(k) && typeof v === "string") {
          return [k, v];
        }
        return [k, own === undefined && under === undefined ? scrubByName(v, undefined, count) : redact(v, own ?? under!, own !== undefined, count)];
      }),
    );
  }
  return node;
}

/** A value under a secret name of kind `kind` (`direct`: the value of that name itself, not one inside its array or object). */
function redact(value: unknown, kind: string, direct: boolean, count: () => void): unknown {
  if (typeof value === "string") {
    return MARKER.test(value) ? value : (count(), kind);
  }
  if (typeof value === "number") {
    return direct ? (count(), kind) : value; // a number in an array or object under the name is kept
  }
  return typeof value === "object" && value !== null ? scrubByName(value, kind, count) : value;
}

/**
 * The in-memory log with the session-service's scrubbing: a GitHub token by its shape and a value assigned to a
 * secret's name in text ({@link scrubAssigned}), in every string of an event, however deep (a tool call's arguments),
 * a `framework_state`'s JSON content included, which stays JSON (the marker needs no escape); and in that JSON content,
 * the values of keys named as secrets ({@link scrubByName}). Scrubbed before content is offloaded, as the service does.
 */
export class ScrubbingTether extends FakeTether {
  override async append(sessionId: string, batch: AppendBatch): Promise<AppendResult> {
    let redactions = 0;
    const count = () => void redactions++;
    const scrub = (v: unknown): unknown => {
      if (typeof v === "string") {
        return scrubAssigned(v.replace(TOKEN, () => (redactions++, "[REDACTED:github-token]")), count);
      }
      if (Array.isArray(v)) {
        return v.map(scrub);
      }
      return typeof v === "object" && v !== null ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, scrub(x)])) : v;
    };
    const events = batch.events.map((e) => {
      const fields = scrub(e.fields) as Record<string, unknown>;
      if (e.type === "framework_state" && typeof fields.content === "string") {
        fields.content = JSON.stringify(scrubByName(JSON.parse(fields.content), undefined, count));
      }
      return { ...e, fields };
    });
    const result = await super.append(sessionId, { ...batch, events } as AppendBatch);
    return result.kind === "appended" ? { ...result, redactions } : result;
  }
}
