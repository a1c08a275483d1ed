/**
 * The OpenAI Agents SDK (TypeScript) on Tether: TetherSession. See the README.
 *
 * @module
 */
export { TetherSession, ToolCallPendingError, idempotencyKeyOf } from "./session.js";
export { tetherTool } from "./tool-errors.js";
export type { TetherSessionOptions, TetherToolSpec, SettledApprovals, ResumeReport } from "./session.js";
