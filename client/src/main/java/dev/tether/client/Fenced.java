package dev.tether.client;

import java.util.Objects;

/**
 * Another worker has claimed the session since the caller's claim: the caller's epoch is stale, and
 * nothing it sends is appended. A fenced worker stops working on the session.
 *
 * @param currentEpoch the session's epoch now
 * @param message      the service's explanation; never null
 */
public record Fenced(long currentEpoch, String message) implements AppendResult, ClaimResult, HarnessRunResult {

    public Fenced {
        Objects.requireNonNull(message, "message");
    }
}
