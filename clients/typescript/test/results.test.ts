import { describe, expect, it } from "vitest";
import {
  TetherError,
  UnexpectedOutcomeError,
  appendedOrThrow,
  assertNever,
  claimedOrThrow,
  createdOrThrow,
  decidedOrThrow,
  settledOrThrow,
  type AppendResult,
  type Approval,
} from "../src/index.js";
import { appendRefusal, claimRefusal, decisionRefusal, rejected } from "../src/outcomes.js";
import { apiError, appended, EXCERPT_CHARS } from "../src/wire.js";

/** The services' error bodies become the typed outcomes of each call; what is no outcome is thrown. */
describe("error bodies", () => {
  it("read as ApiErrors with their details", () => {
    const conflict = apiError(409, '{"lastSeq":3,"error":"seq_conflict","message":"expectedSeq 1 but the session\'s last seq is 3"}');
    expect(conflict.code).toBe("seq_conflict");
    expect(conflict.details.lastSeq).toBe(3);
    expect(conflict.details.field).toBeUndefined();
    expect(apiError(400, '{"error":"invalid_field","message":"is required","field":"events[1].toolCalls[0].callId"}').details.field).toBe(
      "events[1].toolCalls[0].callId",
    );
    expect(apiError(502, "<html>Bad Gateway</html>").code).toBe("http_502");
    expect(apiError(502, "<html>Bad Gateway</html>").message).toBe("Bad Gateway");
    expect(apiError(503, "").message).toBe("");
    expect(apiError(503, "").code).toBe("http_503");
  });

  it("that are not Tether's are shown briefly, by their title or their text", () => {
    const nginx = `<html><head><title>502  Bad Gateway</title><style>body { color: red }</style></head>
<body><center><h1>502 Bad Gateway</h1></center><hr><center>nginx</center></body></html>`;
    expect(apiError(502, nginx).message).toBe("502 Bad Gateway");
    expect(apiError(503, "<html><body><script>var x = 1 < 2;</script><!-- a -->\n<p>upstream\tconnect error</p>\u0007</body></html>").message).toBe(
      "upstream connect error",
    );
    expect(apiError(504, "stream timeout\r\n").message).toBe("stream timeout");
    const long = apiError(500, "x".repeat(10_000)).message;
    expect(long).toHaveLength(EXCERPT_CHARS);
    expect(long.endsWith("…")).toBe(true);
    expect(apiError(500, "<".repeat(60_000)).message.length).toBeLessThanOrEqual(EXCERPT_CHARS);
  });
});

describe("refusals", () => {
  it("of an append are conflict, fenced, not_found or rejected", () => {
    expect(appendRefusal(apiError(409, '{"lastSeq":3,"error":"seq_conflict","message":"m"}'))).toEqual({ kind: "conflict", lastSeq: 3, message: "m" });
    expect(appendRefusal(apiError(409, '{"epoch":2,"error":"stale_epoch","message":"m"}'))).toEqual({ kind: "fenced", currentEpoch: 2, message: "m" });
    expect(appendRefusal(apiError(404, '{"error":"not_found","message":"session not found"}'))).toEqual({ kind: "not_found", message: "session not found" });
    expect(appendRefusal(apiError(422, '{"error":"illegal_event","message":"m","field":"events[0].type"}'))).toEqual({
      kind: "rejected",
      status: 422,
      code: "illegal_event",
      message: "m",
      field: "events[0].type",
    });
    expect(appendRefusal(apiError(422, '{"error":"session_closed","message":"m"}'))).toMatchObject({ kind: "rejected", code: "session_closed", field: undefined });
    expect(appendRefusal(apiError(413, '{"error":"too_large","message":"m"}')).kind).toBe("rejected");
    expect(appendRefusal(apiError(403, '{"error":"forbidden","message":"m"}')).kind).toBe("rejected");
  });

  it("of a claim are version_pinned, fenced, not_found or rejected", () => {
    expect(claimRefusal(apiError(409, '{"error":"version_pinned","message":"pinned to v1"}'))).toEqual({ kind: "version_pinned", message: "pinned to v1" });
    expect(claimRefusal(apiError(409, '{"epoch":4,"error":"stale_epoch","message":"m"}'))).toEqual({ kind: "fenced", currentEpoch: 4, message: "m" });
    expect(claimRefusal(apiError(404, '{"error":"not_found","message":"session not found"}')).kind).toBe("not_found");
  });

  it("of a decision are already_decided, not_found or rejected", () => {
    expect(decisionRefusal(apiError(409, '{"error":"already_decided","message":"granted by x"}'))).toEqual({
      kind: "already_decided",
      code: "already_decided",
      message: "granted by x",
    });
    expect(decisionRefusal(apiError(409, '{"error":"conflict","message":"lost a race"}'))).toEqual({ kind: "already_decided", code: "conflict", message: "lost a race" });
    // the item as read is gone: its id names another call now
    expect(decisionRefusal(apiError(409, '{"error":"conflict","message":"approval s~4 is another call now","field":"requestedAt"}'))).toEqual({
      kind: "not_found",
      message: "approval s~4 is another call now",
    });
    expect(decisionRefusal(apiError(400, '{"error":"invalid_field","message":"m","field":"reason"}'))).toMatchObject({ kind: "rejected", field: "reason" });
  });

  it("are thrown, not returned, for refused credentials and server failures", () => {
    const thrown = (f: () => unknown) => {
      try {
        f();
      } catch (e) {
        return e;
      }
      throw new Error("nothing thrown");
    };
    const unauthorized = thrown(() => appendRefusal(apiError(401, '{"error":"unauthorized","message":"m"}')));
    expect(unauthorized).toBeInstanceOf(TetherError);
    expect((unauthorized as TetherError).apiError?.status).toBe(401);
    expect(thrown(() => appendRefusal(apiError(500, '{"error":"internal","message":"m"}')))).toBeInstanceOf(TetherError);
    expect(thrown(() => rejected(apiError(503, '{"error":"unavailable","message":"m"}')))).toBeInstanceOf(TetherError);
  });

  it("that lack the detail they need are a malformed answer", () => {
    expect(() => appendRefusal(apiError(409, '{"error":"seq_conflict","message":"m"}'))).toThrow(/seq_conflict without lastSeq/);
  });
});

