package dev.tether.core.event;

import java.time.Instant;

/**
 * {@code subagent_result}: The outcome of a child session; its transcript stays in its own log. Written only by the sequencer.
 *
 * @param parentStartedAt the child's {@link SessionStarted#parentStartedAt}: which session of the parent's id the child was
 *                        started under, so that a later session of that id refuses the result; null in a result of a
 *                        child that did not record it
 */
public record SubagentResult(String childSessionId, String outcome, Instant parentStartedAt) implements EventPayload {

    public static final String TYPE = "subagent_result";

    public SubagentResult {
        Fields.nonBlank(childSessionId, "childSessionId");
        outcome = outcome == null ? "" : outcome;
    }

    /** The result of a child that did not record which session of its parent's id it was started under. */
    public SubagentResult(String childSessionId, String outcome) {
        this(childSessionId, outcome, null);
    }

    @Override
    public String type() {
        return TYPE;
    }
}
