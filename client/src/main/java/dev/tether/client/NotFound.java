package dev.tether.client;

import java.util.Objects;

/**
 * The session (or approval, or call) does not exist for the caller: it never did, it was erased,
 * or it belongs to another tenant — the services answer all three alike, so existence does not
 * leak across tenants.
 *
 * @param message the service's explanation, e.g. {@code session not found}; never null
 */
public record NotFound(String message) implements ClaimResult, AppendResult, ForkResult, EraseResult, MigrateResult, DecisionResult,
        AwaitResult, HarnessRunResult, SubagentStartResult {

    public NotFound {
        Objects.requireNonNull(message, "message");
    }
}
