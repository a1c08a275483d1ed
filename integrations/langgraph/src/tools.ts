import { ToolMessage } from "@langchain/core/messages";
import type { RunnableConfig } from "@langchain/core/runnables";
import { DynamicStructuredTool, type StructuredToolInterface } from "@langchain/core/tools";
import { interrupt } from "@langchain/langgraph";
import {
  HarnessTool,
  HarnessToolRunner,
  ToolOutput,
  type Claimed,
  type HarnessRunResult,
  type Reconciliation,
  type TetherClient,
  type ToolInvocation,
} from "@tether/client";

/**
 * A LangChain tool the graph's ToolNode runs through Tether as a harness-run tool (docs/ARCHITECTURE.md §6): each call
 * waits for its authorization (the tenant's policy, or an approver), is recorded as started, runs with the idempotency
 * key Tether derived from the message that asked for it and the session's start ({@link idempotencyKeyOf}), and has its
 * result appended — once. After a crash, a call that
 * started and has no result is never run again blindly: it is reconciled by `reconcile` (when given) or left to a person.
 */
export interface TetherToolSpec {
  /** The tool itself, as the graph would have run it. Its function finds the attempt's key with {@link idempotencyKeyOf}. */
  readonly tool: StructuredToolInterface;
  /** It changes something outside the thread (gated by default: an approver decides each call). Default false. */
  readonly mutating?: boolean;
  /**
   * Finds out, by the attempt's idempotency key (`attempt.idempotencyKey`: the key its start handed the tool, what
   * {@link idempotencyKeyOf} gave it; the log key for an attempt started by an SDK before external keys), whether an
   * attempt that started and has no result took effect (see `ToolReconciler` of @tether/client). Without one, such an
   * attempt ends UNKNOWN for a person to decide.
   */
  readonly reconcile?: (attempt: ToolInvocation) => Reconciliation | Promise<Reconciliation>;
}

/** What a tool call waiting for a person raises with LangGraph's `interrupt()`; resume the graph once the person decided. */
export interface TetherApprovalInterrupt {
  readonly tether: "approval" | "unknown_outcome";
  readonly sessionId: string;
  readonly callId: string;
  readonly tool: string;
  /** The approval item to decide (`GET /v1/approvals/{id}`), when there is one. */
  readonly approvalId: string | undefined;
}

/** What the wrapped tools need of the saver: the thread's session, its claim, and a call's place in the log. */
export interface ToolHost {
  readonly client: TetherClient;
  sessionIdOf(threadId: string): string;
  /** The saver's claim of the thread (claiming it first if need be). */
  claimFor(threadId: string): Promise<Claimed>;
  /** The seq of the assistant message that asked for the call. */
  requestOf(threadId: string, callId: string): Promise<number>;
  /** The id of the approval item a person decides for the call (an approval, an unknown outcome), if it has one. */
  approvalOf(threadId: string, callId: string): Promise<string | undefined>;
}

const KEY = "tether_idempotency_key";
const ATTEMPT = "tether_attempt";

/**
 * The idempotency key of the attempt a tool runs in (from its `config`), to hand to the external system it changes:
 * `<sessionId>/<seq>/<callId>~<ms of the session's start>` (`ToolInvocation.idempotencyKey` of @tether/client), unique
 * even across sessions made again under an erased thread's session id; the key `reconcile` gets for the attempt.
 * Undefined outside Tether.
 */
export function idempotencyKeyOf(config: RunnableConfig | undefined): string | undefined {
  const key = config?.configurable?.[KEY];
  return typeof key === "string" ? key : undefined;
}

/** The declaration of a spec's tool, as the thread's session declares it. */
export function declarationOf(spec: TetherToolSpec): HarnessTool {
  const mutating = spec.mutating === true;
  const reconcilable = spec.reconcile !== undefined;
  return mutating ? HarnessTool.mutating(spec.tool.name, { reconcilable }) : HarnessTool.readOnly(spec.tool.name, { reconcilable });
}

