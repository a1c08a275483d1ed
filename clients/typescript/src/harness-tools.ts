/**
 * SEAM — the harness-run tools helper (issue 17, item 1, last part) lives here once issue 16 ("Harness-run tools")
 * has landed on main and fixed its wire format. Nothing is exported yet, on purpose: a helper written against a
 * protocol that is still being built would drift from it.
 *
 * What it will be: `client.tools(writer)` (or a `HarnessTools` class taking a `TetherClient` and a `SessionWriter`)
 * that, for a tool call the harness runs itself, waits for authorization (`awaitEvent` on `tool_call_authorized` for
 * the call, or its refusal as a `tool_result`), records the start, runs the caller's function with the call's
 * idempotency key (`sessionId/requestSeq/callId`, as `Checkpoint.toolCursor[].idempotencyKey` carries it), appends the
 * result under the step key `call-<callId>/result` (so a retried or re-run append is a duplicate), and on resume
 * reconciles from the recovery report (`effects.inFlight`, `effects.unknown`) instead of running a call twice. It needs
 * nothing from this package that is not already public: `awaitEvent`, `append`/`SessionWriter`, `checkpoint`,
 * `recovery`, `call`, `eventIdOf`.
 *
 * @module
 */
export {};
