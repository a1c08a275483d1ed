import {
  HarnessTool,
  HarnessToolRunner,
  NewEvent,
  Reconciliation,
  TetherClient,
  ToolOutput,
  appendedOrThrow,
  assertNever,
  claimedOrThrow,
  createdOrThrow,
} from "@tether/client";

// the external system: applies a charge at most once per key, and can say whether one was made under a key
declare const ledger: {
  charge(key: string, argumentsJson: string): Promise<string>;
  find(key: string): Promise<string | undefined>;
};

const tether = new TetherClient({ token: "dev-acme-agent" });
const chargeCard = HarnessTool.mutating("charge_card", { reconcilable: true }); // gated: an approver decides each call
const searchDocs = HarnessTool.readOnly("search_docs"); // authorized by policy

const session = createdOrThrow(
  await tether.createSession({ objective: "Pay invoice 42", modelId: "claude-sonnet-4", toolMode: "WRITE", harnessTools: [chargeCard, searchDocs] }),
);
const claim = claimedOrThrow(await tether.claim(session.sessionId, { workerId: "worker-a", harnessVersion: "v1" }));
const runner = new HarnessToolRunner(tether, claim, {
  tools: [
    {
      tool: chargeCard,
      run: async (call) => ToolOutput.ok(await ledger.charge(call.idempotencyKey, call.argumentsJson)),
      reconcile: async (attempt) => {
        const receipt = await ledger.find(attempt.idempotencyKey); // only "no effect" when the ledger proves it
        return receipt === undefined ? Reconciliation.noEffect("no charge under that key") : Reconciliation.tookEffect(ToolOutput.ok(receipt));
      },
    },
    { tool: searchDocs, run: async (call) => ToolOutput.ok(`results for ${call.argumentsJson}`) },
  ],
});

await runner.resume(); // after every claim: reconcile what a dead worker left started, run what is authorized

const turn = appendedOrThrow(
  await tether.writer(claim).append("turn-1", NewEvent.assistantMessage("Paying.", [{ callId: "call-1", tool: "charge_card", arguments: { invoice: 42 } }])),
);
const result = await runner.run(turn.seqs[0]!, "call-1"); // waits for the grant, starts, runs with the key, reports
switch (result.kind) {
  case "completed":
    console.log(result.status, result.content, result.how); // how: RAN, RECONCILED or REPORTED_BEFORE
    break;
  case "denied":
  case "cancelled":
    console.log("it never ran:", result.reason);
    break;
  case "outcome_unknown":
    console.log("a person decides (MARK_DONE, RETRY, ABANDON):", result.reason);
    break;
  case "resolved_by_person":
    console.log("resolved:", result.resolution);
    break;
  case "not_yet_authorized":
    console.log("no decision yet; run it again to wait longer", result.awaitingApproval);
    break;
  case "fenced":
    process.exit(0); // another worker claimed the session: stop
  case "not_found":
  case "rejected":
    throw new Error(`${result.kind}: ${result.message}`);
  default:
    assertNever(result);
}
await tether.close();
