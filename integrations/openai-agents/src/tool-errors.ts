import { AsyncLocalStorage } from "node:async_hooks";
import { tool, type FunctionTool } from "@openai/agents-core";

/**
 * How a tool's failure is seen, so that Tether's runner applies its rules for a tool that throws (a read-only call ends
 * ERROR; a mutating one may have taken effect: reconciled by its key, or UNKNOWN for a person) and never records the
 * call OK. The SDK's `tool()` turns an exception of `execute` into an output for the model (its `errorFunction`; by
 * default the fixed {@link SDK_TOOL_ERROR_TEXT}) inside the tool's `invoke`, before the session's wrapper sees it:
 * without more, the wrapper would take that text for the tool's output.
 *
 * @module
 */

/**
 * What the SDK's default `errorFunction` (@openai/agents-core 0.20) tells the model of a tool that threw. An output that
 * is exactly this text, from a tool built with the SDK's own `tool()`, stands for an exception.
 */
export const SDK_TOOL_ERROR_TEXT = "An error occurred while running the tool. Please try again.";

/** The call a session runs, while it runs: its tool (by the tool's `invoke`) and the note its {@link tetherTool} marks. */
const running = new AsyncLocalStorage<{ readonly invoke: unknown; readonly note: FailureNote }>();

/**
 * The tools {@link tetherTool} built, by their `invoke` (a copy of the tool, `{ ...tool, name }`, is the same tool): they
 * note their failures, so an output of theirs is never guessed to be one.
 */
const observed = new WeakSet<object>();

/**
 * What a {@link tetherTool} notes of a call a session runs: whether its `execute` started, and whether the call failed
 * (`execute` threw, or the tool's own `errorFunction` made the output: the output did not match the tool's schema).
 */
export interface FailureNote {
  started: boolean;
  failed: boolean;
}

/** Runs `invoke` (a call of `tool`) with `note` for the tool to mark. */
export function noted<T>(tool: FunctionTool<any, any, any>, note: FailureNote, invoke: () => Promise<T>): Promise<T> {
  return running.run({ invoke: tool.invoke, note }, invoke);
}

/**
 * The SDK's `tool()`, with the same options and the same behaviour wherever the tool is used — an exception of
 * `execute` goes to its `errorFunction` as the SDK has it (`undefined`: the SDK's default text, `null`: the exception
 * fails the run, a function: its output) — and, when the tool is given to a `TetherSession` (`tools: [{ tool }]`), one
 * more thing: the session sees the failure, and Tether's rules for a tool that throws decide the call's `tool_result`.
 * Build Tether-run tools with it; a tool built with the SDK's `tool()` is recognised as failed only by the SDK's default
 * text (see the README, "When a tool fails").
 */
export const tetherTool: typeof tool = ((options: Parameters<typeof tool>[0]) => {
  let built: FunctionTool<any, any, any> | undefined;
  // the note of the call being run by a session, if it is a call of this tool (not of another one it runs in turn)
  const noteOf = (): FailureNote | undefined => {
    const call = running.getStore();
    return call !== undefined && call.invoke === built?.invoke ? call.note : undefined;
  };
  const execute = options.execute as (this: unknown, ...args: unknown[]) => unknown;
  async function noting(this: unknown, ...args: unknown[]): Promise<unknown> {
    const note = noteOf();
    if (note !== undefined) {
      note.started = true;
    }
    try {
      return await execute.apply(this, args);
    } catch (e) {
      if (note !== undefined) {
        note.failed = true;
      }
      throw e;
    }
  }
  // the tool's name when none is given is its execute's, as the SDK takes it
  Object.defineProperty(noting, "name", { value: execute.name });
  // undefined (the SDK's default) and null stay as they are: the SDK decides what they mean
  const given = options.errorFunction as ((this: unknown, ...args: unknown[]) => unknown) | null | undefined;
  const errorFunction = typeof given !== "function" ? given : function (this: unknown, ...args: unknown[]): unknown {
    const note = noteOf();
    if (note !== undefined) {
      note.failed = true;
    }
    return given.apply(this, args);
  };
  built = tool({ ...options, execute: noting, errorFunction } as Parameters<typeof tool>[0]);
  observed.add(built.invoke);
  return built;
}) as typeof tool;

/**
 * How a tool's run whose `invoke` answered `output` went: `not_run` when a {@link tetherTool}'s `execute` never started
 * (the input did not parse: the output is its errorFunction's, and nothing took effect); `failed` when its `execute`
 * threw or its errorFunction made the output (the output did not match the tool's schema) — or, for a tool built
 * otherwise, when the output is the SDK's default {@link SDK_TOOL_ERROR_TEXT} (the output of an errorFunction of its own
 * cannot be told from a result); else `ok`.
 */
export function runOutcome(tool: FunctionTool<any, any, any>, output: unknown, note: FailureNote): "ok" | "failed" | "not_run" {
  if (!observed.has(tool.invoke)) {
    return output === SDK_TOOL_ERROR_TEXT ? "failed" : "ok";
  }
  return !note.started ? "not_run" : note.failed ? "failed" : "ok";
}

/**
 * A tool's run failed, and the SDK made an output for the model of it (`text`): thrown to Tether's runner, whose rules
 * for a tool that throws then decide the call's result. Its text is the output's, as the runner writes it.
 */
export class ToolRunFailed extends Error {
  constructor(readonly text: string) {
    super(text);
    this.name = "ToolRunFailed";
  }

  override toString(): string {
    return this.text;
  }
}
