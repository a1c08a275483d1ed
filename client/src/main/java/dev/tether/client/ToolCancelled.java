package dev.tether.client;

import java.util.Objects;

/**
 * The call is cancelled: its turn was interrupted before it started (Tether appends its CANCELLED result), or its
 * result is CANCELLED. A call cancelled before it started never ran.
 *
 * @param callId the call
 * @param reason why
 * @param seq    the interruption's or the CANCELLED result's seq
 */
public record ToolCancelled(String callId, String reason, long seq) implements HarnessRunResult {

    public ToolCancelled {
        Objects.requireNonNull(callId, "callId");
        Objects.requireNonNull(reason, "reason");
    }
}
