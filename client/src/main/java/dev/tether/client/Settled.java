package dev.tether.client;

import java.util.Objects;

/**
 * The item is no longer pending: decided by a human (see {@link Approval#decision()}), or ended
 * without one (see {@link Approval#endedBecause()}).
 *
 * @param approval the item as it ended
 */
public record Settled(Approval approval) implements AwaitResult {

    public Settled {
        Objects.requireNonNull(approval, "approval");
    }
}
