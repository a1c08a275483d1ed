package dev.tether.core.event;

/** {@code subagent_result}: The outcome of a child session; its transcript stays in its own log. Written only by the sequencer. */
public record SubagentResult(String childSessionId, String outcome) implements EventPayload {

    public static final String TYPE = "subagent_result";

    public SubagentResult {
        Fields.nonBlank(childSessionId, "childSessionId");
        outcome = outcome == null ? "" : outcome;
    }

    @Override
    public String type() {
        return TYPE;
    }
}
