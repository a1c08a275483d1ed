package dev.tether.client;

/**
 * How {@link HarnessToolRunner#run} ended for a call: {@link ToolCompleted} (OK or ERROR: ran now, reconciled, or
 * reported before), {@link ToolDenied} and {@link ToolCancelled} (it never ran), {@link ToolOutcomeUnknown} (a person
 * decides), {@link ToolResolvedByPerson}, {@link NotYetAuthorized} (the wait ran out), {@link Fenced} (another worker
 * claimed the session: stop), {@link NotFound} or {@link Rejected} (the sequencer refused a step, the field named).
 */
public sealed interface HarnessRunResult
        permits ToolCompleted, ToolDenied, ToolCancelled, ToolOutcomeUnknown, ToolResolvedByPerson, NotYetAuthorized, Fenced, NotFound,
        Rejected {

    /** The {@link ToolCompleted} outcome, or an {@link UnexpectedOutcomeException} carrying the other one. */
    default ToolCompleted completedOrThrow() {
        if (this instanceof ToolCompleted c) {
            return c;
        }
        throw new UnexpectedOutcomeException(this);
    }
}
