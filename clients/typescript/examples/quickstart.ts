import { NewEvent, ReadAt, TetherClient, createdOrThrow } from "@tether/client";

const tether = new TetherClient({ token: "dev-acme-agent" }); // or sessionsUrl / projectorUrl / approvalsUrl
const session = createdOrThrow(
  await tether.createSession({
    objective: "Rename Foo to Bar in src/",
    modelId: "claude-sonnet-4",
    toolMode: "WRITE",
    systemPrompt: "You are a careful engineer.",
    constraints: ["keep the tests green"],
  }),
);

const claim = await tether.claim(session.sessionId, { workerId: "worker-a", harnessVersion: "v1" });
if (claim.kind !== "claimed") {
  throw new Error(`cannot work on it: ${claim.kind}`); // fenced, version_pinned, not_found, rejected
}
if (claim.resumed) {
  // someone had it before: look before acting
  const report = await tether.recovery(session.sessionId, ReadAt.atLeast(claim.lastSeq));
  report?.nextSafeActions.forEach((action) => console.log(action));
}

const writer = tether.writer(claim); // every append carries the claim's epoch and the session's start
const context = await tether.context(session.sessionId, "anthropic");
console.log(context?.system, context?.messages.length); // ... call the model with them ...
const result = await writer.append(
  "turn-1", // the step key: the same step, the same eventIds
  NewEvent.assistantMessage("Reading the file first.", [{ callId: "call-1", tool: "read_file", arguments: { path: "src/Foo.java" } }], {
    inputTokens: 812,
    outputTokens: 40,
  }),
);
switch (result.kind) {
  case "appended":
    console.log("seqs", result.seqs);
    break;
  case "fenced":
    process.exit(0); // another worker claimed the session: stop
  case "conflict":
  case "not_found":
  case "rejected":
    throw new Error(`${result.kind}: ${result.message}`);
}

// wait for the executor's result of call-1
const toolResult = await tether.awaitEvent(
  session.sessionId,
  claim.nextSeq,
  (e) => e.type === "tool_result" && e.json.callId === "call-1",
  5 * 60_000,
);
console.log(toolResult?.json.status, toolResult?.json.content);
await tether.close();
