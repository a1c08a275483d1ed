package dev.tether.client;

import java.util.Objects;

/**
 * A person resolved the call's unknown outcome: MARK_DONE (treat it as done) or ABANDON (give it up). Either way it
 * is finished and never runs again.
 *
 * @param callId     the call
 * @param resolution {@code MARK_DONE} or {@code ABANDON}
 * @param approver   who resolved it
 * @param reason     their reason
 * @param seq        the {@code tool_outcome_resolved}'s seq
 */
public record ToolResolvedByPerson(String callId, String resolution, String approver, String reason, long seq) implements HarnessRunResult {

    public ToolResolvedByPerson {
        Objects.requireNonNull(callId, "callId");
        Objects.requireNonNull(resolution, "resolution");
    }
}
