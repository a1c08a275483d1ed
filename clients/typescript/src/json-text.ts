/**
 * JSON text as the Java SDK writes it (Jackson's compact output), so that an id derived from a request's text — a
 * create's eventId is derived from the whole request — is the same in both SDKs, and so are the bytes on the wire.
 *
 * It differs from `JSON.stringify` only in string escapes: control characters other than `\b \t \n \f \r` are written
 * `\u00XX` with upper-case hex (JSON.stringify: lower-case), and a lone surrogate is kept as it is (JSON.stringify
 * writes `\udXXX`; encoded with {@link javaUtf8} it then becomes `?`, as in Java). Object keys keep insertion order;
 * `undefined` members are left out, as JSON.stringify does. What JSON has no text for is refused, not written as
 * something else (see {@link jsonText}).
 *
 * @module
 */

/** A value JSON can hold. */
export type JsonValue = string | number | boolean | null | readonly JsonValue[] | { readonly [key: string]: JsonValue | undefined };

/**
 * The value's compact JSON text, as Jackson writes it.
 *
 * @param path what the value is, for the error (e.g. `content`): `content.at[2]: …`
 * @throws TypeError for anything JSON has no text for — naming where it is: a number that is not finite, a bigint,
 *   `undefined` in an array, a function or symbol, an object that is not a plain object or array (a Date, a Map, a
 *   Uint8Array …: `JSON.stringify` would write some of them as `{}` or as something else than they are), a cycle
 */
export function jsonText(value: JsonValue, path = "value"): string {
  return write(value, path, []);
}

function write(value: unknown, path: string, parents: object[]): string {
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
        throw new TypeError(`${path}: JSON has no ${value}`);
      }
      return Object.is(value, -0) ? "0" : String(value);
    case "object": {
      if (parents.includes(value)) {
        throw new TypeError(`${path}: a cyclic structure is not JSON`);
      }
      const proto = Object.getPrototypeOf(value) as unknown;
      if (!Array.isArray(value) && proto !== Object.prototype && proto !== null) {
        const name = (value as { constructor?: { name?: unknown } }).constructor?.name;
        throw new TypeError(`${path}: not a JSON value: a ${typeof name === "string" && name !== "" ? name : "non-plain object"} (write it as a string, number, array or plain object)`);
      }
      parents.push(value);
      try {
        if (Array.isArray(value)) {
          // by index: a hole of a sparse array is undefined, as JSON.stringify would not say
          const items: string[] = [];
          for (let i = 0; i < value.length; i++) {
            items.push(write(value[i], `${path}[${i}]`, parents));
          }
          return `[${items.join(",")}]`;
        }
        const members: string[] = [];
        for (const [key, member] of Object.entries(value)) {
          if (member !== undefined) {
            members.push(`${quote(key)}:${write(member, `${path}.${key}`, parents)}`);
          }
        }
        return `{${members.join(",")}}`;
      } finally {
        parents.pop();
      }
    }
    default:
      throw new TypeError(`${path}: not a JSON value: ${typeof value}`);
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
