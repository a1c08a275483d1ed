package dev.tether.core.event;

/**
 * Who runs a tool call, fixed when its {@code assistant_message} is appended, from the session's declared
 * {@link HarnessTool harness tools} (docs/ARCHITECTURE.md §6, "Harness-run tools").
 */
public enum CallRunner {
    /** The tool-executor runs it, from the projector's tool request. */
    EXECUTOR,
    /** The session's harness runs it: authorized, then {@code tool_call_started}, then its {@code tool_result}. */
    HARNESS,
    /** The harness only reports its result, after the fact: no start, no exactly-once guarantee, no approval gate. */
    RECORDED;

    /** Whether the harness, not the executor, runs calls of this kind (and writes their results). */
    public boolean harness() {
        return this != EXECUTOR;
    }
}
