package dev.tether.client;

/**
 * A tool the harness runs: called once per started attempt, after Tether recorded the start, with the attempt's
 * idempotency key. Its answer becomes the call's {@code tool_result}.
 *
 * <p>What a thrown exception means: a read-only tool's call ends ERROR with the exception's message; a mutating tool
 * may have taken effect, so a reconcilable one is reconciled at once (its {@link ToolReconciler}; proven without effect,
 * it runs again, but a call is started at most {@link HarnessToolRunner#MAX_STARTS} times, then ends ERROR naming the
 * limit and the exception) and any other ends UNKNOWN for a person to decide — never run again on a guess.
 */
@FunctionalInterface
public interface HarnessToolFunction {

    ToolOutput run(ToolInvocation call) throws Exception;
}
