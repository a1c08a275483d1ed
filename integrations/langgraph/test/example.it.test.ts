/** The READMEs' example (examples/quickstart.ts, in the package's and the repository's README) runs as written against the real stack, and does what it says. */
import { readFileSync } from "node:fs";
import { expect, inject, it, vi } from "vitest";

it("runs the quickstart: the answer, the thread's log in Tether, its model context", async () => {
  const urls = inject("tether");
  process.env.TETHER_SESSIONS_URL = urls.sessionsUrl;
  process.env.TETHER_PROJECTOR_URL = urls.projectorUrl;
  process.env.TETHER_APPROVALS_URL = urls.approvalsUrl;
  process.env.THREAD_ID = `quickstart-${Math.random().toString(16).slice(2, 8)}`;
  const printed: string[] = [];
  const log = vi.spyOn(console, "log").mockImplementation((...args: unknown[]) => void printed.push(args.map(String).join(" ")));
  try {
    await import("../examples/quickstart.js");
  } finally {
    log.mockRestore();
  }
  expect(printed[0]).toMatch(/^looking up A-17 \(key lg-quickstart-[0-9a-f]+\/\d+\/call-1~\d+\)$/);
  expect(printed).toContain("Order A-17 has shipped.");
  const types = printed.find((p) => p.startsWith("1 session_started"))!.split("\n").map((l) => l.split(" ")[1]);
  expect(types).toEqual(expect.arrayContaining(["user_message", "assistant_message", "tool_call_authorized", "tool_call_started", "tool_result", "framework_state"]));
  expect(printed.at(-1)).toMatch(/^\d+ messages in the model context$/);
  const example = readFileSync(new URL("../examples/quickstart.ts", import.meta.url), "utf8");
  expect(readFileSync(new URL("../README.md", import.meta.url), "utf8"), "the package's README").toContain(example);
  expect(readFileSync(new URL("../../../README.md", import.meta.url), "utf8"), "the repository's README").toContain(example);
});