describe("results", () => {
  it("tell seqs and retries of an append", () => {
    const first = appended(JSON.parse('{"appended":[{"eventId":"a","seq":2,"duplicate":false},{"eventId":"b","seq":3,"duplicate":false}],"lastSeq":3}'));
    const retry = appended(JSON.parse('{"appended":[{"eventId":"a","seq":2,"duplicate":true},{"eventId":"b","seq":3,"duplicate":true}],"lastSeq":7,"redactions":1}'));
    expect(first.seqs).toEqual([2, 3]);
    expect(first.allDuplicates).toBe(false);
    expect(retry.seqs).toEqual(first.seqs);
    expect(retry.allDuplicates).toBe(true);
    expect(retry.redactions).toBe(1);
    expect(Object.isFrozen(first.events)).toBe(true);
  });

  it("hand back their success from …OrThrow, or throw carrying the outcome", () => {
    const approval = { id: "s~1", status: "GRANTED" } as unknown as Approval;
    const notFound = { kind: "not_found", message: "x" } as const;
    const rejectedOutcome = { kind: "rejected", status: 400, code: "c", message: "m", field: undefined } as const;
    const cases: [() => unknown, unknown][] = [
      [() => createdOrThrow({ kind: "created", sessionId: "s", seq: 1, harnessVersion: "v1", modelId: "m", redactions: 0, sessionStartedAt: undefined }), "s"],
      [() => claimedOrThrow({ kind: "claimed", sessionId: "s", workerId: "w", epoch: 1, resumeReason: undefined, resumed: false, lastSeq: 2, nextSeq: 3, sessionStartedAt: undefined }), "s"],
      [() => appendedOrThrow({ kind: "appended", events: [], seqs: [], allDuplicates: true, lastSeq: 1, redactions: 0 }), 1],
      [() => decidedOrThrow({ kind: "decided", approval }), approval],
      [() => settledOrThrow({ kind: "settled", approval }), approval],
    ];
    for (const [call] of cases) {
      expect(call()).toBeDefined();
    }
    for (const [call, outcome] of [
      [() => createdOrThrow(rejectedOutcome), rejectedOutcome],
      [() => claimedOrThrow(notFound), notFound],
      [() => claimedOrThrow({ kind: "version_pinned", message: "m" }), undefined],
      [() => appendedOrThrow({ kind: "conflict", lastSeq: 3, message: "m" }), undefined],
      [() => appendedOrThrow({ kind: "fenced", currentEpoch: 2, message: "m" }), undefined],
      [() => decidedOrThrow({ kind: "already_decided", code: "already_decided", message: "m" }), undefined],
      [() => settledOrThrow({ kind: "still_pending", approval }), undefined],
      [() => settledOrThrow(notFound), notFound],
    ] as const) {
      let caught: unknown;
      try {
        call();
      } catch (e) {
        caught = e;
      }
      expect(caught).toBeInstanceOf(UnexpectedOutcomeError);
      if (outcome !== undefined) {
        expect((caught as UnexpectedOutcomeError).outcome).toBe(outcome);
      }
    }
  });

  it("are exhaustively switchable (the compiler checks every kind is handled)", () => {
    const describe = (r: AppendResult): string => {
      switch (r.kind) {
        case "appended":
          return `seqs ${r.seqs.join(",")}`;
        case "conflict":
          return `re-read from ${r.lastSeq}`;
        case "fenced":
          return `stop: epoch ${r.currentEpoch}`;
        case "not_found":
          return "gone";
        case "rejected":
          return `fix ${r.field ?? "the request"}`;
        default:
          return assertNever(r);
      }
    };
    expect(describe({ kind: "fenced", currentEpoch: 2, message: "m" })).toBe("stop: epoch 2");
    expect(() => assertNever({ kind: "new_kind" } as never)).toThrow(UnexpectedOutcomeError);
  });
});
