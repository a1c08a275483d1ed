/**
 * `text/event-stream` parsing as the HTML Living Standard's "event stream interpretation" says — the Java SDK's
 * `SseParser`, plus the line splitting Java's `BufferedReader.readLine` did for it (`\n`, `\r\n` or a lone `\r` ends a
 * line, also across chunk boundaries; UTF-8 decoded across chunk boundaries too). Not part of the API.
 *
 * @module
 */

/** One dispatched event. */
export interface SseMessage {
  /** The last event id seen on the stream (the seq, for Tether); undefined before any. */
  readonly id: string | undefined;
  /** The event type (`message` when none was given). */
  readonly event: string;
  /** The data lines, joined with `\n`. */
  readonly data: string;
}

/** Turns lines into messages: `field: value` lines, `:` comments, a blank line dispatching. One parser per stream. */
export class SseParser {
  private data = "";
  private hasData = false;
  private event: string | undefined;
  private lastId: string | undefined;

  /** Feeds one line (without its line ending); returns the message a blank line dispatches. */
  line(line: string): SseMessage | undefined {
    if (line === "") {
      return this.dispatch();
    }
    if (line.startsWith(":")) {
      return undefined; // a comment, e.g. a keep-alive
    }
    const colon = line.indexOf(":");
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) {
      value = value.slice(1);
    }
    switch (field) {
      case "event":
        this.event = value;
        break;
      case "data":
        this.data = this.hasData ? `${this.data}\n${value}` : value;
        this.hasData = true;
        break;
      case "id":
        if (!value.includes("\u0000")) {
          this.lastId = value;
        }
        break;
      default:
      // "retry" and unknown fields: the subscription has its own backoff
    }
    return undefined;
  }

  private dispatch(): SseMessage | undefined {
    if (!this.hasData) {
      this.event = undefined;
      return undefined;
    }
    const message = { id: this.lastId, event: this.event === undefined || this.event === "" ? "message" : this.event, data: this.data };
    this.data = "";
    this.hasData = false;
    this.event = undefined;
    return message;
  }
}

/** Splits a byte stream into lines: `\n`, `\r\n` or `\r` end one; a `\r` at a chunk's end waits to see if `\n` follows. */
export class LineSplitter {
  private readonly decoder = new TextDecoder("utf-8");
  private pending = "";
  private skipLf = false;

  /** The complete lines in `chunk` (with what came before it); the rest waits for the next chunk. */
  push(chunk: Uint8Array): string[] {
    let text = this.decoder.decode(chunk, { stream: true });
    if (text === "") {
      return []; // an empty chunk, or part of a character: a \r's \n may still come
    }
    if (this.skipLf && text.startsWith("\n")) {
      text = text.slice(1);
    }
    this.skipLf = false;
    text = this.pending + text;
    const lines: string[] = [];
    let from = 0;
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c === 0x0a || c === 0x0d) {
        lines.push(text.slice(from, i));
        if (c === 0x0d) {
          if (i + 1 < text.length) {
            if (text.charCodeAt(i + 1) === 0x0a) {
              i++;
            }
          } else {
            this.skipLf = true; // the \n of a \r\n may come in the next chunk
          }
        }
        from = i + 1;
      }
    }
    this.pending = text.slice(from);
    return lines;
  }
}
