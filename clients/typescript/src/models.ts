/**
 * What the services answer to reads, as plain immutable data: sessions and their events (session-service),
 * checkpoints, model context, recovery reports and call records (projector-service), approval items
 * (approval-service). The fields a harness acts on are typed; `json` keeps the whole answer for the rest. States are
 * strings, so values a newer service adds read too. Seqs and epochs are numbers (exact up to 2^53).
 *
 * @module
 */

/** Who an event is attributed to: always the authenticated caller that appended it. */
export interface Actor {
  /** `USER`, `MODEL`, `TOOL`, `APPROVER` or `SYSTEM`. */
  readonly kind: string;
  /** The principal, e.g. `acme-agent`. */
  readonly id: string;
}

/** An event as the log holds it: the envelope the sequencer set and the payload fields of its type (docs/ARCHITECTURE.md §4). */
export interface SessionEvent {
  /** Its position in the session, from 1, gapless. */
  readonly seq: number;
  readonly eventId: string;
  /** Its wire type, e.g. `tool_result`. */
  readonly type: string;
  readonly sessionId: string | undefined;
  /** When the sequencer accepted it. */
  readonly occurredAt: Date | undefined;
  readonly actor: Actor;
  readonly harnessVersion: string | undefined;
  /** The whole event as the API returned it, envelope and payload (e.g. `json.callId`, `json.toolCalls`). Frozen. */
  readonly json: Readonly<Record<string, unknown>>;
}

/** One page of a session's log. */
export interface EventPage {
  readonly events: readonly SessionEvent[];
  /** The session's last seq when the page was read. */
  readonly lastSeq: number;
  /** The seq to ask for next; beyond `lastSeq` when the page reached the end. */
  readonly nextSeq: number;
  /** True when the page reached the session's last seq. */
  readonly atEnd: boolean;
}

/** A session as a list shows it. */
export interface SessionInfo {
  readonly sessionId: string;
  readonly tenantId: string | undefined;
  /** The principal that started it. */
  readonly owner: string | undefined;
  /** `open` or `closed`. */
  readonly status: string | undefined;
  readonly lastSeq: number;
  /** The epoch of its latest claim; 0 before any. */
  readonly epoch: number;
  readonly workerId: string | undefined;
  readonly modelId: string | undefined;
  readonly harnessVersion: string | undefined;
  /** The parent, for a subagent's session. */
  readonly parentSessionId: string | undefined;
  /**
   * When it started: which session of its id this is, as `subscribe(…, { sessionStartedAt })` names it; undefined for a
   * session started before Tether recorded it, or from a service of an earlier release.
   */
  readonly sessionStartedAt: Date | undefined;
}

/** Tokens a model turn used, as its provider reported them. */
export interface TokenUsage {
  readonly inputTokens: number;
  readonly outputTokens: number;
}

/** One item of the agent's plan. */
export interface PlanItem {
  readonly text: string;
  /** `PENDING`, `IN_PROGRESS`, `DONE` or `CANCELLED`. */
  readonly status: string;
}

/** One tool call in a checkpoint and where it stands. */
export interface CallCursor {
  readonly callId: string;
  readonly tool: string | undefined;
  /** The assistant message that asked for it. */
  readonly requestSeq: number;
  /** The key the executor runs it under (`sessionId/seq/callId`). */
  readonly idempotencyKey: string | undefined;
  /** `REQUESTED`, `AUTHORIZED`, `RUNNING`, `STARTED` (a harness-run attempt without result), `OK`, `ERROR`, `CANCELLED` or `UNKNOWN`. */
  readonly state: string | undefined;
  /** Its `tool_result`, once there is one. */
  readonly resultSeq: number | undefined;
  /** True while a human decision on it is pending. */
  readonly awaitingApproval: boolean;
  /**
   * Who runs it: `EXECUTOR` (the tool-executor), `HARNESS` (the harness, with a start step) or `RECORDED` (the harness,
   * reporting only its result); `EXECUTOR` from older projectors.
   */
  readonly runBy: string;
  /** For a harness-run call, the attempts started (0 before the first). */
  readonly attempt: number;
}

/**
 * A session's checkpoint (docs/ARCHITECTURE.md §5): everything a worker needs to resume it, folded from its log by the
 * projector. `json` holds the whole answer (approvals in force, decisions, artifacts, compaction state, log position…).
 */
