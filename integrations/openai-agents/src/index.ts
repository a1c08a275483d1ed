/**
 * The OpenAI Agents SDK (TypeScript) on Tether: TetherSession. See the README.
 *
 * @module
 */
export { TetherSession, idempotencyKeyOf } from "./session.js";
export type { TetherSessionOptions, TetherToolSpec, SettledApprovals, ResumeReport } from "./session.js";
