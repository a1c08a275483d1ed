/**
 * `clearRunState` with no run state saved changes nothing, as `popItem` and `clearSession` of an empty history: it makes
 * no session and claims none, so the process that writes the session is not fenced by one that only looked.
 */
import type { TetherClient } from "@tether/client";
import { describe, expect, it } from "vitest";
import { FakeTether } from "../../../clients/typescript/test/fake-tether.js";
import { TetherSession } from "../src/index.js";

describe("TetherSession.clearRunState, nothing saved", () => {
  it("makes no session and fences no writer", async () => {
    const tether = new FakeTether();
    const reader = new TetherSession({ client: tether as unknown as TetherClient, sessionId: "oa-no-state", workerId: "reader" });
    await reader.clearRunState();
    expect(tether.sessionsById.has("oa-no-state"), "no session made for nothing").toBe(false);

    const writer = new TetherSession({ client: tether as unknown as TetherClient, sessionId: "oa-no-state", workerId: "writer" });
    await writer.addItems([{ role: "user", content: "hello" }]);
    const epoch = tether.sessionsById.get("oa-no-state")!.info.epoch;
    await reader.clearRunState();
    expect(tether.sessionsById.get("oa-no-state")!.info.epoch, "still the writer's claim").toBe(epoch);
    await writer.addItems([{ role: "user", content: "still mine" }]);
    expect(await writer.getItems()).toEqual([{ role: "user", content: "hello" }, { role: "user", content: "still mine" }]);
  });
});