export interface Checkpoint {
  readonly sessionId: string;
  readonly tenantId: string | undefined;
  readonly schemaVersion: number;
  /** The last seq folded. */
  readonly lastSeq: number;
  readonly owner: string | undefined;
  /** The pinned objective. */
  readonly objective: string | undefined;
  readonly constraints: readonly string[];
  readonly modelId: string | undefined;
  readonly harnessVersion: string | undefined;
  /** `READ_ONLY` or `WRITE`. */
  readonly toolMode: string | undefined;
  /** `ACTIVE`, `AWAITING_APPROVAL`, `RECOVERING`, `INTERRUPTED` or `CLOSED`. */
  readonly status: string;
  /** The last step completed. */
  readonly step: number;
  readonly usedTokens: TokenUsage;
  readonly tokenBudget: number | undefined;
  /** What the session waits for (`approval`, `tool_result`, `human_decision`, `model_turn`), if anything. */
  readonly pendingAction: { readonly kind: string | undefined; readonly callId: string | undefined; readonly sinceSeq: number } | undefined;
  /** The open tool calls and the last finished ones. */
  readonly toolCursor: readonly CallCursor[];
  readonly plan: readonly PlanItem[];
  readonly progress: { readonly lastVerifiedStep: number; readonly stepsCompleted: number; readonly lastNote: string | undefined };
  /** The latest claim, if any. */
  readonly lease:
    | { readonly workerId: string | undefined; readonly epoch: number; readonly harnessVersion: string | undefined; readonly claimedAt: Date | undefined }
    | undefined;
  readonly updatedAt: Date | undefined;
  /** The whole answer. Frozen. */
  readonly json: Readonly<Record<string, unknown>>;
}

/** The provider format of a model context. */
export type ContextFormat = "openai" | "anthropic";

/**
 * A session's model context, ready to send to the provider: system prompt, pinned objective, the "session so far"
 * summary if compacted, authoritative facts, the events since, every dangling tool call closed, and the volatile values
 * last so the prefix stays byte-stable across turns.
 */
export interface ModelContext {
  readonly format: string;
  /** The system prompt, for the Anthropic format (OpenAI has it as the first message). */
  readonly system: string | undefined;
  /** The `messages` array in the provider's format. */
  readonly messages: readonly unknown[];
  /** How many leading messages stay byte-identical as the session goes on (cacheable). */
  readonly stablePrefixSize: number;
  /** The context's size in tokens, counted with `tokenizer`. */
  readonly tokens: number;
  readonly tokenizer: string | undefined;
  /** The pinned model's context window. */
  readonly window: number;
  /** True above about 75 % of the window: time to append a `context_compacted`. */
  readonly compactionAdvised: boolean;
  /** The last seq the context includes. */
  readonly atSeq: number;
  /** Events left out to fit a token limit; 0 without one. */
  readonly droppedEvents: number;
  readonly json: Readonly<Record<string, unknown>>;
}

/** A tool call in a recovery report. */
export interface RecoveryCall {
  readonly callId: string;
  readonly tool: string | undefined;
  readonly state: string | undefined;
  readonly requestSeq: number;
  readonly resultSeq: number | undefined;
  readonly idempotencyKey: string | undefined;
}

/** A harness-run call in a recovery report, for the worker that resumes the session (docs/ARCHITECTURE.md §6). */
export interface RecoveryHarnessCall {
  readonly callId: string;
  readonly tool: string | undefined;
  /** `CONFIRMED` (OK or ERROR: never run it again), `UNKNOWN` (started, no result: reconcile, never re-run), `NOT_STARTED` or `CANCELLED`. */
  readonly outcome: string | undefined;
  /** As in the checkpoint's tool cursor, e.g. `STARTED`. */
  readonly state: string | undefined;
  /** The harness only reports its result: Tether gives it no exactly-once guarantee. */
  readonly recordedOnly: boolean;
  /** Run with a start step: a started attempt without result is never started again. */
  readonly exactlyOnce: boolean;
  /** The attempts started. */
  readonly attempt: number;
  /** The epoch of the worker that started the latest attempt. */
  readonly startedEpoch: number | undefined;
  /** The latest attempt's key. */
  readonly idempotencyKey: string | undefined;
}

/**
 * What a worker taking over a session must know before it does anything: whose session it is and what it is pinned
 * to, where it stands, what its tool calls did, what authority is in force or pending, and what is safe next.
 */
