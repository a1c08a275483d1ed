package dev.tether.client;

import java.util.Objects;

/**
 * The item is no longer pending: another approver decided it, or it expired or was cancelled, before
 * this decision. Nothing was recorded; read the item to see how it ended.
 *
 * @param code    the service's code ({@code already_decided}; {@code item_ended} for an item that ended with no decision
 *                taking effect (expired, its turn interrupted); {@code conflict} for a race lost in the log)
 * @param message the service's explanation; never null
 */
public record AlreadyDecided(String code, String message) implements DecisionResult {

    public AlreadyDecided {
        Objects.requireNonNull(code, "code");
        Objects.requireNonNull(message, "message");
    }
}
