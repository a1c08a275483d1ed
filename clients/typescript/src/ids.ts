import { createHash, randomUUID } from "node:crypto";

/**
 * Deterministic ids, exactly as the Java SDK derives them (client/ `EventIds`, core/ `DerivedIds.ofClient`): a
 * name-based UUID, version 3 (RFC 4122 §4.3: MD5 over the namespace's 16 bytes, then the name's UTF-8 bytes), in
 * {@link EVENT_ID_NAMESPACE}, of the parts joined by `/`. The same inputs give the same ids in both SDKs; the golden
 * test (`test/event-ids.test.ts`) checks values the Java code computed.
 *
 * @module
 */

/** The namespace of the eventIds clients derive. Never changes: ids computed by older clients must match. */
export const EVENT_ID_NAMESPACE = "f1751fa4-a4aa-4442-957a-3b9dab6319a5";

const ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;
const UUID_TEXT = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;

/**
 * The eventId of the `index`-th event (from 0) of step `stepKey` in session `sessionId`: the v3 UUID of
 * `<sessionId>/<stepKey>/<index>`. Choose step keys that name the work, not the attempt (`turn-7`, `call-42/result`),
 * never a timestamp or a random value.
 *
 * @throws TypeError for a blank session id or step key, a session id with `/`, or an index that is not an int ≥ 0
 */
export function eventIdOf(sessionId: string, stepKey: string, index: number): string {
  requireText(sessionId, "sessionId");
  requireText(stepKey, "stepKey");
  if (sessionId.includes("/")) {
    throw new TypeError(`a session id never contains '/': ${sessionId}`);
  }
  if (!Number.isInteger(index) || index < 0 || index > 2_147_483_647) {
    throw new TypeError(`index must be an integer from 0 to 2147483647, not ${index}`);
  }
  return clientId(sessionId, stepKey, String(index));
}

/** A client-derived id: the v3 UUID, in {@link EVENT_ID_NAMESPACE}, of the parts joined by `/`. */
export function clientId(...parts: string[]): string {
  return nameBasedUuid(EVENT_ID_NAMESPACE, parts.join("/"));
}

/** The version-3 UUID of `name` in `namespace` (RFC 4122 §4.3), lower-case as Java's `UUID.toString()` writes it. */
export function nameBasedUuid(namespace: string, name: string): string {
  if (!UUID_TEXT.test(namespace)) {
    throw new TypeError(`not a UUID: ${namespace}`);
  }
  const hash = createHash("md5").update(Buffer.from(namespace.replaceAll("-", ""), "hex")).update(javaUtf8(name)).digest();
  hash[6] = (hash[6]! & 0x0f) | 0x30; // version 3
  hash[8] = (hash[8]! & 0x3f) | 0x80; // the RFC 4122 variant
  const hex = hash.toString("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}

/**
 * The UTF-8 bytes of `text` as Java's `String.getBytes(UTF_8)` gives them: a lone surrogate becomes `?` (Java's
 * replacement byte), not U+FFFD as `Buffer.from` or `TextEncoder` would write it. Every request body the SDK sends is
 * encoded this way, so ids derived from text and the bytes on the wire are the Java SDK's for the same input.
 */
export function javaUtf8(text: string): Buffer {
  return Buffer.from(text.isWellFormed() ? text : replaceLoneSurrogates(text), "utf8");
}

function replaceLoneSurrogates(text: string): string {
  let out = "";
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) {
      const next = i + 1 < text.length ? text.charCodeAt(i + 1) : 0;
      if (next >= 0xdc00 && next <= 0xdfff) {
        out += text[i]! + text[i + 1]!;
        i++;
        continue;
      }
      out += "?";
    } else if (c >= 0xdc00 && c <= 0xdfff) {
      out += "?";
    } else {
      out += text[i]!;
    }
  }
  return out;
}

/** A fresh random id (for session ids and claim request ids the caller leaves to the SDK). */
export function randomId(): string {
  return randomUUID();
}

/** Checks an id clients choose (session ids, versions, request ids): 1-128 of `A-Za-z0-9._-`, starting with a letter or digit. */
export function requireId(value: string, name: string): string {
  if (typeof value !== "string" || !ID.test(value)) {
    throw new TypeError(`${name} must be 1-128 letters, digits, '.', '_' or '-', starting with a letter or digit: ${String(value)}`);
  }
  return value;
}

/** Checks that `value` is a string that is not blank, as Java's `String.isBlank` means it (so both SDKs refuse the same keys). */
export function requireText(value: string, name: string): string {
  if (typeof value !== "string") {
    throw new TypeError(`${name} must be a string`);
  }
  if (isJavaBlank(value)) {
    throw new TypeError(`${name} must not be blank`);
  }
  return value;
}

/**
 * Java's `String.isBlank`: empty or only `Character.isWhitespace` code points — the Unicode space, line and paragraph
 * separators except the non-breaking ones (U+00A0, U+2007, U+202F), and U+0009–U+000D, U+001C–U+001F.
 */
function isJavaBlank(value: string): boolean {
  for (const ch of value) {
    const c = ch.codePointAt(0)!;
    const whitespace =
      (c >= 0x09 && c <= 0x0d) ||
      (c >= 0x1c && c <= 0x20) ||
      c === 0x1680 ||
      (c >= 0x2000 && c <= 0x2006) ||
      (c >= 0x2008 && c <= 0x200a) ||
      c === 0x2028 ||
      c === 0x2029 ||
      c === 0x205f ||
      c === 0x3000;
    if (!whitespace) {
      return false;
    }
  }
  return true;
}