export interface RecoveryReport {
  readonly identity: {
    readonly sessionId: string;
    readonly tenantId: string | undefined;
    readonly owner: string | undefined;
    readonly modelId: string | undefined;
    readonly harnessVersion: string | undefined;
    /** The latest claim's epoch; 0 before any. */
    readonly epoch: number;
    readonly workerId: string | undefined;
  };
  readonly position: {
    readonly lastSeq: number;
    readonly step: number;
    readonly lastVerifiedStep: number;
    /** As in the checkpoint, e.g. `RECOVERING`. */
    readonly status: string | undefined;
    readonly lastNote: string | undefined;
  };
  readonly effects: {
    /** Calls that finished OK or ERROR: their effect is known; never run them again. */
    readonly confirmed: readonly RecoveryCall[];
    readonly cancelled: readonly RecoveryCall[];
    /** Calls whose outcome is unknown: a human decides; never re-run them. */
    readonly unknown: readonly RecoveryCall[];
    /** Calls requested, authorized or running. */
    readonly inFlight: readonly RecoveryCall[];
    readonly totals: { readonly ok: number; readonly error: number; readonly cancelled: number; readonly unknown: number };
    /** Every harness-run call the checkpoint tracks; empty from older projectors. */
    readonly harnessRun: readonly RecoveryHarnessCall[];
  };
  readonly authority: {
    /** Session-scope grants in force: `tool` on paths matching `pathGlob` (any path when undefined). */
    readonly approvalsInForce: readonly {
      readonly grantSeq: number;
      readonly tool: string | undefined;
      readonly pathGlob: string | undefined;
      readonly approver: string | undefined;
    }[];
    /** Calls waiting for an approver. */
    readonly pendingApprovals: readonly RecoveryCall[];
  };
  /** What is safe to do next, in words. */
  readonly nextSafeActions: readonly string[];
  readonly json: Readonly<Record<string, unknown>>;
}

/** The story of one tool call (projector-service `/calls/{callId}`). */
export interface CallRecord {
  readonly sessionId: string;
  readonly callId: string;
  readonly tool: string | undefined;
  readonly argumentsJson: string | undefined;
  readonly requestSeq: number;
  readonly idempotencyKey: string | undefined;
  readonly authorizedSeq: number | undefined;
  /** `POLICY` or `APPROVAL`. */
  readonly basis: string | undefined;
  readonly resultSeq: number | undefined;
  readonly resultStatus: string | undefined;
  readonly json: Readonly<Record<string, unknown>>;
}

/** A human's decision on an approval item, as the log recorded it. */
export interface ApprovalRecordedDecision {
  /** `GRANT_ONCE`, `GRANT_SESSION`, `DENY`, `MARK_DONE`, `RETRY` or `ABANDON`. */
  readonly decision: string | undefined;
  readonly approver: string | undefined;
  /** Why; possibly empty. */
  readonly reason: string;
  /** For GRANT_SESSION: the tool the grant covers. */
  readonly tool: string | undefined;
  /** For GRANT_SESSION: the paths it covers; undefined for any. */
  readonly pathGlob: string | undefined;
  /** The seq of the decision's event. */
  readonly seq: number;
  readonly decidedAt: Date | undefined;
}

/**
 * One thing a human decides on, as the approval-service shows it: a gated tool call waiting for approval (kind
 * `APPROVAL`), or a call whose outcome the executor reported UNKNOWN (kind `UNKNOWN_OUTCOME`). Its id is
 * `<sessionId>~<seq>`, the seq of the event that opened it.
 */
export interface Approval {
  readonly id: string;
  /** `APPROVAL` or `UNKNOWN_OUTCOME`. */
  readonly kind: string;
  /** `PENDING`, then `GRANTED`, `DENIED`, `EXPIRED`, `CANCELLED`, `MARKED_DONE`, `RETRIED` or `ABANDONED`. */
  readonly status: string;
  /** True while nobody has decided and it has not ended otherwise. */
  readonly isPending: boolean;
  readonly sessionId: string | undefined;
  readonly callId: string | undefined;
  readonly tool: string | undefined;
  /** The call's arguments as JSON text. */
  readonly argumentsJson: string;
  /** Exactly what the approver is shown: the command, or the diff. */
  readonly shown: string | undefined;
  /** The seq of the event that opened the item. */
  readonly seq: number;
  /** The seq of the assistant message that asked for the call. */
  readonly requestSeq: number;
  readonly requestedAt: Date | undefined;
  readonly requestedBy: string | undefined;
  readonly modelId: string | undefined;
  /** When a pending approval expires (and is denied in the service's name). */
  readonly expiresAt: Date | undefined;
  /** For an unknown outcome: what the executor reported. */
  readonly outcome: string | undefined;
  /** The decisions it takes while pending (e.g. `GRANT_ONCE`, `GRANT_SESSION`, `DENY`); empty once ended. */
  readonly decisions: readonly string[];
  /** A path glob a session grant for "this directory" would use, when the call has a path. */
  readonly suggestedPathGlob: string | undefined;
  /**
   * While pending: who runs the call, `EXECUTOR` or `HARNESS` (the session's harness, on no workspace path Tether
   * knows: a session grant of it takes no path glob).
   */
  readonly runBy: string | undefined;
  /** The human decision that ended it. */
  readonly decision: ApprovalRecordedDecision | undefined;
  /** Why it ended without a human decision (expired, interrupted, closed). */
  readonly endedBecause: string | undefined;
  readonly json: Readonly<Record<string, unknown>>;
}
