package dev.tether.client;

import java.util.Objects;

/**
 * An approver denied the call (or nobody decided in time): it never ran and never will.
 *
 * @param callId the call
 * @param reason the approver's reason, or the approval-service's ERROR result
 * @param seq    the denial's (or that result's) seq
 */
public record ToolDenied(String callId, String reason, long seq) implements HarnessRunResult {

    public ToolDenied {
        Objects.requireNonNull(callId, "callId");
        Objects.requireNonNull(reason, "reason");
    }
}