/**
 * The tool of `spec` wrapped to run through Tether. The wrapper has the tool's name, description and schema; what it
 * returns is the call's ToolMessage (status `error` for an ERROR result, a denial or a cancellation).
 *
 * - a call not yet authorized after `authorizationTimeoutMs` because an approver has not decided raises LangGraph's
 *   `interrupt()` with a {@link TetherApprovalInterrupt}: the graph stops, its checkpoint keeps the call pending, and
 *   resuming it (`new Command({ resume: true })`, in this process or another) asks Tether again;
 * - so does a call whose outcome is unknown, until a person marks it done, retries or abandons it;
 * - a call of a thread another process has claimed throws (the saver's ThreadTakenOverError).
 */
export function wrapTool(host: ToolHost, spec: TetherToolSpec, authorizationTimeoutMs: number): DynamicStructuredTool {
  const declaration = declarationOf(spec);
  const original = spec.tool;
  return new DynamicStructuredTool({
    name: original.name,
    description: original.description,
    schema: original.schema as DynamicStructuredTool["schema"],
    func: async (_input: unknown, _runManager: unknown, config?: RunnableConfig) => {
      const threadId = config?.configurable?.thread_id as string | undefined;
      const callId = (config as { toolCall?: { id?: string } } | undefined)?.toolCall?.id;
      if (threadId === undefined || callId === undefined) {
        throw new Error(`tool ${original.name} runs through Tether: call it from a graph with a thread_id, as a tool call with an id`);
      }
      const sessionId = host.sessionIdOf(String(threadId));
      for (;;) {
        const claim = await host.claimFor(String(threadId));
        const requestSeq = await host.requestOf(String(threadId), callId);
        const runner = new HarnessToolRunner(host.client, claim, {
          tools: [
            {
              tool: declaration,
              run: async (invocation) => {
                const output = await original.invoke(JSON.parse(invocation.argumentsJson), {
                  ...config,
                  configurable: { ...config?.configurable, [KEY]: invocation.idempotencyKey, [ATTEMPT]: invocation.attempt },
                });
                // half of a surrogate pair (an output cut inside an emoji) is no text Tether stores: U+FFFD instead
                return ToolOutput.ok(textOf(output).toWellFormed());
              },
              reconcile: spec.reconcile,
            },
          ],
        });
        const result = await runner.run(requestSeq, callId, authorizationTimeoutMs);
        const message = toolMessage(result, original.name, callId);
        if (message !== undefined) {
          return message;
        }
        if (result.kind === "not_yet_authorized" && !result.awaitingApproval) {
          continue; // no approver has been asked (yet): the policy's answer is on its way
        }
        const waiting: TetherApprovalInterrupt = {
          tether: result.kind === "outcome_unknown" ? "unknown_outcome" : "approval",
          sessionId,
          callId,
          tool: original.name,
          approvalId: await host.approvalOf(String(threadId), callId),
        };
        // the graph stops here until resumed; on resume interrupt() returns and the call is asked about again
        interrupt(waiting);
      }
    },
  });
}

/** The ToolMessage a run's end makes, or undefined when a person must act first (an approval, an unknown outcome). */
function toolMessage(result: HarnessRunResult, tool: string, callId: string): ToolMessage | undefined {
  const message = (content: string, error: boolean) => new ToolMessage({ content, tool_call_id: callId, name: tool, status: error ? "error" : "success" });
  switch (result.kind) {
    case "completed":
      return message(result.content ?? "", result.status === "ERROR");
    case "denied":
      return message(`denied: ${result.reason}`, true);
    case "cancelled":
      return message(`cancelled: ${result.reason}`, true);
    case "resolved_by_person":
      return message(result.resolution === "MARK_DONE" ? `done (marked by ${result.approver}): ${result.reason}` : `abandoned by ${result.approver}: ${result.reason}`, result.resolution !== "MARK_DONE");
    case "outcome_unknown":
    case "not_yet_authorized":
      return undefined;
    case "fenced":
      throw new Error(`tool ${tool}: another process claimed the thread (epoch ${result.currentEpoch}); stop working on it here`);
    case "not_found":
    case "rejected":
      throw new Error(`tool ${tool}: Tether refused call ${callId}: ${result.message}`);
  }
}

function textOf(output: unknown): string {
  if (typeof output === "string") {
    return output;
  }
  if (output instanceof ToolMessage) {
    return typeof output.content === "string" ? output.content : JSON.stringify(output.content);
  }
  return JSON.stringify(output);
}
