package dev.tether.client;

/**
 * What {@link TetherClient#startSubagent} got: {@link SubagentStarted}, {@link NotFound} (no such parent for the caller)
 * or {@link Rejected} (a wider tool mode, a budget missing or larger than the parent has left, a closed parent).
 */
public sealed interface SubagentStartResult permits SubagentStarted, NotFound, Rejected {

    /** The {@link SubagentStarted} outcome, or an {@link UnexpectedOutcomeException} carrying the other one. */
    default SubagentStarted startedOrThrow() {
        if (this instanceof SubagentStarted s) {
            return s;
        }
        throw new UnexpectedOutcomeException(this);
    }
}
