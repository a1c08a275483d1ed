package dev.tether.client;

import java.util.Objects;

/**
 * The decision is in the session's log, in the approver's name.
 *
 * @param approval the item as it stands after the decision
 */
public record Decided(Approval approval) implements DecisionResult {

    public Decided {
        Objects.requireNonNull(approval, "approval");
    }
}
