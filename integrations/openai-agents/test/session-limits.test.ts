/**
 * Items that the session-service would refuse as they are: TetherSession stores them in a way it takes, and gives them back
 * exactly. Against StrictTether (test/support/strict-tether.ts): the in-memory log with the service's refusals.
 */
import type { AgentInputItem } from "@openai/agents-core";
import type { TetherClient } from "@tether/client";
import { describe, expect, it } from "vitest";
import { TetherSession } from "../src/index.js";
import { StrictTether } from "./support/strict-tether.js";

function session(tether: StrictTether, sessionId: string) {
  return new TetherSession({ client: tether as unknown as TetherClient, sessionId, workerId: "test" });
}

const call = (callId: string, name = "snap") => ({ type: "function_call", callId, name, arguments: "{}", status: "completed" }) as AgentInputItem;
const result = (callId: string, output: unknown, name = "snap") => ({ type: "function_call_result", callId, name, status: "completed", output }) as AgentInputItem;

describe("TetherSession, items Tether would refuse as they are", () => {
  it("keeps an item whose id holds half a surrogate pair, or is cut inside one at the key's 512 characters, as a record Tether takes", async () => {
    const tether = new StrictTether();
    const s = session(tether, "oa-keys");
    const items = [
      call("call-\ud83d"), // a text cut inside an emoji, in the id the record's key shows
      { type: "reasoning", id: `${"r".repeat(501)}😀`, content: [] } as unknown as AgentInputItem, // `reasoning:` + 501: the key's 512th character is the emoji's first half
    ];

    await s.addItems(items);

    const keys = tether.sessionsById.get("oa-keys")!.events.filter((e) => e.json.kind === "item").map((e) => String(e.json.key));
    expect(keys.map((k) => k.isWellFormed())).toEqual([true, true]);
    expect(await session(tether, "oa-keys").getItems()).toEqual(items);
  });

  it("keeps a call whose id or tool name is longer than Tether takes as records, its result too", async () => {
    const tether = new StrictTether();
    const s = session(tether, "oa-long-ids");
    const items = [call("c".repeat(129)), result("c".repeat(129), "done"), call("call-2", "t".repeat(129)), result("call-2", "done too", "t".repeat(129))];

    await s.addItems(items);

    const log = tether.sessionsById.get("oa-long-ids")!.events;
    expect(log.filter((e) => e.type === "assistant_message" || e.type === "tool_result")).toEqual([]);
    expect(await session(tether, "oa-long-ids").getItems()).toEqual(items);
  });

  it("answers a recorded call whose output is not one text (an image, parts, half a surrogate pair) in Tether, so no call stays open", async () => {
    const tether = new StrictTether({ maxOpenCalls: 2 });
    const s = session(tether, "oa-open-calls");
    const image = { type: "image", image: "data:image/png;base64,iVBORw0KGgo=" };
    const parts = [{ type: "input_text", text: "page 1" }, { type: "input_image", image: "data:image/png;base64,AAAA" }];
    const turns = [
      [call("call-1"), result("call-1", image)],
      [call("call-2"), result("call-2", parts)],
      [call("call-3"), result("call-3", "found \ud83d")],
      [call("call-4"), result("call-4", { type: "text", text: "plain" })],
    ];

    for (const turn of turns) {
      await s.addItems(turn); // a call left open by an earlier turn makes Tether refuse the third turn's call
    }
    // popped and added again: the call's result is in the log already, and is not written twice
    const last = await s.popItem();
    await s.addItems([last!]);

    const log = tether.sessionsById.get("oa-open-calls")!.events;
    expect(log.filter((e) => e.type === "tool_result").map((e) => [e.json.callId, e.json.content])).toEqual([
      ["call-1", "[image]"],
      ["call-2", "page 1\n[input_image]"],
      ["call-3", "found \ufffd"],
      ["call-4", "plain"],
    ]);
    expect(await session(tether, "oa-open-calls").getItems()).toEqual(turns.flat());
  });

  it("adds items too large for one append in parts, each item once and in order; an item too large alone is refused, after the items before it", async () => {
    // the session-service's 512 KiB per append, with content over 64 KiB offloaded: here 8 000 bytes, over 2 000 characters
    const tether = new StrictTether({ maxBytes: 8_000, offloadAbove: 2_000 });
    const s = session(tether, "oa-parts");
    await s.addItems([{ role: "user", content: "first" }]);
    // an imported conversation: each item under the offload threshold, together over the limit
    const imported = Array.from({ length: 13 }, (_, i) => ({ role: i % 2 === 0 ? "user" : "assistant", content: `${i} ${"x".repeat(1_500)}` }) as AgentInputItem);
    const next = { role: "user", content: "next" } as AgentInputItem;

    await Promise.all([s.addItems(imported), s.addItems([next])]); // a call made meanwhile comes after all of the parts

    const all = [{ role: "user", content: "first" }, ...imported, next];
    expect(await s.getItems()).toEqual(all);
    expect(await session(tether, "oa-parts").getItems()).toEqual(all);
    const log = tether.sessionsById.get("oa-parts")!.events;
    expect(log.filter((e) => e.type === "user_message" || e.type === "assistant_message")).toHaveLength(all.length);

    const before = log.length;
    const huge = call("call-huge", "write_file");
    (huge as { arguments: string }).arguments = JSON.stringify({ text: "y".repeat(9_000) }); // arguments are never offloaded
    await expect(s.addItems([{ role: "user", content: "write it" }, huge])).rejects.toThrow(/413 too_large/);
    expect(tether.sessionsById.get("oa-parts")!.events.slice(before).filter((e) => e.type !== "framework_state").map((e) => e.json.content)).toEqual(["write it"]);
    expect(await session(tether, "oa-parts").getItems()).toEqual([...all, { role: "user", content: "write it" }]);
  });
});
