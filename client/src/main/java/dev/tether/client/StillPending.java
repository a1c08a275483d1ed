package dev.tether.client;

import java.util.Objects;

/**
 * The wait ran out and the item is still pending.
 *
 * @param approval the item as last read
 */
public record StillPending(Approval approval) implements AwaitResult {

    public StillPending {
        Objects.requireNonNull(approval, "approval");
    }
}
