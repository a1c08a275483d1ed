/**
 * TetherSaver, a LangGraph.js checkpointer that keeps threads in Tether. See the README.
 *
 * @module
 */
export { DEFAULT_MAX_CACHED_THREADS, TetherSaver, TetherSaverError, ThreadTakenOverError } from "./saver.js";
export type { TetherSaverOptions, ThreadSession } from "./saver.js";
export type { TetherPort } from "./port.js";
export { idempotencyKeyOf } from "./tools.js";
export type { TetherToolSpec, TetherApprovalInterrupt } from "./tools.js";
