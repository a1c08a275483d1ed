package dev.tether.client;

import java.util.Objects;

/**
 * The wait ran out before the call was authorized: nothing was started or run. Run it again to wait longer.
 *
 * @param callId           the call
 * @param awaitingApproval true when an approver has been asked and has not decided
 * @param lastSeq          the last seq the runner saw
 */
public record NotYetAuthorized(String callId, boolean awaitingApproval, long lastSeq) implements HarnessRunResult {

    public NotYetAuthorized {
        Objects.requireNonNull(callId, "callId");
    }
}
