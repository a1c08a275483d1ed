import { describe, expect, it } from "vitest";
import { LineSplitter, SseParser } from "../src/sse.js";

describe("the SSE parser", () => {
  it("reads the session-service's frames", () => {
    const p = new SseParser();
    expect(p.line("id:7")).toBeUndefined();
    expect(p.line("event:user_message")).toBeUndefined();
    expect(p.line('data:{"seq":7}')).toBeUndefined();
    expect(p.line("")).toEqual({ id: "7", event: "user_message", data: '{"seq":7}' });
  });

  it("joins data lines, strips one space, skips comments, keeps the last id, ignores retry and unknown fields", () => {
    const p = new SseParser();
    for (const l of [": keep-alive", "id: 3", "retry: 1000", "data:  two spaces", "data", "whatever: x"]) {
      expect(p.line(l)).toBeUndefined();
    }
    expect(p.line("")).toEqual({ id: "3", event: "message", data: " two spaces\n" });
    p.line("data:next");
    expect(p.line("")).toEqual({ id: "3", event: "message", data: "next" });
  });

  it("dispatches nothing for a frame without data, and ignores an id with NUL", () => {
    const p = new SseParser();
    p.line("event:x");
    expect(p.line("")).toBeUndefined();
    p.line("id:1");
    p.line("id:2\u0000");
    p.line("data:d");
    expect(p.line("")).toEqual({ id: "1", event: "message", data: "d" });
  });
});

describe("the line splitter", () => {
  it("ends lines at LF, CRLF and CR, across chunk boundaries", () => {
    const s = new LineSplitter();
    const bytes = (t: string) => Buffer.from(t, "utf8");
    expect(s.push(bytes("a\r"))).toEqual(["a"]);
    expect(s.push(bytes("\nb\n"))).toEqual(["b"]); // the \n of a split \r\n ends no second line
    expect(s.push(bytes("c\rd"))).toEqual(["c"]);
    expect(s.push(bytes("\r\n\n"))).toEqual(["d", ""]);
    expect(s.push(bytes("e\r"))).toEqual(["e"]);
    expect(s.push(new Uint8Array(0))).toEqual([]); // a stream may deliver an empty chunk between a \r and its \n
    expect(s.push(bytes("\nf\n"))).toEqual(["f"]);
  });

  it("decodes a UTF-8 character split between chunks", () => {
    const s = new LineSplitter();
    const bytes = Buffer.from("café 🚀\n", "utf8");
    const out: string[] = [];
    for (let i = 0; i < bytes.length; i++) {
      out.push(...s.push(bytes.subarray(i, i + 1)));
    }
    expect(out).toEqual(["café 🚀"]);
  });
});
