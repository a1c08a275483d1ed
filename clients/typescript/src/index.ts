/**
 * The Tether SDK for TypeScript. Start with {@link TetherClient}; see the README for a walk-through.
 *
 * @module
 */
export { TetherClient, SessionWriter } from "./client.js";
export { RetryPolicy, LOCAL_SESSIONS, LOCAL_PROJECTOR, LOCAL_APPROVALS, DEFAULT_TIMEOUT_MS } from "./options.js";
export type { TetherClientOptions, ResolvedOptions } from "./options.js";
export { TetherError, UnexpectedOutcomeError, MalformedAnswerError } from "./errors.js";
export type { ApiError } from "./errors.js";
export { EVENT_ID_NAMESPACE, eventIdOf, nameBasedUuid } from "./ids.js";
export { NewEvent, ReadAt, ApprovalDecision, HarnessTool, MAX_HARNESS_TOOL_NAME, HARNESS_TOOL_WILDCARD, eventIdsOf } from "./requests.js";
export type {
  AppendBatch,
  ApprovalFilter,
  ApprovalStatus,
  ClaimRequest,
  ContextQuery,
  DecisionKind,
  NewSession,
  NewSubagent,
  ToolCall,
  ToolMode,
  ToolStatus,
} from "./requests.js";
export {
  appendedOrThrow,
  claimedOrThrow,
  createdOrThrow,
  decidedOrThrow,
  forkedOrThrow,
  settledOrThrow,
  subagentStartedOrThrow,
  assertNever,
} from "./results.js";
export type {
  AlreadyDecided,
  AppendResult,
  Appended,
  AppendedEvent,
  AwaitResult,
  ClaimResult,
  Claimed,
  Conflict,
  CreateResult,
  Created,
  Decided,
  DecisionResult,
  EraseResult,
  Erased,
  Fenced,
  ForkResult,
  Forked,
  NotFound,
  Outcome,
  Rejected,
  Settled,
  StillPending,
  SubagentStartResult,
  SubagentStarted,
  VersionPinned,
} from "./results.js";
export {
  HarnessToolRunner,
  HarnessHookError,
  Reconciliation,
  ToolOutput,
  completedOrThrow,
  DEFAULT_AUTHORIZATION_TIMEOUT_MS,
} from "./harness-tools.js";
export type {
  CompletedHow,
  HarnessRunOptions,
  HarnessRunResult,
  HarnessToolEntry,
  HarnessToolFunction,
  HarnessToolRunnerOptions,
  NotYetAuthorized,
  ToolCancelled,
  ToolCompleted,
  ToolDenied,
  ToolInvocation,
  ToolOutcomeUnknown,
  ToolReconciler,
  ToolResolvedByPerson,
} from "./harness-tools.js";
export { SessionLog, SessionTakenOverError } from "./session-log.js";
export { EventTexts, offloadedSha } from "./event-text.js";
export type { Plan, SessionFold, SessionLogOptions, SessionLogPort } from "./session-log.js";
export { Subscription } from "./subscription.js";
export type { SessionEventListener, SubscriptionEnd } from "./subscription.js";
export type {
  Actor,
  Approval,
  ApprovalRecordedDecision,
  CallCursor,
  CallRecord,
  Checkpoint,
  ContextFormat,
  EventPage,
  ModelContext,
  PlanItem,
  RecoveryCall,
  RecoveryHarnessCall,
  RecoveryReport,
  SessionEvent,
  SessionInfo,
  TokenUsage,
} from "./models.js";
export type { JsonValue } from "./json-text.js";
