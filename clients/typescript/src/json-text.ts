/**
 * JSON text as the Java SDK writes it (Jackson's compact output), so that an id derived from a request's text — a
 * create's eventId is derived from the whole request — is the same in both SDKs, and so are the bytes on the wire.
 *
 * It differs from `JSON.stringify` only in string escapes: control characters other than `\b \t \n \f \r` are written
 * `\u00XX` with upper-case hex (JSON.stringify: lower-case), and a lone surrogate is kept as it is (JSON.stringify
 * writes `\udXXX`; encoded with {@link javaUtf8} it then becomes `?`, as in Java). Object keys keep insertion order;
 * `undefined` members are left out, as JSON.stringify does.
 *
 * @module
 */

/** A value JSON can hold. */
export type JsonValue = string | number | boolean | null | readonly JsonValue[] | { readonly [key: string]: JsonValue | undefined };

/** The value's compact JSON text, as Jackson writes it. */
export function jsonText(value: JsonValue): string {
  if (value === null) {
    return "null";
  }
  switch (typeof value) {
    case "string":
      return quote(value);
    case "boolean":
      return value ? "true" : "false";
    case "number":
      if (!Number.isFinite(value)) {
        throw new TypeError(`JSON has no ${value}`);
      }
      return Object.is(value, -0) ? "0" : String(value);
    case "object": {
      if (Array.isArray(value)) {
        return `[${(value as readonly JsonValue[]).map(jsonText).join(",")}]`;
      }
      const members: string[] = [];
      for (const [key, member] of Object.entries(value)) {
        if (member !== undefined) {
          members.push(`${quote(key)}:${jsonText(member as JsonValue)}`);
        }
      }
      return `{${members.join(",")}}`;
    }
    default:
      throw new TypeError(`not a JSON value: ${typeof value}`);
  }
}

const SHORT: Record<number, string> = { 0x08: "\\b", 0x09: "\\t", 0x0a: "\\n", 0x0c: "\\f", 0x0d: "\\r", 0x22: '\\"', 0x5c: "\\\\" };

function quote(text: string): string {
  let out = '"';
  let from = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x20 || c === 0x22 || c === 0x5c) {
      out += text.slice(from, i) + (SHORT[c] ?? `\\u00${c.toString(16).toUpperCase().padStart(2, "0")}`);
      from = i + 1;
    }
  }
  return `${out}${text.slice(from)}"`;
}
